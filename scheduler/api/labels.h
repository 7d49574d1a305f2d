// A pod's, node's or volume's labels: a sorted key/value set that is
// stored once per distinct content. Pods of one gang carry the same labels
// (job, queue, role), so 50,000 pods hold about as many label sets as they
// have gangs, and copying a pod into a cycle's snapshot copies one pointer
// instead of every key and value.
#ifndef SHOAL_SCHEDULER_API_LABELS_H_
#define SHOAL_SCHEDULER_API_LABELS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace shoal::api {

// Sorted by key; at most one value per key. Immutable: a changed set is a
// new Labels.
class Labels {
 public:
  using Pairs = std::vector<std::pair<std::string, std::string>>;

  Labels() = default;
  // Sorts `pairs`; of a repeated key, keeps the smallest value.
  explicit Labels(Pairs pairs);

  // nullptr when the key is absent.
  const std::string* Find(absl::string_view key) const;
  const Pairs& pairs() const;
  bool empty() const { return set_ == nullptr; }
  // Equal contents share one set, so comparing is comparing addresses.
  bool operator==(const Labels& o) const { return set_ == o.set_; }

  // The process-wide table of sets: how many are alive, and how many
  // entries it holds (dead ones wait for the next sweep).
  struct TableStats {
    size_t alive = 0;
    size_t entries = 0;
  };
  static TableStats Stats();

 private:
  std::shared_ptr<const Pairs> set_;  // nullptr: no labels
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_LABELS_H_
