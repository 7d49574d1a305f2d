// The one generic walk over the tiers: a table of registered callbacks per
// kind, and how its answers combine (see Combine in callbacks.h).
#ifndef SHOAL_SCHEDULER_FRAMEWORK_TIER_WALK_H_
#define SHOAL_SCHEDULER_FRAMEWORK_TIER_WALK_H_

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/framework/callbacks.h"

namespace shoal::framework {

template <typename Kind>
class CallbackTable {
 public:
  void Add(int tier, std::string plugin, typename Kind::Fn fn) {
    if (tiers_.size() <= static_cast<size_t>(tier)) tiers_.resize(tier + 1);
    tiers_[tier].push_back({std::move(plugin), std::move(fn)});
  }

  bool empty() const {
    return std::all_of(tiers_.begin(), tiers_.end(),
                       [](const auto& t) { return t.empty(); });
  }

  // Plugin names in tier order, for `explain`-style output and tests.
  std::vector<std::string> Plugins() const {
    std::vector<std::string> names;
    for (const auto& tier : tiers_) {
      for (const auto& e : tier) names.push_back(e.plugin);
    }
    return names;
  }

  // A vote (kVote kinds) as the tiers would decide it without the named
  // plugins' answers: what the other rules say of a job.
  template <typename... Args>
  bool VoteWithout(const std::vector<std::string>& skip, Args&&... args) const {
    static_assert(Kind::kCombine == Combine::kVote);
    for (const auto& tier : tiers_) {
      bool permitted = false;
      for (const auto& e : tier) {
        if (std::find(skip.begin(), skip.end(), e.plugin) != skip.end())
          continue;
        int vote = e.fn(args...);
        if (vote < 0) return false;
        if (vote > 0) permitted = true;
      }
      if (permitted) return true;
    }
    return true;
  }

  template <typename... Args>
  auto Run(Args&&... args) const {
    if constexpr (Kind::kCombine == Combine::kFirstPreference) {
      for (const auto& tier : tiers_) {
        for (const auto& e : tier) {
          if (int r = e.fn(args...); r != 0) return r;
        }
      }
      return 0;
    } else if constexpr (Kind::kCombine == Combine::kAllPass) {
      for (const auto& tier : tiers_) {
        for (const auto& e : tier) {
          if (!e.fn(args...)) return false;
        }
      }
      return true;
    } else if constexpr (Kind::kCombine == Combine::kSum) {
      double total = 0;
      for (const auto& tier : tiers_) {
        for (const auto& e : tier) total += e.fn(args...);
      }
      return total;
    } else if constexpr (Kind::kCombine == Combine::kAnyTrue) {
      for (const auto& tier : tiers_) {
        for (const auto& e : tier) {
          if (e.fn(args...)) return true;
        }
      }
      return false;
    } else if constexpr (Kind::kCombine == Combine::kVote) {
      for (const auto& tier : tiers_) {
        bool permitted = false;
        for (const auto& e : tier) {
          int vote = e.fn(args...);
          if (vote < 0) return false;
          if (vote > 0) permitted = true;
        }
        if (permitted) return true;
      }
      return true;
    } else {
      static_assert(Kind::kCombine == Combine::kIntersectVictims);
      for (const auto& tier : tiers_) {
        std::optional<std::vector<api::TaskIndex>> kept;
        for (const auto& e : tier) {
          Victims answer = e.fn(args...);
          if (!answer.has_value()) continue;  // abstains
          std::vector<api::TaskIndex> sorted = std::move(*answer);
          std::sort(sorted.begin(), sorted.end());
          if (!kept.has_value()) {
            kept = std::move(sorted);
          } else {
            std::vector<api::TaskIndex> both;
            std::set_intersection(kept->begin(), kept->end(), sorted.begin(),
                                  sorted.end(), std::back_inserter(both));
            kept = std::move(both);
          }
        }
        if (kept.has_value() && !kept->empty()) return *kept;
      }
      return std::vector<api::TaskIndex>{};
    }
  }

 private:
  struct Entry {
    std::string plugin;
    typename Kind::Fn fn;
  };
  std::vector<std::vector<Entry>> tiers_;
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_TIER_WALK_H_
