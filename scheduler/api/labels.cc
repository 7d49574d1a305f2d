#include "scheduler/api/labels.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/synchronization/mutex.h"

namespace shoal::api {
namespace {

// Every distinct label set alive, found by the hash of its content. The
// table holds weak references, so a set lives exactly as long as some
// Labels names it; the entries of sets that died are swept whenever the
// table has doubled since the last sweep, which keeps it within twice the
// live sets at a constant cost per insertion.
class LabelSetTable {
 public:
  std::shared_ptr<const Labels::Pairs> Intern(Labels::Pairs pairs) {
    const size_t hash = absl::HashOf(pairs);
    absl::MutexLock lock(&mu_);
    std::vector<std::weak_ptr<const Labels::Pairs>>& bucket = sets_[hash];
    for (const auto& weak : bucket) {
      if (auto set = weak.lock(); set != nullptr && *set == pairs) return set;
    }
    // Not make_shared: a dead set's vector is freed when its last Labels
    // goes, not when its table entry is swept.
    std::shared_ptr<const Labels::Pairs> set(
        new Labels::Pairs(std::move(pairs)));
    bucket.push_back(set);
    if (++entries_ >= 2 * entries_after_sweep_) Sweep();
    return set;
  }

  Labels::TableStats Stats() {
    absl::MutexLock lock(&mu_);
    Labels::TableStats stats;
    for (const auto& [hash, bucket] : sets_) {
      stats.entries += bucket.size();
      for (const auto& weak : bucket) stats.alive += weak.expired() ? 0 : 1;
    }
    return stats;
  }

 private:
  void Sweep() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    entries_ = 0;
    for (auto it = sets_.begin(); it != sets_.end();) {
      auto& bucket = it->second;
      bucket.erase(std::remove_if(bucket.begin(), bucket.end(),
                                  [](const auto& w) { return w.expired(); }),
                   bucket.end());
      entries_ += bucket.size();
      if (bucket.empty()) {
        sets_.erase(it++);
      } else {
        ++it;
      }
    }
    entries_after_sweep_ = std::max<size_t>(entries_, 1024);
  }

  absl::Mutex mu_;
  absl::flat_hash_map<size_t, std::vector<std::weak_ptr<const Labels::Pairs>>>
      sets_ ABSL_GUARDED_BY(mu_);
  size_t entries_ ABSL_GUARDED_BY(mu_) = 0;
  size_t entries_after_sweep_ ABSL_GUARDED_BY(mu_) = 1024;
};

// Never destroyed: Labels in other statics may outlive any destruction
// order.
LabelSetTable& Table() {
  static LabelSetTable* table = new LabelSetTable;
  return *table;
}

}  // namespace

Labels::Labels(Pairs pairs) {
  if (pairs.empty()) return;
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end(),
                          [](const auto& a, const auto& b) {
                            return a.first == b.first;
                          }),
              pairs.end());
  set_ = Table().Intern(std::move(pairs));
}

const Labels::Pairs& Labels::pairs() const {
  static const Pairs* kNone = new Pairs;
  return set_ == nullptr ? *kNone : *set_;
}

const std::string* Labels::Find(absl::string_view key) const {
  const Pairs& p = pairs();
  auto it = std::lower_bound(
      p.begin(), p.end(), key,
      [](const auto& pair, absl::string_view k) { return pair.first < k; });
  if (it == p.end() || it->first != key) return nullptr;
  return &it->second;
}

Labels::TableStats Labels::Stats() { return Table().Stats(); }

}  // namespace shoal::api
