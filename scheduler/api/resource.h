// A vector of resource amounts: cpu in milli, memory and everything else in
// base units, indexed by interned ResourceId.
#ifndef SHOAL_SCHEDULER_API_RESOURCE_H_
#define SHOAL_SCHEDULER_API_RESOURCE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/api/resource_name.h"

namespace shoal::api {

// An amount no real resource reaches: a limit on a resource that is not
// limited (a queue capability that does not name it).
inline constexpr int64_t kUnlimited = int64_t{1} << 60;

class Resource {
 public:
  Resource() = default;

  // Builds from (name, quantity text) pairs as a Kubernetes ResourceList
  // carries them. `what` names the field for error messages, e.g.
  // "spec.containers[0].resources.requests". Negative or malformed
  // quantities are refused.
  static absl::StatusOr<Resource> FromList(
      const std::vector<std::pair<std::string, std::string>>& list,
      absl::string_view what);

  int64_t Get(ResourceId id) const {
    return id < amounts_.size() ? amounts_[id] : 0;
  }
  void Set(ResourceId id, int64_t amount);
  // Back to zero of everything (in place: no copy of an empty Resource,
  // which GCC 12 takes for a read of uninitialized inline storage).
  void Clear() { amounts_.clear(); }

  Resource& operator+=(const Resource& other);
  Resource& operator-=(const Resource& other);
  friend Resource operator+(Resource a, const Resource& b) { return a += b; }
  friend Resource operator-(Resource a, const Resource& b) { return a -= b; }
  bool operator==(const Resource& other) const;
  bool operator!=(const Resource& other) const { return !(*this == other); }

  // Element-wise max, as a pod's request takes the larger of its containers'
  // sum and each init container.
  void MaxWith(const Resource& other);

  // Element-wise min.
  void MinWith(const Resource& other);
  // Every amount multiplied by `factor`, rounded down.
  Resource Scaled(double factor) const;
  // Every amount here is <= the same amount in `other` (zeros included).
  bool AllLessEqual(const Resource& other) const;
  // Every amount here is <= the same amount in `limit`, for the resources
  // `where` has a positive amount of (a queue checks only what a task
  // asks for).
  bool LessEqualWhere(const Resource& limit, const Resource& where) const;
  // (held + *this).LessEqualWhere(limit, *this) without building the sum:
  // whether this request, added to `held`, stays within `limit` in each
  // resource it asks for (a queue's check of a task, asked per pod).
  bool FitsBeside(const Resource& held, const Resource& limit) const;
  // The largest of amount/of.amount; a resource this has and `of` lacks
  // makes the share infinite. What DRF and queue shares use.
  double DominantShare(const Resource& of) const;

  // True when every amount requested here is available in `available`.
  // Amounts of zero are not checked, as kube-scheduler only checks what a
  // pod asks for.
  bool FitsIn(const Resource& available) const;

  // Calls fn(id) for each resource this request lacks in `available`.
  template <typename Fn>
  void ForEachShortage(const Resource& available, Fn fn) const {
    for (size_t id = 0; id < amounts_.size(); ++id) {
      if (amounts_[id] > 0 && amounts_[id] > available.Get(id)) {
        fn(static_cast<ResourceId>(id));
      }
    }
  }

  bool IsZero() const;
  // True when any amount is negative (a bookkeeping bug if it happens).
  bool AnyNegative() const;

  // Highest id with a slot, plus one; ids beyond are zero.
  size_t size() const { return amounts_.size(); }

  // "cpu: 500m, memory: 1Gi, nvidia.com/gpu: 1" with zeros left out.
  std::string ToString() const;

 private:
  // Eight inline slots hold cpu, memory, pods, ephemeral-storage and four
  // extended resources without touching the heap.
  absl::InlinedVector<int64_t, 8> amounts_;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_RESOURCE_H_
