#include "tools/simulator/simulator.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "scheduler/cache/cache.h"
#include "scheduler/cache/sinks.h"
#include "scheduler/scheduler.h"
#include "tools/simulator/gpus.h"
#include "tools/simulator/job_run.h"
#include "tools/simulator/network.h"
#include "tools/simulator/pollux/job_model.h"
#include "tools/simulator/queue_standing.h"
#include "tools/simulator/report.h"

namespace shoal::sim {
namespace {

struct PodRecord {
  std::string workload;
  int job = -1;  // index into jobs_, or -1 for a service pod
  std::string task;
  bool running = false;
  int64_t created = 0;
  api::Resource request;
  std::string node;  // while running
};

SchedulerOptions SchedulerSettings(const Options& options) {
  SchedulerOptions settings;
  settings.cycle.partial_gang_release_cycles =
      options.partial_gang_release_cycles;
  settings.log_cycles = false;  // the simulator draws its own progress
  return settings;
}

class World : public cache::DecisionSink, public cache::StatusSink {
 public:
  World(const Scenario& sc, framework::Policy& policy, const Options& options)
      : sc_(sc),
        options_(options),
        cache_("shoal",
               [this] { return absl::FromUnixSeconds(kEpoch + now_); }),
        no_constraints_(std::make_shared<api::PlacementConstraints>()),
        network_(sc),
        gpus_(sc, !options.no_gpu_sharing),
        scheduler_(cache_, policy, *this, *this, SchedulerSettings(options)),
        queues_(sc.queues) {
    no_constraints_->ComputeFingerprint();
    for (const auto& pc : sc.priority_classes) {
      cache_.UpsertPriorityClass(pc);
      priority_[pc.name] = pc.value;
    }
    for (const auto& q : sc.queues) cache_.UpsertQueue(q);
    for (const auto& pool : sc.pools) {
      for (int i = 0; i < pool.count; ++i) {
        auto node = std::make_shared<api::NodeSpec>();
        node->name = NodeName(pool, i);
        auto labels = pool.labels.pairs();
        labels.emplace_back("kubernetes.io/hostname", node->name);
        node->labels = api::Labels(std::move(labels));
        node->taints = pool.taints;
        node->allocatable = pool.allocatable;
        total_ += pool.allocatable;
        cache_.UpsertNode(std::move(node));
      }
    }
    gpus_.Publish(cache_);
    for (auto& hypernode : network_.HyperNodes())
      cache_.UpsertHyperNode(std::move(hypernode));
    for (size_t id = 0; id < total_.size(); ++id) {
      if (id != api::kPods && total_.Get(id) > 0) {
        tracked_.push_back(static_cast<api::ResourceId>(id));
      }
    }
  }

  Result Run() {
    int64_t end = absl::ToInt64Seconds(sc_.duration);
    const int64_t step = absl::ToInt64Seconds(sc_.period);
    size_t total_jobs = 0;
    for (const auto& w : sc_.jobs) total_jobs += std::max(w.count, 0);
    for (now_ = 0; now_ < end; now_ += step) {
      ScaleServices();
      ArriveJobs();
      Schedule();
      if (options_.observe_claims) options_.observe_claims(gpus_.claims());
      Sample sample = Measure();
      Progress(step);
      for (int64_t k = 0; k < step && now_ + k < end; ++k) {
        sample.second = now_ + k;
        series_.push_back(sample);
      }
      if (sc_.stop_when_done && arrived_.size() == total_jobs) {
        size_t finished = 0;
        for (const auto& job : jobs_) finished += job.finished >= 0;
        if (options_.progress)
          options_.progress(static_cast<double>(finished) / total_jobs);
        if (finished == total_jobs) {
          end = std::min(end, now_ + step);
          break;
        }
        continue;
      }
      if (options_.progress)
        options_.progress(static_cast<double>(now_ + step) / end);
    }
    end_ = end;
    for (const auto& [key, rec] : pods_) {
      if (rec.job < 0 && !rec.running)
        max_service_wait_ = std::max(max_service_wait_, end - rec.created);
    }
    queues_.Finish(end);
    nlohmann::ordered_json summary = Summary();
    Result result{std::move(summary), std::move(series_),
                  JobOutcomes(jobs_, !network_.empty()), max_service_wait_};
    result.trace_jobs = TraceOutcomes(jobs_);
    result.gpu_slices = gpus_.slices();
    for (const auto& [key, claim] : gpus_.claims())
      result.gpu_claims.push_back(claim);
    return result;
  }

 private:
  static constexpr int64_t kEpoch = 1767225600;  // 2026-01-01, any fixed start

  std::shared_ptr<api::PodInfo> NewPod(const std::string& name,
                                       const api::Resource& request,
                                       const std::string& priority_class) {
    auto pod = std::make_shared<api::PodInfo>();
    pod->ns = "default";
    pod->name = name;
    pod->uid = name;
    pod->scheduler_name = "shoal";
    pod->request = request;
    pod->placement = no_constraints_;
    pod->priority_class = priority_class;
    auto it = priority_.find(priority_class);
    pod->priority = it == priority_.end() ? 0 : it->second;
    pod->created = absl::FromUnixSeconds(kEpoch + now_);
    return pod;
  }

  void AddPod(std::shared_ptr<api::PodInfo> pod, PodRecord record) {
    record.created = now_;
    record.request = pod->request;
    pods_[pod->Key()] = std::move(record);
    cache_.UpsertPod(std::move(pod), true);
  }

  void ScaleServices() {
    for (const auto& svc : sc_.services) {
      int desired = 0;
      for (const auto& [at, count] : svc.replicas) {
        if (absl::ToInt64Seconds(at) <= now_) desired = count;
      }
      std::vector<std::string> live;  // pending first, then newest first
      for (const auto& [key, rec] : pods_) {
        if (rec.workload == svc.name && rec.job < 0) live.push_back(key);
      }
      std::stable_sort(live.begin(), live.end(),
                       [this](const std::string& a, const std::string& b) {
                         const PodRecord& x = pods_[a];
                         const PodRecord& y = pods_[b];
                         if (x.running != y.running) return !x.running;
                         return x.created > y.created;
                       });
      for (int i = static_cast<int>(live.size()); i < desired; ++i) {
        AddPod(NewPod(absl::StrCat(svc.name, "-", next_serial_++), svc.requests,
                      svc.priority_class),
               PodRecord{svc.name, -1, "", false, 0, {}});
      }
      for (int i = 0; i < static_cast<int>(live.size()) - desired; ++i)
        DeletePod(live[i]);
    }
  }

  void ArriveJobs() {
    for (const auto& w : sc_.jobs) {
      for (int k = 0; k < w.count; ++k) {
        // A scenario built without ParseScenario may lack the arrivals.
        int64_t at = absl::ToInt64Seconds(
            k < static_cast<int>(w.arrivals.size()) ? w.arrivals[k]
                                                    : w.start + k * w.every);
        std::string name =
            w.job_name.empty() ? absl::StrCat(w.name, "-", k) : w.job_name;
        if (at > now_ || arrived_.count(name) != 0) continue;
        arrived_.insert(name);
        queues_.Arrived(w.queue);
        JobRun run;
        run.spec = &w;
        run.name = name;
        // A trace job's completion time counts from its trace's second.
        run.arrival = w.app != nullptr ? at : now_;
        if (w.app != nullptr)
          run.model.emplace(w.app, w.batch_size, static_cast<double>(now_));
        const absl::Duration cost =
            options_.resize_cost.value_or(w.resize_cost);
        run.resize_cost = absl::ToInt64Seconds(cost);
        int index = static_cast<int>(jobs_.size());
        jobs_.push_back(run);
        api::JobInfo group;
        group.ns = "default";
        group.name = name;
        group.uid = name;
        group.queue = w.queue;
        group.priority_class = w.priority_class;
        group.created = absl::FromUnixSeconds(kEpoch + now_);
        group.min_member = 0;
        for (const auto& t : w.tasks) {
          int min = options_.rigid ? t.replicas : t.min;
          group.min_member += min;
          group.min_task_member[t.name] = min;
        }
        group.min_member = std::max(group.min_member, 1);
        if (!options_.ignore_network_constraints) group.network = w.network;
        group.throughput = w.throughput;
        // The job says what a resize costs it, as its PodGroup's
        // annotation would.
        if (options_.resize_cost.has_value() || w.resize_cost_given)
          group.resize_cost_seconds = static_cast<int32_t>(run.resize_cost);
        cache_.UpsertPodGroup(group);
        jobs_[index].group = group;
        job_index_[group.Key()] = index;
        // What this job finds: the racks left whole by the jobs before it.
        if (!network_.empty())
          whole_at_arrival_.push_back(network_.WholeRacks(BusyNodes()));
        for (const auto& t : w.tasks) {
          for (int i = 0; i < t.replicas; ++i)
            AddJobPod(index, t, absl::StrCat(name, "-", t.name, "-", i));
        }
      }
    }
  }

  // `uid`: the pod's uid when it is not its name (a replacement that
  // keeps the name of the pod it replaces).
  void AddJobPod(int job, const TaskSpec& task, const std::string& name,
                 const std::string& uid = "") {
    auto pod = NewPod(name, task.requests, jobs_[job].spec->priority_class);
    if (!uid.empty()) pod->uid = uid;
    pod->group = jobs_[job].name;
    pod->role = task.name;
    gpus_.CreateClaim(*pod, task.gpu, cache_);
    AddPod(std::move(pod),
           PodRecord{jobs_[job].spec->name, job, task.name, false, 0, {}});
  }

  void DeletePod(const std::string& key) {
    pods_.erase(key);
    cache_.DeletePod(key);
    gpus_.DeleteClaim(key, cache_);  // the resourceclaim controller
  }

  void Schedule() { scheduler_.RunOnce(); }

  // The world's side of a bind: its claim writes first, then the pod
  // runs from this second on (the sample at now_ sees it running),
  // unless the options fail it.
  void Bind(std::shared_ptr<const api::PodInfo> bound, const std::string& node,
            const std::vector<api::ClaimWrite>& claims,
            cache::Done done) override {
    auto it = pods_.find(bound->Key());
    if (it == pods_.end()) return done(absl::NotFoundError("pod is gone"));
    if (options_.bind_fails && options_.bind_fails(bound->Key())) {
      return done(absl::UnavailableError("the simulation fails this bind"));
    }
    if (absl::Status s = gpus_.Write(claims, cache_); !s.ok())
      return done(std::move(s));
    auto pod = std::make_shared<api::PodInfo>(*bound);
    pod->node_name = node;
    pod->status = api::TaskStatus::kRunning;
    it->second.running = true;
    it->second.node = node;
    if (it->second.job < 0) {
      max_service_wait_ =
          std::max(max_service_wait_, now_ - it->second.created);
    }
    cache_.UpsertPod(std::move(pod), true);
    done(absl::OkStatus());
  }

  // An evicted pod is gone and its controller creates a replacement,
  // whatever the reason (preempt, reclaim, consolidate, ...): the job
  // model keeps a job's progress across its pods (work is the job's
  // pod-seconds, as from a checkpoint), so the replacement continues the
  // job's remaining run time rather than starting it over, and a job
  // whose minimum stopped running pays its resize cost when it runs
  // again. A job's replacement keeps the evicted pod's name (a Volcano
  // Job's controller keeps its pods' names, and consolidate remembers a
  // moved pod by name, so that it is not moved again within its window)
  // with a new uid, when the reason is "consolidate"; other evictions'
  // replacements get a new name, as they always did, so the results of
  // scenarios without consolidate stay what they were.
  void Evict(std::shared_ptr<const api::PodInfo> gone,
             const std::string& reason, const std::string&,
             cache::Done done) override {
    auto it = pods_.find(gone->Key());
    if (it == pods_.end()) return done(absl::OkStatus());
    PodRecord record = it->second;
    if (record.job >= 0 && record.running) jobs_[record.job].disturbed = true;
    DeletePod(gone->Key());
    ++evictions_;
    ++evictions_by_reason_[reason];
    const int64_t serial = next_serial_++;
    if (record.job >= 0) {
      const bool moved = reason == "consolidate";
      std::string name =
          moved ? gone->name : absl::StrCat(gone->name, "-r", serial);
      for (const auto& t : jobs_[record.job].spec->tasks) {
        if (t.name != record.task) continue;
        AddJobPod(record.job, t, name,
                  moved ? absl::StrCat(gone->name, "-r", serial) : name);
      }
    } else {
      std::string name = absl::StrCat(gone->name, "-r", serial);
      auto pod = NewPod(name, gone->request, gone->priority_class);
      AddPod(std::move(pod), PodRecord{record.workload, -1, "", false, 0, {}});
    }
    done(absl::OkStatus());
  }

  // The status write: PodGroups keep the phase the session gave them.
  void Publish(const api::ClusterInfo& cluster) override {
    for (const auto& job : cluster.jobs) {
      cache_.SetPodGroupPhase(job.Key(), job.phase);
      if (auto it = job_index_.find(job.Key()); it != job_index_.end())
        jobs_[it->second].group.phase = job.phase;
    }
  }

  // A job's dominant share of the cluster from its running pods.
  double JobShare(const JobRun& job) const {
    api::Resource held;
    for (const auto& t : job.spec->tasks) {
      auto it = job.running.find(t.name);
      if (it == job.running.end()) continue;
      for (int i = 0; i < it->second; ++i) held += t.requests;
    }
    return held.DominantShare(total_);
  }

  bool MinimumRuns(const JobRun& job) const {
    for (const auto& t : job.spec->tasks) {
      int min = options_.rigid ? t.replicas : t.min;
      auto it = job.running.find(t.name);
      if ((it == job.running.end() ? 0 : it->second) < std::max(min, 0))
        return false;
    }
    return true;
  }

  Sample Measure() {
    Sample s;
    api::Resource used;
    for (auto& job : jobs_) job.running.clear();
    for (const auto& [key, rec] : pods_) {
      if (!rec.running) {
        if (rec.job < 0)
          service_pending_seconds_ += absl::ToDoubleSeconds(sc_.period);
        continue;
      }
      ++s.running_pods[rec.workload];
      if (rec.job >= 0) ++jobs_[rec.job].running[rec.task];
    }
    for (const auto& [key, rec] : pods_) {
      if (rec.running) used += rec.request;
    }
    for (api::ResourceId id : tracked_) {
      double u = static_cast<double>(used.Get(id)) / total_.Get(id);
      s.utilization[std::string(api::ResourceName(id))] = u;
      util_samples_[std::string(api::ResourceName(id))].push_back(u);
    }
    std::vector<double> shares;
    for (auto& job : jobs_) {
      if (job.finished >= 0) continue;
      if (MinimumRuns(job)) {
        ++s.running_jobs;
        CountResize(job);
        bool elastic = false;
        for (const auto& t : job.spec->tasks) elastic |= t.replicas > t.min;
        if (elastic) shares.push_back(JobShare(job));
      } else {
        ++s.pending_jobs;
        if (job.started >= 0) job.interrupted = true;
      }
    }
    if (shares.size() >= 2) {
      double sum = 0, squares = 0;
      for (double x : shares) {
        sum += x;
        squares += x * x;
      }
      s.jain = squares > 0 ? sum * sum / (shares.size() * squares) : 1.0;
      jain_sum_ += s.jain;
      ++jain_samples_;
    }
    pending_sum_ += s.pending_jobs;
    ++samples_;
    pending_max_ = std::max(pending_max_, s.pending_jobs);
    s.evictions = evictions_;
    MeasureQueues(s);
    if (!network_.empty()) MeasureNetwork(s);
    const GpuUse gpu = gpus_.Measure();
    s.gpu_memory_allocated = gpu.memory_allocated;
    s.gpu_memory_asked = gpu.memory_asked;
    s.gpus_busy = gpu.busy;
    return s;
  }

  // The job's minimum runs this second: its first start, or a change of
  // its pod count since the last second it ran (a restart after falling
  // below its minimum counts too), which costs it its resize cost.
  void CountResize(JobRun& job) {
    int members = 0;
    for (const auto& [task, n] : job.running) members += n;
    if (job.started < 0) {
      Start(job);
    } else if (job.interrupted || members != job.members) {
      ++job.resizes;
      job.restart_until = now_ + job.resize_cost;
    }
    job.members = members;
    job.interrupted = false;
  }

  // The nodes a pod runs on.
  std::set<std::string> BusyNodes() const {
    std::set<std::string> busy;
    for (const auto& [key, rec] : pods_) {
      if (rec.running) busy.insert(rec.node);
    }
    return busy;
  }

  // The job's minimum runs for the first time: how far apart its pods are
  // sets its speed for the rest of its run (scenario.h, NetworkSpec).
  void Start(JobRun& job) {
    job.started = now_;
    const int index = static_cast<int>(&job - jobs_.data());
    std::vector<std::string> nodes;
    for (const auto& [key, rec] : pods_) {
      if (rec.job == index && rec.running) nodes.push_back(rec.node);
    }
    job.pods_at_start = static_cast<int>(nodes.size());
    if (network_.empty()) return;
    job.span = network_.SpanOf(nodes);
    job.factor = network_.Factor(job.span);
  }

  void MeasureNetwork(Sample& s) const {
    s.racks_whole = network_.WholeRacks(BusyNodes());
    std::vector<double> effective(tracked_.size(), 0);
    for (const auto& [key, rec] : pods_) {
      if (!rec.running) continue;
      double weight = 1;  // a service pod: no slowdown
      if (rec.job >= 0) {
        const JobRun& job = jobs_[rec.job];
        // Pods of a job whose minimum does not run make no progress.
        weight = job.started >= 0 && MinimumRuns(job) ? 1 / job.factor : 0;
      }
      for (size_t i = 0; i < tracked_.size(); ++i)
        effective[i] += weight * rec.request.Get(tracked_[i]);
    }
    for (size_t i = 0; i < tracked_.size(); ++i) {
      s.effective_utilization[std::string(api::ResourceName(tracked_[i]))] =
          effective[i] / total_.Get(tracked_[i]);
    }
  }

  // The largest fraction of the cluster `r` holds of any tracked resource.
  double Share(const api::Resource& r) const {
    double share = 0;
    for (api::ResourceId id : tracked_)
      share = std::max(share, static_cast<double>(r.Get(id)) / total_.Get(id));
    return share;
  }

  void MeasureQueues(Sample& s) {
    std::map<std::string, api::Resource> held, asked;
    for (const auto& [key, rec] : pods_) {
      if (rec.job < 0) continue;
      const std::string& q = jobs_[rec.job].spec->queue;
      asked[q] += rec.request;
      if (rec.running) held[q] += rec.request;
    }
    std::map<std::string, double> held_share, asked_share;
    for (const auto& [q, r] : held) held_share[q] = Share(r);
    for (const auto& [q, r] : asked) asked_share[q] = Share(r);
    s.queue_share = queues_.Sample(now_, held_share, asked_share);
  }

  // A trace job over the next `step` seconds, on the GPUs its running
  // pods hold (`nodes`: per node), which stay put until the next cycle.
  // Returns whether it is done.
  bool TraceProgress(JobRun& job, std::map<std::string, int> nodes,
                     int64_t step) {
    if (!MinimumRuns(job)) nodes.clear();  // a gang cut below its minimum
    std::vector<std::pair<std::string, int>> placed(nodes.begin(), nodes.end());
    if (placed != job.placed || (job.disturbed && !placed.empty())) {
      std::vector<int> placement;
      for (const auto& [node, n] : placed) placement.push_back(n);
      std::sort(placement.rbegin(), placement.rend());
      job.model->Reallocate(placement);
      if (job.nodes_at_start == 0) job.nodes_at_start = placed.size();
      job.placed = std::move(placed);
    }
    job.disturbed = false;
    job.model->Step(static_cast<double>(step));
    if (!job.model->done()) return false;
    job.finished = std::llround(*job.model->completion_time());
    return true;
  }

  void Progress(int64_t step) {
    // The GPUs (pods) each trace job's running pods hold, per node.
    std::map<int, std::map<std::string, int>> trace_nodes;
    for (const auto& [key, rec] : pods_) {
      if (rec.job >= 0 && rec.running && jobs_[rec.job].model.has_value())
        ++trace_nodes[rec.job][rec.node];
    }
    for (size_t j = 0; j < jobs_.size(); ++j) {
      JobRun& job = jobs_[j];
      if (job.finished >= 0) continue;
      if (job.model.has_value()) {
        if (TraceProgress(job, trace_nodes[static_cast<int>(j)], step)) {
          Finish(j);
        } else if (job.spec->reports_progress) {
          // Its trainer writes how far it got (shoal.dev/progress).
          job.group.progress = job.model->iterations();
          cache_.UpsertPodGroup(job.group);
        }
        continue;
      }
      if (job.spec->work_task.empty() || !MinimumRuns(job)) continue;
      double productive = static_cast<double>(step);
      if (job.restart_until > now_) {  // restarting: no progress yet
        const double lost =
            std::min<double>(productive, job.restart_until - now_);
        job.restart_seconds += lost;
        productive -= lost;
      }
      job.work += static_cast<double>(job.running[job.spec->work_task]) *
                  productive / job.factor;
      if (job.work < job.spec->pod_seconds) continue;
      job.finished = now_ + step;
      Finish(j);
    }
  }

  // A finished job's pods and PodGroup go away.
  void Finish(size_t j) {
    std::vector<std::string> gone;
    for (const auto& [key, rec] : pods_) {
      if (rec.job == static_cast<int>(j)) gone.push_back(key);
    }
    for (const auto& key : gone) DeletePod(key);
    cache_.DeletePodGroup("default/" + jobs_[j].name);
  }

  nlohmann::ordered_json Summary() const {
    nlohmann::ordered_json out;
    out["utilization"] = UtilizationSummary(util_samples_);
    out["pendingJobs"] = {
        {"max", pending_max_},
        {"mean", Round(samples_ ? pending_sum_ / samples_ : 0)}};
    const int64_t end = end_;
    const std::vector<JobOutcome> outcomes =
        JobOutcomes(jobs_, !network_.empty());
    out["jobs"] = JobsSummary(outcomes, end);
    out["workloads"] = WorkloadsSummary(outcomes, end);
    out["fairness"] = {
        {"jain", Round(jain_samples_ ? jain_sum_ / jain_samples_ : 0)}};
    out["services"] = {{"pendingPodSeconds", Round(service_pending_seconds_)}};
    out["evictions"] = evictions_;
    nlohmann::ordered_json by_reason = nlohmann::ordered_json::object();
    for (const auto& [reason, n] : evictions_by_reason_) by_reason[reason] = n;
    out["evictionsByReason"] = by_reason;
    out["resizes"] = ResizesSummary(outcomes);
    out["queues"] = queues_.Summary(sc_.queues, QueueJobs(jobs_), end);
    if (!network_.empty()) {
      out["network"] = NetworkSummary(
          network_, !options_.ignore_network_constraints, outcomes, series_,
          whole_at_arrival_, Makespan(outcomes, end));
    }
    if (!gpus_.empty()) out["gpus"] = gpus_.Summary();
    const std::vector<TraceOutcome> trace = TraceOutcomes(jobs_);
    if (!trace.empty()) out["trace"] = TraceSummary(trace);
    return out;
  }

  const Scenario& sc_;
  const Options& options_;
  int64_t now_ = 0;
  int64_t end_ = 0;  // the run's last second + 1
  cache::Cache cache_;
  std::shared_ptr<api::PlacementConstraints> no_constraints_;
  Network network_;
  Gpus gpus_;
  Scheduler scheduler_;
  std::map<std::string, int32_t> priority_;
  api::Resource total_;
  std::vector<api::ResourceId> tracked_;
  std::map<std::string, PodRecord> pods_;
  std::vector<JobRun> jobs_;
  std::map<std::string, int> job_index_;  // by PodGroup key
  std::set<std::string> arrived_;
  QueueStanding queues_;
  int64_t next_serial_ = 0;
  int64_t evictions_ = 0;
  std::map<std::string, int64_t> evictions_by_reason_;  // by Evict's reason
  int64_t max_service_wait_ = 0;
  double service_pending_seconds_ = 0;
  std::map<std::string, std::vector<double>> util_samples_;
  double pending_sum_ = 0;
  int pending_max_ = 0;
  int64_t samples_ = 0;
  double jain_sum_ = 0;
  int64_t jain_samples_ = 0;
  std::vector<Sample> series_;
  std::vector<int> whole_at_arrival_;  // racks whole, at each job's arrival
};

}  // namespace

Result Simulate(const Scenario& scenario, framework::Policy& policy,
                const Options& options) {
  World world(scenario, policy, options);
  return world.Run();
}

}  // namespace shoal::sim
