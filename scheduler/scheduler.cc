#include "scheduler/scheduler.h"

#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "scheduler/cycle_metrics.h"

namespace shoal {

Scheduler::Scheduler(cache::Cache& cache, framework::Policy& policy,
                     cache::DecisionSink& decisions, cache::StatusSink& status,
                     SchedulerOptions options)
    : cache_(cache),
      policy_(policy),
      decisions_(decisions),
      status_(status),
      options_(std::move(options)) {}

std::shared_ptr<const AppliedCycle> Scheduler::RunOnce() {
  const absl::Time start = absl::Now();
  framework::CycleOutcome out =
      framework::RunCycle(cache_.Snapshot(), policy_, options_.cycle);
  auto applied = std::make_shared<AppliedCycle>();
  const api::ClusterInfo& cluster = out.cluster;
  if (cluster.network != said_network_) {
    said_network_ = cluster.network;
    if (said_network_ != nullptr) {
      for (const std::string& w : said_network_->warnings())
        LOG(WARNING) << "network topology: " << w;
    }
  }
  // Outcomes arrive on the sink's threads, each into its own slot.
  applied->binds.resize(out.binds.size());
  applied->evictions.resize(out.evictions.size());
  for (size_t i = 0; i < out.binds.size(); ++i) {
    const auto& pod = cluster.tasks[out.binds[i].task].pod;
    const std::string& node = cluster.nodes[out.binds[i].node].name();
    applied->binds[i] = {out.binds[i].task, pod->Key(), node,
                         std::move(out.binds[i].claims), absl::OkStatus()};
    applied->binds[i].reserve_only = out.binds[i].reserve_only;
    // Assumed before the request leaves: nothing may book these devices
    // (or this room) again.
    cache_.AssumeClaims(applied->binds[i].claims);
    if (out.binds[i].reserve_only) {
      decisions_.Reserve(pod, applied->binds[i].claims,
                         [this, &slot = applied->binds[i]](absl::Status s) {
                           if (s.ok()) return;
                           cache_.ForgetClaims(slot.claims);
                           slot.outcome = std::move(s);
                         });
      continue;
    }
    cache_.AssumeBound(pod->Key(), node);
    decisions_.Bind(
        pod, node, applied->binds[i].claims,
        [this, &slot = applied->binds[i], sent = absl::Now()](absl::Status s) {
          slot.took = absl::Now() - sent;
          if (s.ok()) return;
          // Pending again; the source says where it really is if
          // the bind took effect after all.
          cache_.ForgetAssumed(slot.pod);
          cache_.ForgetClaims(slot.claims);
          slot.outcome = std::move(s);
        });
  }
  for (size_t i = 0; i < out.evictions.size(); ++i) {
    const framework::EvictDecision& e = out.evictions[i];
    const auto& pod = cluster.tasks[e.task].pod;
    applied->evictions[i] = {e.task, pod->Key(), e.reason, e.preemptor,
                             absl::OkStatus()};
    if (e.moved_to != api::kNone)
      applied->evictions[i].moved_to = cluster.nodes[e.moved_to].name();
    decisions_.Evict(pod, e.reason, e.preemptor,
                     [&slot = applied->evictions[i]](absl::Status s) {
                       slot.outcome = std::move(s);
                     });
  }
  applied->deallocations.resize(out.deallocations.size());
  for (size_t i = 0; i < out.deallocations.size(); ++i) {
    const dra::Deallocation& d = out.deallocations[i];
    applied->deallocations[i] = {d.after.Key(), d.reason, absl::OkStatus()};
    LOG(INFO) << d.reason;
    decisions_.Deallocate(
        d.after, d.reason, d.pods,
        [this, &slot = applied->deallocations[i]](absl::Status s) {
          if (s.ok()) cache_.ForgetAssumedClaim(slot.claim);
          slot.outcome = std::move(s);
        });
  }
  // Even when asked to stop: a cycle's binds all finish (or fail) before
  // the loop moves on, so no gang is left half-sent.
  decisions_.Wait();
  // What the cycle decided holds for the next one whether or not its
  // status write has come back through the source yet.
  cache_.KeepDecisions(cluster);
  status_.Publish(cluster);
  applied->cluster = std::move(out.cluster);
  applied->took = absl::Now() - start;
  if (options_.log_cycles) Log(*applied);
  RecordCycleMetrics(*applied, cache_.AssumedCount(), absl::Now());
  if (options_.on_cycle) options_.on_cycle(*applied);
  absl::MutexLock lock(&mu_);
  last_ = applied;
  return applied;
}

void Scheduler::Log(const AppliedCycle& cycle) const {
  int failed_binds = 0, failed_evictions = 0;
  for (const auto& b : cycle.binds) {
    if (b.outcome.ok()) continue;
    ++failed_binds;
    LOG(WARNING) << "bind " << b.pod << " to " << b.node
                 << " failed: " << b.outcome.message()
                 << "; will retry in a later cycle";
  }
  for (const auto& e : cycle.evictions) {
    if (e.outcome.ok()) continue;
    ++failed_evictions;
    LOG(WARNING) << "evict " << e.pod << " (" << e.reason
                 << ") failed: " << e.outcome.message()
                 << (e.outcome.code() == absl::StatusCode::kResourceExhausted
                         ? "; that victim is unavailable this cycle"
                         : "");
  }
  int waiting_jobs = 0;
  for (const api::JobInfo& job : cycle.cluster.jobs) {
    const bool waiting =
        job.PendingCount() + job.Count(api::TaskStatus::kPipelined) > 0 &&
        job.ReadyCount() < job.min_member;
    if (waiting) ++waiting_jobs;
    if (job.PartlyBound() || (waiting && !job.message.empty())) {
      VLOG(3) << "job " << job.Key() << ": "
              << api::PodGroupPhaseName(job.phase) << ", "
              << job.ScheduledCount() << "/" << job.min_member << " scheduled"
              << (job.message.empty() ? "" : ": ") << job.message;
    } else {
      VLOG(3) << "job " << job.Key() << ": "
              << api::PodGroupPhaseName(job.phase) << ", "
              << job.ScheduledCount() << " scheduled";
    }
  }
  for (const auto& e : cycle.evictions) {
    if (e.reason == "gang-incomplete" && e.outcome.ok()) {
      LOG(WARNING) << "released " << e.pod
                   << ": its gang stayed below minMember for more than "
                   << options_.cycle.partial_gang_release_cycles << " cycles";
    }
  }
  // One line per cycle; an idle cycle (nothing sent, nothing waiting)
  // only at -v=1, so a quiet cluster keeps a quiet log.
  const bool idle =
      cycle.binds.empty() && cycle.evictions.empty() && waiting_jobs == 0;
  if (idle && !VLOG_IS_ON(1)) return;
  LOG(INFO) << "cycle: " << absl::FormatDuration(cycle.took) << ", "
            << cycle.binds.size() - failed_binds << " bound"
            << (failed_binds ? absl::StrCat(" (", failed_binds, " failed)")
                             : "")
            << ", " << cycle.evictions.size() - failed_evictions << " evicted"
            << (failed_evictions
                    ? absl::StrCat(" (", failed_evictions, " failed)")
                    : "")
            << ", " << waiting_jobs << " jobs waiting";
}

absl::Status Scheduler::Run(
    const std::atomic<bool>& stop,
    const std::function<absl::Status(absl::Time)>& may_schedule) {
  while (!stop.load()) {
    const absl::Time start = absl::Now();
    if (may_schedule) {
      if (absl::Status s = may_schedule(start); !s.ok()) return s;
    }
    RunOnce();
    absl::Duration left = options_.period - (absl::Now() - start);
    for (; left > absl::ZeroDuration() && !stop.load();
         left -= absl::Milliseconds(10)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return absl::OkStatus();
}

std::shared_ptr<const AppliedCycle> Scheduler::last_cycle() const {
  absl::MutexLock lock(&mu_);
  return last_;
}

}  // namespace shoal
