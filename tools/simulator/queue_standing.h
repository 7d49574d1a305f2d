// Each scenario queue's standing over a simulated run (README "Simulator":
// summary.json's "queues"): the dominant share of the cluster its running
// pods hold, and its regain waits. A wait opens in a second its jobs
// arrive and closes in the first second its running pods hold
// min(weighted share, what its jobs ask for); the weighted share is its
// weight over the scenario's queues' total.
#ifndef SHOAL_TOOLS_SIMULATOR_QUEUE_STANDING_H_
#define SHOAL_TOOLS_SIMULATOR_QUEUE_STANDING_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "scheduler/api/queue_info.h"

namespace shoal::sim {

// One Job workload's PodGroup, as the queues' summary counts it (-1:
// never).
struct QueueJob {
  std::string queue;
  int64_t arrival = 0;
  int64_t started = -1;
  int64_t finished = -1;
};

class QueueStanding {
 public:
  explicit QueueStanding(const std::vector<api::QueueInfo>& queues);

  // A job of `queue` arrived this second.
  void Arrived(const std::string& queue) { arrived_.insert(queue); }
  // Second `now`: by queue, the dominant share its running pods hold and
  // the one its jobs' pods ask for (missing: 0). Returns the held shares
  // of every queue, for the time series.
  std::map<std::string, double> Sample(
      int64_t now, const std::map<std::string, double>& held,
      const std::map<std::string, double>& asked);
  // The run ended at `end`: waits still open count until then, as unmet.
  void Finish(int64_t end);
  // summary.json's "queues", in the scenario's order of queues.
  nlohmann::ordered_json Summary(const std::vector<api::QueueInfo>& queues,
                                 const std::vector<QueueJob>& jobs,
                                 int64_t end) const;

 private:
  struct Stats {
    double weighted_share = 0;
    double held_sum = 0;         // dominant share held, summed over samples
    int64_t waiting_since = -1;  // the open wait's first second, or -1
    std::vector<double> waits;   // seconds, closed waits and any left open
    int unmet = 0;               // waits still open at the end
  };
  std::map<std::string, Stats> stats_;
  std::set<std::string> arrived_;  // queues whose jobs arrived this second
  int64_t samples_ = 0;
};

}  // namespace shoal::sim

#endif  // SHOAL_TOOLS_SIMULATOR_QUEUE_STANDING_H_
