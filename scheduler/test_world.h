// For tests that run the real loop (Scheduler) over several cycles: a
// world whose kubelets start a bound pod at once and whose controllers
// may recreate an evicted one, with PodGroup status writes shown at once.
#ifndef SHOAL_SCHEDULER_TEST_WORLD_H_
#define SHOAL_SCHEDULER_TEST_WORLD_H_

#include <functional>
#include <memory>
#include <string>

#include "scheduler/cache/cache.h"
#include "scheduler/cache/sinks.h"

namespace shoal::testing {

class TestWorld : public cache::DecisionSink, public cache::StatusSink {
 public:
  // `recreate`: given an evicted pod, its replacement (or null for none).
  explicit TestWorld(
      cache::Cache& cache,
      std::function<std::shared_ptr<api::PodInfo>(const api::PodInfo&)>
          recreate = nullptr)
      : cache_(cache), recreate_(std::move(recreate)) {}

  void Bind(std::shared_ptr<const api::PodInfo> pod, const std::string& node,
            const std::vector<api::ClaimWrite>&, cache::Done done) override {
    auto running = std::make_shared<api::PodInfo>(*pod);
    running->node_name = node;
    running->status = api::TaskStatus::kRunning;
    cache_.UpsertPod(std::move(running), true);
    done(absl::OkStatus());
  }
  void Evict(std::shared_ptr<const api::PodInfo> pod, const std::string&,
             const std::string&, cache::Done done) override {
    cache_.DeletePod(pod->Key());
    if (recreate_) {
      if (auto again = recreate_(*pod))
        cache_.UpsertPod(std::move(again), true);
    }
    done(absl::OkStatus());
  }
  void Publish(const api::ClusterInfo& cluster) override {
    for (const auto& job : cluster.jobs)
      cache_.SetPodGroupPhase(job.Key(), job.phase);
  }

 private:
  cache::Cache& cache_;
  std::function<std::shared_ptr<api::PodInfo>(const api::PodInfo&)> recreate_;
};

}  // namespace shoal::testing

#endif  // SHOAL_SCHEDULER_TEST_WORLD_H_
