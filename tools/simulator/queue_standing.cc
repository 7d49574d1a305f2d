#include "tools/simulator/queue_standing.h"

#include <algorithm>

#include "tools/simulator/report.h"

namespace shoal::sim {

QueueStanding::QueueStanding(const std::vector<api::QueueInfo>& queues) {
  int64_t weights = 0;
  for (const auto& q : queues) weights += q.weight;
  for (const auto& q : queues)
    stats_[q.name].weighted_share = static_cast<double>(q.weight) / weights;
}

std::map<std::string, double> QueueStanding::Sample(
    int64_t now, const std::map<std::string, double>& held,
    const std::map<std::string, double>& asked) {
  auto of = [](const std::map<std::string, double>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0.0 : it->second;
  };
  std::map<std::string, double> shares;
  for (auto& [name, q] : stats_) {
    const double share = of(held, name);
    shares[name] = share;
    q.held_sum += share;
    if (arrived_.count(name) != 0 && q.waiting_since < 0) q.waiting_since = now;
    const double target = std::min(q.weighted_share, of(asked, name));
    if (q.waiting_since >= 0 && share + 1e-9 >= target) {
      q.waits.push_back(static_cast<double>(now - q.waiting_since));
      q.waiting_since = -1;
    }
  }
  arrived_.clear();
  ++samples_;
  return shares;
}

void QueueStanding::Finish(int64_t end) {
  for (auto& [name, q] : stats_) {
    if (q.waiting_since < 0) continue;
    q.waits.push_back(static_cast<double>(end - q.waiting_since));
    ++q.unmet;
  }
}

nlohmann::ordered_json QueueStanding::Summary(
    const std::vector<api::QueueInfo>& queues,
    const std::vector<QueueJob>& jobs, int64_t end) const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& queue : queues) {
    const Stats& q = stats_.at(queue.name);
    std::vector<double> jct;
    int submitted = 0;
    double wait = 0;
    for (const auto& job : jobs) {
      if (job.queue != queue.name) continue;
      ++submitted;
      if (job.finished >= 0) jct.push_back(job.finished - job.arrival);
      wait += (job.started >= 0 ? job.started : end) - job.arrival;
    }
    std::sort(jct.begin(), jct.end());
    double jct_sum = 0;
    for (double x : jct) jct_sum += x;
    double regain_sum = 0, regain_max = 0;
    for (double x : q.waits) {
      regain_sum += x;
      regain_max = std::max(regain_max, x);
    }
    out[queue.name] = {
        {"weightedShare", Round(q.weighted_share)},
        {"heldMean", Round(samples_ ? q.held_sum / samples_ : 0)},
        {"jobs",
         {{"submitted", submitted},
          {"completed", static_cast<int>(jct.size())},
          {"jctMeanSeconds", Round(jct.empty() ? 0 : jct_sum / jct.size())},
          {"jctP95Seconds", Round(NearestRank(jct, 0.95))},
          {"waitMeanSeconds", Round(submitted ? wait / submitted : 0)}}},
        {"regain",
         {{"count", static_cast<int>(q.waits.size())},
          {"meanSeconds",
           Round(q.waits.empty() ? 0 : regain_sum / q.waits.size())},
          {"maxSeconds", Round(regain_max)},
          {"unmet", q.unmet}}}};
  }
  return out;
}

}  // namespace shoal::sim
