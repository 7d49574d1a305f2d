// One scheduling cycle's view of the cluster. Plugins register callbacks
// on it when it opens; actions read it, change it only through Statements,
// and ask it for orderings, filters and scores; what was committed is
// handed back to the caller as bind and evict decisions.
//
// The session owns everything that lasts one cycle: its copy of the
// snapshot, the callbacks, and each plugin's PluginSession (the state
// those callbacks share). All of it is destroyed with the session, so
// nothing computed in one cycle leaks into the next, and two sessions on
// one Policy share nothing but the plugins' configuration.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_SESSION_H_
#define SHOAL_SCHEDULER_FRAMEWORK_SESSION_H_

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "scheduler/api/cluster_info.h"
#include "scheduler/dra/ledger.h"
#include "scheduler/framework/callbacks.h"
#include "scheduler/framework/node_sampling.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/pod_topology.h"
#include "scheduler/framework/policy.h"
#include "scheduler/framework/tier_walk.h"

namespace shoal::framework {

struct BindDecision {
  api::TaskIndex task;
  api::NodeIndex node;
  // Written to the pod's resource claims before the bind (DRA).
  std::vector<api::ClaimWrite> claims;
  // Only the claims are written: a device of the gang must first report
  // its binding conditions; the pods bind in a later cycle, together.
  bool reserve_only = false;
};

struct EvictDecision {
  api::TaskIndex task;
  std::string reason;     // "preempt", "reclaim", "elastic", "consolidate"
  std::string preemptor;  // ns/name of the pod the room is for
  // A moved pod (consolidate): the node where room is held for the pod
  // its controller makes in its place; kNone for an eviction.
  api::NodeIndex moved_to = api::kNone;
};

// What a session decided, handed to the caller once it is over.
struct Decisions {
  std::vector<BindDecision> binds;
  std::vector<EvictDecision> evictions;
};

// Nodes that pass every predicate for one set of placement constraints,
// and why the others did not.
struct FeasibleNodes {
  std::vector<api::NodeIndex> nodes;
  absl::flat_hash_map<std::string, int> rejected;  // reason -> node count
};

class Session {
 public:
  // Opens the session: every plugin of `policy` registers its callbacks
  // and hands over the state they share (Plugin::OnSessionOpen).
  Session(api::ClusterInfo cluster, Policy& policy);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Lets plugins write their status (PluginSession::OnSessionClose, last
  // opened first, so the first tier's word stands), then settles each
  // job's phase.
  void Close();

  api::ClusterInfo& cluster() { return cluster_; }
  const api::ClusterInfo& cluster() const { return cluster_; }
  api::TaskInfo& task(api::TaskIndex i) { return cluster_.tasks[i]; }
  api::JobInfo& job(api::JobIndex i) { return cluster_.jobs[i]; }
  api::NodeInfo& node(api::NodeIndex i) { return cluster_.nodes[i]; }
  const Policy& policy() const { return policy_; }
  // The network's domains (api/network_topology.h): the HyperNodes', or,
  // without any, the label tiers the policy names
  // (network-topology-aware's tierLabels); null when neither exists.
  const api::NetworkTopology* network() const { return cluster_.network.get(); }

  // --- Registration (from a plugin's OnSessionOpen). A callback whose
  // switch the config turned off is dropped here.
  template <typename Kind>
  void Register(typename Kind::Fn fn) {
    if (!current_->config.Enabled(Kind::kSwitch)) return;
    std::get<CallbackTable<Kind>>(tables_).Add(
        current_->tier, current_->config.name, std::move(fn));
  }
  void AddEventHandler(EventHandler handler) {
    handlers_.push_back(std::move(handler));
  }
  // Told of each job the enqueue action admits, once every plugin has
  // voted (Volcano's JobEnqueued): what a JobEnqueueable vote counts
  // against (room promised, a queue's share) is charged here, never in
  // the vote, so that a job a later plugin vetoes charges nothing. Off
  // with the plugin's enableJobEnqueued switch, as its vote is.
  void AddAdmissionHandler(std::function<void(const api::JobInfo&)> handler) {
    if (!current_->config.Enabled(JobEnqueueable::kSwitch)) return;
    admission_handlers_.push_back(std::move(handler));
  }
  void Admitted(const api::JobInfo& job) const {
    for (const auto& h : admission_handlers_) h(job);
  }

  // Borrowing: enqueue and allocate make a second pass over what their
  // first left waiting, in which a queue may go past its deserved share
  // into room the first pass left idle, up to its capability. A plugin
  // that fences queues at their deserved share (proportion) lets them
  // through while it is set; deserved still orders the queues and decides
  // what reclaim takes back.
  bool borrowing() const { return borrowing_; }
  void set_borrowing(bool borrowing) { borrowing_ = borrowing; }

  // --- Dispatch through the tiers.
  template <typename Kind, typename... Args>
  auto Call(Args&&... args) const {
    return std::get<CallbackTable<Kind>>(tables_).Run(
        std::forward<Args>(args)...);
  }
  template <typename Kind>
  const CallbackTable<Kind>& Table() const {
    return std::get<CallbackTable<Kind>>(tables_);
  }

  // Orderings: plugins first, then a stable fallback (creation time, then
  // name) so that every run of the same input decides the same.
  bool QueueBefore(const api::QueueInfo& a, const api::QueueInfo& b) const;
  bool JobBefore(const api::JobInfo& a, const api::JobInfo& b) const;
  bool TaskBefore(const api::TaskInfo& a, const api::TaskInfo& b) const;

  // JobStarving through the tiers, or, when no plugin answers, whether the
  // gang minimum is still unmet (counting pipelined tasks).
  bool Starving(const api::JobInfo& job) const;

  // Whether the job's PodGroup may be admitted: it exists and its queue
  // exists and is open. Its pods need not exist yet: a job controller
  // (Volcano's, for one) creates them only once the group is admitted, so
  // admission goes by minResources (or the pods there are).
  bool JobAdmissible(const api::JobInfo& job, std::string* why) const;
  // Whether the job may be scheduled at all this cycle: admissible, and
  // every JobValid callback (the gang: enough pods) agrees. Otherwise
  // writes why.
  bool JobSchedulable(const api::JobInfo& job, std::string* why) const;
  // Whether every pending pod of the job may be placed at all: none has
  // scheduling gates left, a field Shoal does not implement, or a claim
  // that is missing or not bound (PodInfo::volume_refusal). The job
  // waits whole, so no gang is placed in part.
  bool PodsPlaceable(const api::JobInfo& job, std::string* why) const;
  // True when the job's PodGroup has been admitted (or needs no admission
  // because the policy has no enqueue action).
  bool JobAdmitted(const api::JobInfo& job) const;

  // Predicate results for these constraints, computed once per session.
  const FeasibleNodes& Feasible(const api::PlacementConstraints& c);
  // Mechanism first, whatever plugins the policy lists: the task's request
  // must fit `available` and its host ports be free on the node (a pod
  // binding a taken port fails at the kubelet; pods placed earlier in the
  // cycle, a gang's own members, count), and its CSI volumes stay within
  // the node's attach limits (NodeVolumeLimits, counted the same way).
  // Then every Fit callback
  // (reservations...).
  // Inter-pod affinity, anti-affinity and spread (PodTopology) too: a
  // pod's required rules hold under every policy. `scope` narrows those
  // rules to single-node or domain ones for callers that cache per node.
  bool Fits(const api::TaskInfo& t, const api::NodeInfo& n,
            const api::Resource& available,
            TopologyScope scope = TopologyScope::kAll) const {
    return FitsIn(t, n, available, scope, /*once_released=*/false);
  }
  // Fits in two halves, for a search shared by the jobs of one shape
  // (actions/node_picker.h): what holds whichever job the task belongs
  // to (the mechanism: room, ports, volumes, devices, pod topology), and
  // what depends on its job (room promised to other jobs, and the Fit
  // callbacks: a reservation). Fits is both.
  bool FitsAnyJob(const api::TaskInfo& t, const api::NodeInfo& n,
                  const api::Resource& available, TopologyScope scope) const {
    return FitsAnyJobIn(t, n, available, scope, /*once_released=*/false);
  }
  bool FitsItsJob(const api::TaskInfo& t, const api::NodeInfo& n,
                  const api::Resource& available) const {
    if (const api::Resource* promised = PromisedToOthers(t, n)) {
      const api::Resource left = available - *promised;
      return t.request().FitsIn(left) && Call<Fit>(t, n, left, nullptr);
    }
    return Call<Fit>(t, n, available, nullptr);
  }
  // Like Fits, for room once the pods leaving now are gone (`available`:
  // the node's FutureIdle, or that and what victims would free): the
  // devices their claims give back count as free (dra::Ledger::Release).
  // What pipelines a task asks this; what places it to bind now, Fits.
  bool FitsOnceReleased(const api::TaskInfo& t, const api::NodeInfo& n,
                        const api::Resource& available) const {
    return FitsIn(t, n, available, TopologyScope::kAll,
                  /*once_released=*/true);
  }
  // The victim search's what-if (actions/victims.cc): until undone, the
  // task counts as evicted for FitsOnceReleased, so that the devices its
  // claims would give back are free there. Moves and decides nothing;
  // undone in reverse order.
  void SupposeGone(api::TaskIndex t) { devices_->Release(*task(t).pod); }
  void UnsupposeGone(api::TaskIndex t) { devices_->Unrelease(*task(t).pod); }
  // Whether the task's claims can have their devices on the node now
  // (DRA); true for a task without claims.
  bool DevicesFit(const api::TaskInfo& t, const api::NodeInfo& n) const {
    return t.pod->resource_claims.empty() || devices_->Fits(*t.pod, n);
  }
  // Like Fits, naming every reason it fails in kube-scheduler's words
  // ("Insufficient cpu", "Too many pods", "node(s) didn't have free ports
  // for the requested pod ports", "node(s) exceed max volume count",
  // "node(s) didn't match pod anti-affinity rules").
  bool FitsExplained(const api::TaskInfo& t, const api::NodeInfo& n,
                     const api::Resource& available, Reasons* why) const;
  // Room on `n` promised in an earlier cycle to jobs other than `t`'s
  // (room_promises.h), which every fit check takes off what is
  // available; null when there is none.
  const api::Resource* PromisedToOthers(const api::TaskInfo& t,
                                        const api::NodeInfo& n) const {
    if (held_.empty() || held_[n.index()].empty()) return nullptr;
    return PromisedToOthersSlow(t, n);
  }
  // Holds room on `node` for `job` in the cycles after this one, until
  // `until` or until the job has nothing pending.
  void PromiseRoom(const api::JobInfo& job, const api::NodeInfo& node,
                   const api::Resource& room, absl::Time until) {
    policy_.promises.Add({job.Key(), node.name(), room, until});
  }
  // Node-local scores (NodeOrder): cacheable per node generation.
  double Score(const api::TaskInfo& t, const api::NodeInfo& n) const {
    return Call<NodeOrder>(t, n);
  }
  // Scores of domain rules (DomainOrder): the same for every node of the
  // task's domains. A node's whole score is Score + DomainScore.
  double DomainScore(const api::TaskInfo& t, const api::NodeInfo& n) const {
    return Call<DomainOrder>(t, n);
  }
  // kube-scheduler's sentence for a task no node takes right now:
  // "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had ...".
  // What the nodes say is remembered for the state() it was said of, for
  // tasks placed alike: a full cluster turns away thousands of gangs of one
  // shape a cycle, and each sentence costs a pass over the nodes.
  std::string ExplainUnplaced(const api::TaskInfo& t);

  // What the tasks of each queue's subtree hold now (HoldsShare), kept
  // current by MoveTask: the victim search keeps queues at their
  // guarantee with it, whatever plugins the policy lists.
  const api::Resource& QueueHeld(int32_t q) const { return queue_held_[q]; }

  // Devices taken by claims, kept current by MoveTask (DRA).
  const dra::Ledger& devices() const { return *devices_; }

  // Pods counted per topology domain, kept current by MoveTask.
  const PodTopology& topology() const { return *topology_; }

  // How many nodes a search for a place scores, and where the next search
  // starts (the policy's percentageOfNodesToScore); one cursor for every
  // search of the cycle.
  NodeSampling& sampling() { return sampling_; }

  // Undone placements so far (Statement::Discard): room may have come
  // back on nodes that caches built earlier thought full.
  uint64_t discards() const { return discards_; }
  // Names the placement of every task: it changes with every move, and an
  // undone statement returns it to what it was before (a state once left
  // never gets the name of another).
  uint64_t state() const { return state_; }
  // How many moves the session has made, undone ones included (each
  // changes at most two nodes): never goes back.
  uint64_t moves() const { return last_state_; }

  // What Statements committed so far.
  const std::vector<BindDecision>& binds() const { return binds_; }
  const std::vector<EvictDecision>& evictions() const { return evictions_; }
  // Moves the decisions out, once the session is closed (RunCycle).
  Decisions TakeDecisions() {
    return Decisions{std::move(binds_), std::move(evictions_)};
  }
  bool any_releasing() const { return releasing_count_ > 0; }

 private:
  // State changes happen only through a Statement, which records each so
  // that a discard undoes it: nothing else may move tasks or decide.
  friend class Statement;

  // Moves a task to a new status and node, keeping node accounting, job
  // counts, pod topology and the plugins' event handlers current.
  void MoveTask(api::TaskIndex t, api::TaskStatus status, api::NodeIndex node);
  void CountDiscard() { ++discards_; }
  // Sets each task's claims_class (PlacedAlike).
  void ClassifyClaims();
  bool FitsIn(const api::TaskInfo& t, const api::NodeInfo& n,
              const api::Resource& available, TopologyScope scope,
              bool once_released) const {
    if (const api::Resource* promised = PromisedToOthers(t, n)) {
      return FitsUnpromised(t, n, available - *promised, scope, once_released);
    }
    return FitsUnpromised(t, n, available, scope, once_released);
  }
  bool FitsUnpromised(const api::TaskInfo& t, const api::NodeInfo& n,
                      const api::Resource& available, TopologyScope scope,
                      bool once_released) const {
    return FitsAnyJobIn(t, n, available, scope, once_released) &&
           Call<Fit>(t, n, available, nullptr);
  }
  bool FitsAnyJobIn(const api::TaskInfo& t, const api::NodeInfo& n,
                    const api::Resource& available, TopologyScope scope,
                    bool once_released) const {
    return t.request().FitsIn(available) &&
           n.HostPortsFree(t.pod->host_ports) &&
           n.VolumesFit(t.pod->csi_volumes) &&
           (t.pod->resource_claims.empty() ||
            (once_released ? devices_->FitsOnceReleased(*t.pod, n)
                           : devices_->Fits(*t.pod, n))) &&
           (t.topology_class == 0 ||
            topology_->Refusal(t, n, scope) == nullptr);
  }
  // FitsExplained but for the Fit callbacks.
  bool FitsMechanically(const api::TaskInfo& t, const api::NodeInfo& n,
                        const api::Resource& available, Reasons* why) const;
  // Holds (+1) or gives back (-1) room on `node` for the pod that will
  // replace moved task `t` (Statement::Move): like a pipelined pod's, but
  // the task itself stays where it is, being evicted.
  void HoldForReplacement(api::TaskIndex t, api::NodeIndex node, int sign);
  const api::Resource* PromisedToOthersSlow(const api::TaskInfo& t,
                                            const api::NodeInfo& n) const;
  // Adds (+1) or removes (-1) a task's request in its queue and every
  // ancestor's held amount.
  void HoldInQueues(const api::TaskInfo& t, int sign);

  struct Registering {
    const PluginConfig& config;
    int tier;
  };

  api::ClusterInfo cluster_;
  Policy& policy_;
  std::unique_ptr<PodTopology> topology_;
  std::unique_ptr<dra::Ledger> devices_;
  NodeSampling sampling_;
  const Registering* current_ = nullptr;
  // One per plugin, in the policy's order (null for a plugin that shares
  // nothing), destroyed with the session. Declared before the callbacks
  // so that those are destroyed first and never outlive the state they
  // point into.
  std::vector<std::unique_ptr<PluginSession>> plugin_sessions_;
  std::tuple<CallbackTable<QueueOrder>, CallbackTable<JobOrder>,
             CallbackTable<TaskOrder>, CallbackTable<JobValid>,
             CallbackTable<JobReady>, CallbackTable<JobPipelined>,
             CallbackTable<JobEnqueueable>, CallbackTable<JobStarving>,
             CallbackTable<Overused>, CallbackTable<Allocatable>,
             CallbackTable<Preemptive>, CallbackTable<Predicate>,
             CallbackTable<Fit>, CallbackTable<NodeOrder>,
             CallbackTable<DomainOrder>, CallbackTable<Preemptable>,
             CallbackTable<Reclaimable>>
      tables_;
  std::vector<EventHandler> handlers_;
  std::vector<std::function<void(const api::JobInfo&)>> admission_handlers_;
  bool borrowing_ = false;
  // Keyed by fingerprint; equal fingerprints are checked for equality.
  absl::flat_hash_map<uint64_t,
                      std::vector<std::pair<const api::PlacementConstraints*,
                                            std::unique_ptr<FeasibleNodes>>>>
      feasible_;
  std::vector<BindDecision> binds_;
  std::vector<EvictDecision> evictions_;
  // Room promised in earlier cycles, by node (empty: none anywhere).
  std::vector<std::vector<HeldRoom>> held_;
  // PromisedToOthersSlow's answer, per node, for the job last asked.
  mutable std::vector<std::pair<api::JobIndex, api::Resource>> promised_memo_;
  int releasing_count_ = 0;
  std::vector<api::Resource> queue_held_;  // by queue, subtree sums
  uint64_t discards_ = 0;
  uint64_t state_ = 0;
  uint64_t last_state_ = 0;  // the newest name given
  struct Explained {
    const api::TaskInfo* exemplar;
    uint64_t state;
    absl::flat_hash_map<std::string, int> refused;  // reason -> nodes
    std::vector<api::NodeIndex> passed;             // all but the Fit callbacks
  };
  std::vector<Explained> explained_;
};

// "0/5 nodes are available: 3 Insufficient nvidia.com/gpu, 2 node(s) had
// untolerated taint {gpu: true}." Reasons sorted as kube-scheduler does.
std::string FormatUnavailable(int total, int available,
                              const absl::flat_hash_map<std::string, int>& why);

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_SESSION_H_
