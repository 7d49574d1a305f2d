// Incremental snapshots (cache.h) must give exactly the cluster a build
// from every object gives. Seeded random sequences of every kind of cache
// operation, on a small world so that they collide, compare Snapshot()
// with SnapshotFromScratch() after random steps, field by field.
#include <atomic>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/api/resource_name.h"
#include "scheduler/cache/cache.h"

namespace shoal::cache {
namespace {

// --- Comparison: the first difference found, or "".
//
// Covers every field of ClusterInfo: nodes (spec, index, used, idle,
// releasing, pipelined, generation, tasks, volume limits, attached volume
// count; host ports and attached volumes through HostPortsFree and
// VolumesFit on every port and volume the test uses), foreign pods,
// namespace labels, jobs (every field), tasks (every field, pods by
// content), queues (every field), node_by_name, queue_by_name, now and
// total_allocatable.

const std::vector<int32_t> kPorts = {8080, 9090};

std::vector<api::CsiVolume> AllVolumes() {
  std::vector<api::CsiVolume> out;
  for (int i = 0; i < 3; ++i) out.push_back({"ebs", absl::StrCat("vol-", i)});
  return out;
}

#define SAME(field)                                                  \
  if (!(a.field == b.field)) return absl::StrCat(what, ": " #field); \
  static_assert(true)

std::string DiffPod(const std::string& what, const api::PodInfo& a,
                    const api::PodInfo& b) {
  SAME(ns);
  SAME(name);
  SAME(uid);
  SAME(scheduler_name);
  SAME(node_name);
  SAME(group);
  SAME(role);
  SAME(priority_class);
  SAME(priority);
  SAME(preempt_never);
  SAME(preemption_policy_set);
  SAME(preemptable);
  SAME(critical);
  SAME(status);
  SAME(created);
  SAME(host_ports);
  SAME(scheduling_gates);
  SAME(unsupported_field);
  SAME(unsupported_value);
  SAME(volume_claims);
  SAME(volume_refusal);
  SAME(volume_reason);
  SAME(csi_volumes);
  SAME(request);
  SAME(labels);
  SAME(inter_pod);
  if ((a.placement == nullptr) != (b.placement == nullptr))
    return what + ": placement";
  if (a.placement != nullptr &&
      (!(*a.placement == *b.placement) ||
       a.placement->fingerprint != b.placement->fingerprint)) {
    return what + ": placement";
  }
  return "";
}

std::string DiffNode(const std::string& what, const api::NodeInfo& a,
                     const api::NodeInfo& b) {
  if (&a.spec() != &b.spec()) return what + ": spec";
  SAME(index());
  SAME(used());
  SAME(idle());
  SAME(releasing());
  SAME(pipelined());
  SAME(generation());
  SAME(tasks());
  SAME(volume_limits());
  SAME(AttachedVolumeCount());
  for (int32_t port : kPorts) {
    for (const char* ip : {"", "10.0.0.1"}) {
      std::vector<api::HostPort> want = {{ip, "TCP", port}};
      if (a.HostPortsFree(want) != b.HostPortsFree(want))
        return absl::StrCat(what, ": host port ", port);
    }
  }
  for (const api::CsiVolume& v : AllVolumes()) {
    std::vector<api::CsiVolume> want = {v};
    if (a.VolumesFit(want) != b.VolumesFit(want))
      return absl::StrCat(what, ": volume ", v.handle);
  }
  return "";
}

std::string DiffJob(const std::string& what, const api::JobInfo& a,
                    const api::JobInfo& b) {
  SAME(ns);
  SAME(name);
  SAME(uid);
  SAME(source);
  SAME(unsupported_field);
  SAME(unsupported_value);
  SAME(index);
  SAME(queue);
  SAME(queue_index);
  SAME(min_member);
  SAME(min_task_member);
  SAME(min_resources);
  SAME(priority_class);
  SAME(priority);
  SAME(phase);
  SAME(group_missing);
  SAME(renewing_admission);
  SAME(created);
  SAME(tasks);
  SAME(count_by_status);
  SAME(fit_error);
  SAME(message);
  SAME(elastic_target);
  SAME(cycles_below_minimum);
  return "";
}

std::string DiffQueue(const std::string& what, const api::QueueInfo& a,
                      const api::QueueInfo& b) {
  SAME(name);
  SAME(index);
  SAME(weight);
  SAME(priority);
  SAME(capability);
  SAME(guarantee);
  SAME(deserved);
  SAME(reclaimable);
  SAME(open);
  SAME(implicit);
  SAME(standing_known);
  SAME(deserved_now);
  SAME(allocated);
  SAME(request);
  SAME(share);
  SAME(overused);
  return "";
}

std::string Diff(const api::ClusterInfo& a, const api::ClusterInfo& b) {
  const std::string what = "cluster";
  SAME(now);
  SAME(total_allocatable);
  SAME(node_by_name);
  SAME(queue_by_name);
  SAME(namespace_labels);
  SAME(nodes.size());
  SAME(foreign_pods.size());
  SAME(jobs.size());
  SAME(tasks.size());
  SAME(queues.size());
  std::string d;
  for (size_t i = 0; i < a.nodes.size() && d.empty(); ++i)
    d = DiffNode(absl::StrCat("node ", i), a.nodes[i], b.nodes[i]);
  for (size_t i = 0; i < a.foreign_pods.size() && d.empty(); ++i) {
    if (a.foreign_pods[i].node != b.foreign_pods[i].node)
      return absl::StrCat("foreign pod ", i, ": node");
    d = DiffPod(absl::StrCat("foreign pod ", i), *a.foreign_pods[i].pod,
                *b.foreign_pods[i].pod);
  }
  for (size_t i = 0; i < a.jobs.size() && d.empty(); ++i)
    d = DiffJob(absl::StrCat("job ", i), a.jobs[i], b.jobs[i]);
  for (size_t i = 0; i < a.tasks.size() && d.empty(); ++i) {
    const api::TaskInfo& x = a.tasks[i];
    const api::TaskInfo& y = b.tasks[i];
    if (x.status != y.status || x.node != y.node || x.job != y.job ||
        x.topology_class != y.topology_class) {
      return absl::StrCat("task ", i);
    }
    d = DiffPod(absl::StrCat("task ", i), *x.pod, *y.pod);
  }
  for (size_t i = 0; i < a.queues.size() && d.empty(); ++i)
    d = DiffQueue(absl::StrCat("queue ", i), a.queues[i], b.queues[i]);
  return d;
}

#undef SAME

// --- Random operations on a small world.

class World {
 public:
  explicit World(uint64_t seed) : rng_(seed) {}

  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool Chance(double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng_) < p;
  }
  template <typename T>
  const T& OneOf(const std::vector<T>& v) {
    return v[Pick(static_cast<int>(v.size()))];
  }

  std::string NodeName() { return absl::StrCat("n", Pick(7)); }  // n6: none
  std::string Ns() { return Chance(0.5) ? "a" : "b"; }
  std::string PodKey() { return absl::StrCat(Ns(), "/p", Pick(16)); }
  std::string GroupName() { return absl::StrCat("g", Pick(4)); }
  std::string ClassName() {
    return OneOf<std::string>({"", "high", "low", "gone"});
  }

  api::Resource Cpu(int milli) {
    api::Resource r;
    r.Set(api::kCpu, milli);
    r.Set(api::kPods, 1);
    return r;
  }

  std::shared_ptr<const api::NodeSpec> Node(const std::string& name) {
    auto n = std::make_shared<api::NodeSpec>();
    n->name = name;
    n->ready = Chance(0.85);
    n->unschedulable = Chance(0.1);
    n->labels = api::Labels(std::vector<std::pair<std::string, std::string>>{
        {"kubernetes.io/hostname", name},
        {"topology.kubernetes.io/zone", Chance(0.5) ? "z1" : "z2"}});
    n->allocatable = Cpu(1000 * (1 + Pick(8)));
    return n;
  }

  std::shared_ptr<const api::PodInfo> Pod(const std::string& key) {
    auto p = std::make_shared<api::PodInfo>();
    p->ns = key.substr(0, 1);
    p->name = key.substr(2);
    p->uid = absl::StrCat(key, "-uid", Pick(2));
    p->scheduler_name = Chance(0.75) ? "shoal" : "other";
    p->group = Chance(0.3) ? "" : GroupName();
    p->role = Chance(0.5) ? "worker" : "ps";
    p->priority_class = ClassName();
    p->priority = Pick(3) * 10;
    p->preemption_policy_set = Chance(0.3);
    p->preempt_never = p->preemption_policy_set && Chance(0.5);
    p->created = absl::FromUnixSeconds(1700000000 + Pick(5));
    if (Chance(0.5)) {
      p->node_name = NodeName();
      p->status = OneOf<api::TaskStatus>(
          {api::TaskStatus::kBound, api::TaskStatus::kRunning,
           api::TaskStatus::kReleasing, api::TaskStatus::kSucceeded,
           api::TaskStatus::kFailed});
    } else {
      p->status =
          Chance(0.9) ? api::TaskStatus::kPending : api::TaskStatus::kFailed;
    }
    p->request = Cpu(100 * (1 + Pick(10)));
    if (Chance(0.3)) p->host_ports.push_back({"", "TCP", OneOf(kPorts)});
    if (Chance(0.3)) {
      p->volume_claims.push_back({absl::StrCat("c", Pick(3)), false});
    }
    if (Chance(0.15)) {
      p->volume_claims.push_back({absl::StrCat(p->name, "-scratch"), true});
    }
    if (Chance(0.3)) {
      p->labels = api::Labels(std::vector<std::pair<std::string, std::string>>{
          {"app", GroupName()}});
    }
    auto placement = std::make_shared<api::PlacementConstraints>();
    placement->ComputeFingerprint();
    p->placement = std::move(placement);
    return p;
  }

  api::JobInfo Group() {
    api::JobInfo g;
    g.ns = Ns();
    g.name = GroupName();
    g.uid = absl::StrCat(g.ns, g.name, "-uid", Pick(2));
    g.source = Chance(0.8) ? api::GroupSource::kVolcano
                           : api::GroupSource::kSchedulerPlugins;
    g.queue = OneOf<std::string>({"default", "q1", "q2"});
    g.min_member = 1 + Pick(3);
    if (Chance(0.3)) g.min_task_member["worker"] = 1;
    if (Chance(0.2)) g.min_resources = Cpu(500);
    g.priority_class = Chance(0.5) ? "" : ClassName();
    g.phase = OneOf<api::PodGroupPhase>(
        {api::PodGroupPhase::kPending, api::PodGroupPhase::kInqueue,
         api::PodGroupPhase::kRunning, api::PodGroupPhase::kCompleted});
    g.created = absl::FromUnixSeconds(1700000000 + Pick(5));
    return g;
  }

  // A key only pods of no PodGroup of ours have ("a/p3s" sorts among
  // the other pods' keys), so that they come and go without changing job.
  std::string SingleKey() { return absl::StrCat(Ns(), "/p", Pick(16), "s"); }

  // One random operation on `cache`; a name for failure messages.
  std::string Step(Cache& cache) {
    switch (Pick(27)) {
      case 24:
      case 25:
      case 26: {  // jobs of one coming and going
        std::string key = SingleKey();
        if (cache.FindPod(key) != nullptr && Chance(0.6)) {
          cache.DeletePod(key);
          return "DeletePod " + key;
        }
        auto pod = std::make_shared<api::PodInfo>(*Pod(key));
        pod->scheduler_name = "shoal";
        pod->group.clear();
        cache.UpsertPod(std::move(pod), Chance(0.7));
        return "UpsertPod single " + key;
      }
      case 0:
      case 1: {
        std::string name = NodeName();
        cache.UpsertNode(Node(name));
        return "UpsertNode " + name;
      }
      case 2: {
        std::string name = NodeName();
        cache.DeleteNode(name);
        return "DeleteNode " + name;
      }
      case 3:
      case 4:
      case 5:
      case 6:
      case 7: {  // mostly pods changing in place, as binds do
        std::string key = PodKey();
        cache.UpsertPod(Pod(key), Chance(0.7));
        return "UpsertPod " + key;
      }
      case 8: {
        std::string key = PodKey();
        auto old = cache.FindPod(key);
        if (old == nullptr) return "no pod to bind";
        auto bound = std::make_shared<api::PodInfo>(*old);
        bound->node_name = NodeName();
        bound->status =
            Chance(0.5) ? api::TaskStatus::kBound : api::TaskStatus::kRunning;
        cache.UpsertPod(bound, Chance(0.8));
        return "bind " + key;
      }
      case 9: {
        std::string key = PodKey();
        cache.DeletePod(key);
        return "DeletePod " + key;
      }
      case 10:
      case 11: {
        api::JobInfo g = Group();
        std::string key = g.Key();
        cache.UpsertPodGroup(std::move(g));
        return "UpsertPodGroup " + key;
      }
      case 12: {
        std::string key = absl::StrCat(Ns(), "/", GroupName());
        cache.DeletePodGroup(key);
        return "DeletePodGroup " + key;
      }
      case 13: {
        std::string key = absl::StrCat(Ns(), "/", GroupName());
        cache.SetPodGroupPhase(key, Chance(0.5) ? api::PodGroupPhase::kRunning
                                                : api::PodGroupPhase::kInqueue);
        return "SetPodGroupPhase " + key;
      }
      case 14: {
        api::ClusterInfo decided = cache.Snapshot();
        for (api::JobInfo& job : decided.jobs) {
          if (Chance(0.5)) job.phase = api::PodGroupPhase::kInqueue;
          if (Chance(0.3)) job.elastic_target = Pick(4);
          if (Chance(0.3)) {
            job.count_by_status[static_cast<int>(api::TaskStatus::kRunning)] =
                Pick(3);
          }
        }
        cache.KeepDecisions(decided);
        return "KeepDecisions";
      }
      case 15:
      case 16: {
        std::string key = PodKey();
        std::string node = NodeName();
        cache.AssumeBound(key, node);
        return absl::StrCat("AssumeBound ", key, " ", node);
      }
      case 17: {
        std::string key = PodKey();
        cache.ForgetAssumed(key);
        return "ForgetAssumed " + key;
      }
      case 18: {
        api::QueueInfo q;
        q.name = Chance(0.5) ? "q1" : "q2";
        q.weight = 1 + Pick(3);
        if (Chance(0.5)) {
          cache.UpsertQueue(q);
          return "UpsertQueue " + q.name;
        }
        cache.DeleteQueue(q.name);
        return "DeleteQueue " + q.name;
      }
      case 19: {
        std::string ns = Ns();
        if (Chance(0.7)) {
          cache.UpsertNamespace(
              ns, api::Labels(std::vector<std::pair<std::string, std::string>>{
                      {"team", absl::StrCat(Pick(3))}}));
          return "UpsertNamespace " + ns;
        }
        cache.DeleteNamespace(ns);
        return "DeleteNamespace " + ns;
      }
      case 20: {
        api::PriorityClass pc;
        pc.name = Chance(0.5) ? "high" : "low";
        pc.value = Pick(3) * 100;
        pc.global_default = Chance(0.2);
        pc.preempt_never = Chance(0.3);
        if (Chance(0.75)) {
          cache.UpsertPriorityClass(pc);
          return "UpsertPriorityClass " + pc.name;
        }
        cache.DeletePriorityClass(pc.name);
        return "DeletePriorityClass " + pc.name;
      }
      case 21: {
        api::PersistentVolumeClaim c;
        c.ns = Ns();
        c.name = Chance(0.8) ? absl::StrCat("c", Pick(3))
                             : absl::StrCat("p", Pick(16), "-scratch");
        c.bound = Chance(0.7);
        c.volume_name =
            c.bound || Chance(0.2) ? absl::StrCat("pv", Pick(4)) : "";
        c.storage_class = Chance(0.5) ? "wait" : "";
        c.deleting = Chance(0.1);
        c.lost = Chance(0.05);
        if (Chance(0.5)) c.owner_uid = absl::StrCat(c.ns, "/", c.name, "-uid0");
        if (Chance(0.8)) {
          cache.UpsertPersistentVolumeClaim(c);
          return "UpsertPersistentVolumeClaim " + c.Key();
        }
        cache.DeletePersistentVolumeClaim(c.Key());
        return "DeletePersistentVolumeClaim " + c.Key();
      }
      case 22: {
        api::PersistentVolume pv;
        pv.name = absl::StrCat("pv", Pick(4));  // pv3: never made
        if (Chance(0.6)) {
          pv.csi_driver = "ebs";
          pv.csi_handle = absl::StrCat("vol-", Pick(3));
        }
        if (Chance(0.3)) {
          api::NodeSelectorTerm t;
          t.match_expressions.push_back({"kubernetes.io/hostname",
                                         api::SelectorOperator::kIn,
                                         {NodeName()}});
          pv.node_affinity = std::vector<api::NodeSelectorTerm>{t};
        }
        if (pv.name == "pv3" || Chance(0.15)) {
          cache.DeletePersistentVolume(pv.name);
          return "DeletePersistentVolume " + pv.name;
        }
        cache.UpsertPersistentVolume(pv);
        return "UpsertPersistentVolume " + pv.name;
      }
      default: {
        if (Chance(0.3)) {
          cache.UpsertStorageClass(
              {"wait", Chance(0.5)
                           ? api::VolumeBindingMode::kWaitForFirstConsumer
                           : api::VolumeBindingMode::kImmediate});
          return "UpsertStorageClass";
        }
        std::string node = NodeName();
        if (Chance(0.2)) {
          cache.DeleteCsiNode(node);
          return "DeleteCsiNode " + node;
        }
        cache.UpsertCsiNode({node, {{"ebs", 1 + Pick(2)}}});
        return "UpsertCsiNode " + node;
      }
    }
  }

 private:
  std::mt19937_64 rng_;
};

TEST(IncrementalSnapshotTest, EqualsAFromScratchBuildAfterAnyOperations) {
  int compared = 0;
  int64_t single_pod_patches = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    World world(seed);
    absl::Time clock = absl::FromUnixSeconds(1800000000);
    Cache cache("shoal", [&clock] { return clock; });
    std::vector<std::string> ops;
    for (int step = 0; step < 250; ++step) {
      ops.push_back(world.Step(cache));
      if (!world.Chance(0.3)) continue;
      clock += absl::Seconds(1);
      api::ClusterInfo incremental = cache.Snapshot();
      const api::ClusterInfo scratch = cache.SnapshotFromScratch();
      ++compared;
      std::string diff = Diff(incremental, scratch);
      if (!diff.empty()) {
        std::ostringstream last;
        for (size_t i = ops.size() > 12 ? ops.size() - 12 : 0; i < ops.size();
             ++i) {
          last << "\n  " << ops[i];
        }
        FAIL() << "seed " << seed << " step " << step << ": " << diff
               << "; last operations:" << last.str();
      }
      ASSERT_TRUE(api::IndexesMatchPositions(incremental));
      // The session owns its copy: what it does to it reaches neither the
      // cache nor the next snapshot.
      for (api::NodeInfo& n : incremental.nodes)
        n.Add(world.Cpu(100), api::TaskStatus::kRunning);
      for (api::JobInfo& j : incremental.jobs) j.priority += 1000;
      for (api::TaskInfo& t : incremental.tasks)
        t.status = api::TaskStatus::kAllocated;
      incremental.foreign_pods.clear();
      ASSERT_EQ(Diff(cache.Snapshot(), scratch), "") << "seed " << seed;
    }
    single_pod_patches += cache.SinglePodPatches();
  }
  EXPECT_GT(compared, 10000);
  // Jobs of one came and went by patching the model, not only by
  // assembling it again.
  EXPECT_GT(single_pod_patches, 1000);
  std::cout << "snapshots patched with jobs of one: " << single_pod_patches
            << "\n";
}

// A resource name first seen after a Queue is unlimited in it (as
// cache_test's AQueueLeavesResourcesNamedAfterItUnlimited), also when
// it comes with a node updated in place, which the model would patch.
TEST(IncrementalSnapshotTest, ANameSeenAfterTheModelWidensQueues) {
  api::QueueInfo q;
  q.name = "capped";
  api::Resource cap;
  for (int id = 0; id < api::ResourceNameCount(); ++id)
    cap.Set(static_cast<api::ResourceId>(id), api::kUnlimited);
  cap.Set(api::kCpu, 4000);
  q.capability = cap;
  Cache cache("shoal", [] { return absl::UnixEpoch(); });
  cache.UpsertQueue(q);
  auto node = std::make_shared<api::NodeSpec>();
  node->name = "n0";
  cache.UpsertNode(node);
  cache.Snapshot();  // the model
  api::ResourceId later =
      *api::InternResourceName("example.com/seen-after-the-model");
  auto gpu = std::make_shared<api::NodeSpec>(*node);
  gpu->allocatable.Set(later, 4);
  cache.UpsertNode(gpu);
  api::ClusterInfo c = cache.Snapshot();
  EXPECT_EQ(c.queues.at(0).capability->Get(later), api::kUnlimited);
  EXPECT_EQ(c.nodes.at(0).allocatable().Get(later), 4);
  EXPECT_EQ(Diff(c, cache.SnapshotFromScratch()), "");
}

// A snapshot copied while another one patches the model sees the model
// as it was: the patch works on its own copy.
TEST(IncrementalSnapshotTest, ConcurrentSnapshotsStayConsistent) {
  World world(7);
  Cache cache("shoal", [] { return absl::UnixEpoch(); });
  for (int i = 0; i < 200; ++i) world.Step(cache);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&cache, &bad] {
      for (int i = 0; i < 200; ++i) {
        api::ClusterInfo c = cache.Snapshot();
        if (!api::IndexesMatchPositions(c)) ++bad;
      }
    });
  }
  World writer(8);
  for (int i = 0; i < 2000; ++i) writer.Step(cache);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(Diff(cache.Snapshot(), cache.SnapshotFromScratch()), "");
}

}  // namespace
}  // namespace shoal::cache
