// Preempt and reclaim make room in devices (DRA) as in cpu: a victim's claims
// give their devices back inside the statement, for the pipelined preemptor
// only; what binds waits until the claims no longer hold them. The
// cycles after the eviction are built as Kubernetes would show them:
// the victims Releasing, then gone with their claims still allocated,
// then the claims deallocated by the resourceclaim controller.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/dra/testing.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/statement.h"
#include "scheduler/framework/testing.h"

namespace shoal::actions {
namespace {

using dra::testing::Gpu;
using dra::testing::kDriver;

constexpr char kPolicy[] = R"(
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: nodeorder
)";

// How a pod stands in the cluster the cycle sees.
enum class Stage { kPending, kRunning, kReleasing, kGone };

struct PodSpec {
  std::string name;
  std::string job;
  int32_t priority;
  std::string claim;  // in namespace ml
  Stage stage;
  std::string queue = "default";
};

// A claim as the API server shows it: allocated `devices` of node n1
// (`shares`: a 40Gi share of each), reserved for `pods`; or, with no
// devices, not allocated, asking for one device of class gpu (a 40Gi
// share of a device whose model is `model` when `share`).
struct ClaimSpec {
  std::string name;
  std::vector<std::string> devices;
  std::vector<std::string> pods;
  bool share = false;
  std::string model;
};

class World {
 public:
  explicit World(std::vector<api::Device> gpus) {
    dra::testing::World w;
    w.AddNode("n1", std::move(gpus));
    devices_ = w.devices;
  }
  void AddClaim(const ClaimSpec& spec) {
    api::ResourceClaim c = dra::testing::Claim(
        spec.name, 1,
        spec.model.empty()
            ? std::vector<std::string>{}
            : std::vector<std::string>{
                  "device.attributes['gpu.example.com'].model == '" +
                  spec.model + "'"});
    if (spec.share)
      c.requests[0].choices[0].capacity_requests = {{"memory", "40Gi"}};
    if (!spec.devices.empty()) {
      c.allocation = api::DeviceAllocation{};
      c.allocation->node = "n1";
      for (const std::string& d : spec.devices) {
        api::DeviceResult r{"gpu", kDriver, "n1", d};
        if (spec.share) {
          r.share_id = "share-" + spec.name;
          r.consumed_capacity = {{std::string(kDriver) + "/memory", "40Gi"}};
        }
        c.allocation->results.push_back(r);
      }
    }
    for (const std::string& p : spec.pods)
      c.reserved_for.push_back({"pods", p, "uid-" + p});
    devices_->claims[c.Key()] = std::move(c);
  }
  void AddPod(const PodSpec& spec) { pods_.push_back(spec); }
  void AddQueue(const std::string& name) {
    api::QueueInfo q;
    q.name = name;
    queues_.push_back(q);
  }

  api::ClusterInfo Build() const {
    api::ClusterBuilder b;
    b.AddNode(
        framework::testing::Node("n1", {{"cpu", cpu_}, {"memory", "64Gi"}}));
    for (const api::QueueInfo& q : queues_) b.AddQueue(q);
    std::map<std::string, api::JobIndex> jobs;
    for (const PodSpec& p : pods_) {
      if (p.stage == Stage::kGone) continue;
      auto [it, fresh] = jobs.try_emplace(p.job, api::kNone);
      if (fresh) {
        api::JobInfo job;
        job.ns = "ml";
        job.name = p.job;
        job.uid = "uid-" + p.job;
        job.priority = p.priority;
        job.queue = p.queue;
        job.min_member = MinMember(p.job);
        job.phase = p.stage == Stage::kPending ? api::PodGroupPhase::kPending
                                               : api::PodGroupPhase::kRunning;
        it->second = b.AddJob(job);
      }
      auto pod = framework::testing::Pod(p.name, {{"cpu", pod_cpu_}});
      pod->ns = "ml";
      pod->priority = p.priority;
      pod->created = absl::FromUnixSeconds(1);
      if (!p.claim.empty())
        pod->resource_claims.push_back({"gpu", p.claim, ""});
      if (p.stage != Stage::kPending) pod->node_name = "n1";
      pod->status = p.stage == Stage::kPending     ? api::TaskStatus::kPending
                    : p.stage == Stage::kReleasing ? api::TaskStatus::kReleasing
                                                   : api::TaskStatus::kRunning;
      b.AddTask(pod, it->second);
    }
    api::ClusterInfo c = std::move(b).Build();
    c.devices = devices_;
    return c;
  }

  int32_t MinMember(const std::string& job) const {
    int32_t n = 0;
    for (const PodSpec& p : pods_) n += p.job == job;
    return n;
  }
  std::shared_ptr<api::DeviceWorld> devices_;
  std::vector<PodSpec> pods_;
  std::vector<api::QueueInfo> queues_;
  std::string cpu_ = "16";
  std::string pod_cpu_ = "1";
};

framework::CycleOutcome RunOnce(const World& w,
                                const char* policy_yaml = kPolicy) {
  framework::Policy policy = framework::testing::MustPolicy(
      policy_yaml, plugins::BuiltinPlugins(), BuiltinActions());
  return framework::RunCycle(w.Build(), policy);
}

std::set<std::string> Evicted(const framework::CycleOutcome& o,
                              const std::string& reason = "preempt") {
  std::set<std::string> out;
  for (const auto& e : o.evictions) {
    EXPECT_EQ(e.reason, reason);
    out.insert(o.cluster.tasks[e.task].pod->name);
  }
  return out;
}

std::set<std::string> WithStatus(const framework::CycleOutcome& o,
                                 api::TaskStatus status) {
  std::set<std::string> out;
  for (const auto& t : o.cluster.tasks)
    if (t.status == status) out.insert(t.pod->name);
  return out;
}

// Claim -> device of every claim written, each written once.
std::map<std::string, std::string> Written(const framework::CycleOutcome& o) {
  std::map<std::string, std::string> out;
  for (const auto& b : o.binds) {
    for (const api::ClaimWrite& w : b.claims) {
      EXPECT_TRUE(w.newly_allocated) << w.name;
      EXPECT_EQ(out.count(w.name), 0u) << w.name << " written twice";
      EXPECT_EQ(w.allocation.results.size(), 1u);
      out[w.name] = w.allocation.results[0].device;
    }
  }
  return out;
}

// The low gang holds both GPUs of n1 through its claims; the high gang's
// pods each claim one. `low` is where the low gang stands, `allocated`
// whether its claims still hold the GPUs.
World GangsOnTwoGpus(Stage low, bool allocated) {
  World w({Gpu("gpu-0"), Gpu("gpu-1")});
  for (int i = 0; i < 2; ++i) {
    const std::string n = std::to_string(i);
    w.AddPod({"low-" + n, "low", 1, "low-" + n, low});
    w.AddPod({"high-" + n, "high", 100, "high-" + n, Stage::kPending});
    if (allocated) {
      w.AddClaim({"low-" + n, {"gpu-" + n}, {"low-" + n}});
    } else {
      w.AddClaim({"low-" + n});  // deallocated by the controller
    }
    w.AddClaim({"high-" + n});
  }
  return w;
}

TEST(PreemptDevices, AGangHoldingTheGpusIsEvictedAndTheTakerWaitsForThem) {
  auto first = RunOnce(GangsOnTwoGpus(Stage::kRunning, true));
  EXPECT_EQ(Evicted(first), (std::set<std::string>{"low-0", "low-1"}));
  // Pipelined onto the devices the victims give back: nothing binds, no
  // claim is written while the victims' claims hold them.
  EXPECT_TRUE(first.binds.empty());
  EXPECT_EQ(WithStatus(first, api::TaskStatus::kPipelined),
            (std::set<std::string>{"high-0", "high-1"}));

  // The victims terminating: the room waits for them, nothing more goes.
  auto releasing = RunOnce(GangsOnTwoGpus(Stage::kReleasing, true));
  EXPECT_TRUE(releasing.evictions.empty());
  EXPECT_TRUE(releasing.binds.empty());
  EXPECT_EQ(WithStatus(releasing, api::TaskStatus::kPipelined),
            (std::set<std::string>{"high-0", "high-1"}));

  // Gone, their claims not yet deallocated: still held.
  auto gone = RunOnce(GangsOnTwoGpus(Stage::kGone, true));
  EXPECT_TRUE(gone.evictions.empty());
  EXPECT_TRUE(gone.binds.empty());

  // The controller deallocated them: bound, each claim on its own GPU.
  auto freed = RunOnce(GangsOnTwoGpus(Stage::kGone, false));
  EXPECT_TRUE(freed.evictions.empty());
  EXPECT_EQ(WithStatus(freed, api::TaskStatus::kBinding),
            (std::set<std::string>{"high-0", "high-1"}));
  EXPECT_EQ(Written(freed), (std::map<std::string, std::string>{
                                {"high-0", "gpu-0"}, {"high-1", "gpu-1"}}));
}

TEST(PreemptDevices, AClaimSharedWithAPodThatStaysFreesNothing) {
  World w({Gpu("gpu-0")});
  w.AddPod({"low", "low", 1, "shared", Stage::kRunning});
  w.AddPod({"keep", "keep", 1000, "shared", Stage::kRunning});
  w.AddPod({"high", "high", 100, "high", Stage::kPending});
  w.AddClaim({"shared", {"gpu-0"}, {"low", "keep"}});
  w.AddClaim({"high"});
  auto out = RunOnce(w);
  EXPECT_TRUE(out.evictions.empty());
  EXPECT_TRUE(out.binds.empty());
  EXPECT_EQ(WithStatus(out, api::TaskStatus::kPending),
            (std::set<std::string>{"high"}));
}

TEST(PreemptDevices, OnlyTheVictimHoldingADeviceGoesWhenDevicesAreShort) {
  // Lower priority than the GPU holder, and asking only for cpu: the
  // search takes it first, and gives it back once the GPU holder frees
  // what the taker lacks.
  World w({Gpu("gpu-0")});
  w.AddPod({"cpu-only", "cpu-only", 1, "", Stage::kRunning});
  w.AddPod({"holder", "holder", 2, "holder", Stage::kRunning});
  w.AddPod({"high", "high", 100, "high", Stage::kPending});
  w.AddClaim({"holder", {"gpu-0"}, {"holder"}});
  w.AddClaim({"high"});
  auto out = RunOnce(w);
  EXPECT_EQ(Evicted(out), (std::set<std::string>{"holder"}));
  EXPECT_TRUE(out.binds.empty());
}

TEST(PreemptDevices, AVictimsShareMakesRoomForAShare) {
  api::Device shared = Gpu("gpu-0", "shared");
  shared.allow_multiple_allocations = true;
  World w({shared, Gpu("gpu-1", "other")});
  w.AddPod({"low", "low", 1, "low", Stage::kRunning});
  w.AddPod({"keep", "keep", 1000, "keep", Stage::kRunning});
  w.AddPod({"other", "other", 1000, "other", Stage::kRunning});
  w.AddPod({"high", "high", 100, "high", Stage::kPending});
  w.AddClaim({"low", {"gpu-0"}, {"low"}, true});
  w.AddClaim({"keep", {"gpu-0"}, {"keep"}, true});
  w.AddClaim({"other", {"gpu-1"}, {"other"}});
  w.AddClaim({"high", {}, {}, true, "shared"});
  auto out = RunOnce(w);
  EXPECT_EQ(Evicted(out), (std::set<std::string>{"low"}));
  EXPECT_TRUE(out.binds.empty());
  EXPECT_EQ(WithStatus(out, api::TaskStatus::kPipelined),
            (std::set<std::string>{"high"}));
}

TEST(ReclaimDevices, AQueueOverItsShareGivesBackAGpuForAnotherQueue) {
  // Queue a holds all the cpu and both GPUs; queue b, below its share,
  // reclaims one pod's cpu and GPU.
  constexpr char kReclaiming[] = R"(
actions: "enqueue, allocate, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
)";
  World w({Gpu("gpu-0"), Gpu("gpu-1")});
  w.cpu_ = "4";
  w.pod_cpu_ = "2";
  w.AddQueue("a");
  w.AddQueue("b");
  w.AddPod({"a-0", "a-0", 1, "a-0", Stage::kRunning, "a"});
  w.AddPod({"a-1", "a-1", 1, "a-1", Stage::kRunning, "a"});
  w.AddPod({"b-0", "b-0", 1, "b-0", Stage::kPending, "b"});
  w.AddClaim({"a-0", {"gpu-0"}, {"a-0"}});
  w.AddClaim({"a-1", {"gpu-1"}, {"a-1"}});
  w.AddClaim({"b-0"});
  auto out = RunOnce(w, kReclaiming);
  EXPECT_EQ(Evicted(out, "reclaim").size(), 1u);
  EXPECT_TRUE(out.binds.empty());
  EXPECT_EQ(WithStatus(out, api::TaskStatus::kPipelined),
            (std::set<std::string>{"b-0"}));
}

TEST(PreemptDevices, ADiscardedEvictionTakesItsDevicesBack) {
  World w = GangsOnTwoGpus(Stage::kRunning, true);
  framework::Policy policy = framework::testing::MustPolicy(
      kPolicy, plugins::BuiltinPlugins(), BuiltinActions());
  framework::Session s(w.Build(), policy);
  api::TaskIndex low0 = api::kNone, high0 = api::kNone;
  for (api::TaskIndex t = 0;
       t < static_cast<api::TaskIndex>(s.cluster().tasks.size()); ++t) {
    if (s.task(t).pod->name == "low-0") low0 = t;
    if (s.task(t).pod->name == "high-0") high0 = t;
  }
  const api::NodeInfo& n1 = s.node(0);
  EXPECT_FALSE(s.FitsOnceReleased(s.task(high0), n1, n1.FutureIdle()));
  {
    framework::Statement stmt(s);
    stmt.Evict(low0, "preempt", "ml/high-0");
    EXPECT_EQ(s.devices().ReleasedCount(), 1);
    EXPECT_FALSE(s.Fits(s.task(high0), n1, n1.idle()));
    ASSERT_TRUE(s.FitsOnceReleased(s.task(high0), n1, n1.FutureIdle()));
    stmt.Pipeline(high0, 0);
    stmt.Discard();
  }
  EXPECT_EQ(s.devices().ReleasedCount(), 0);
  EXPECT_EQ(s.devices().TakenCount(), 2);
  EXPECT_FALSE(s.FitsOnceReleased(s.task(high0), n1, n1.FutureIdle()));
}

}  // namespace
}  // namespace shoal::actions
