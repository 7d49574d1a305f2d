// The admin service through a real gRPC channel: an in-process server on
// a Unix socket (and, for TLS, on a TCP port) over backends loaded from
// snapshot files.
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "proto/admin.grpc.pb.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/admin/cache_backend.h"
#include "scheduler/admin/devices_text.h"
#include "scheduler/admin/explain.h"
#include "scheduler/admin/file_backend.h"
#include "scheduler/admin/group_standing.h"
#include "scheduler/admin/server.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/kube/decode/objects.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_world.h"

namespace shoal::admin {
namespace {

using v1::Admin;

std::string Dir() {
  // Unix socket paths are limited to ~107 bytes; Bazel's TEST_TMPDIR may be
  // longer.
  const char* tmp = getenv("TEST_TMPDIR");
  if (tmp != nullptr && std::string(tmp).size() < 60) return tmp;
  char templ[] = "/tmp/shoal-admin-test-XXXXXX";
  return mkdtemp(templ);
}

framework::SchedulerConfig DefaultConfig() {
  return *framework::ParseSchedulerConfig(policies::kDefaultPolicy,
                                          "policies/default.yaml");
}

std::unique_ptr<FileBackend> Load(const std::string& file, int cycles) {
  auto b = FileBackend::Load(file, DefaultConfig(), cycles);
  EXPECT_TRUE(b.ok()) << b.status();
  return std::move(*b);
}

// The admin service over `backend` on a socket of its own, and a client.
struct Connection {
  std::unique_ptr<AdminServer> server;
  std::unique_ptr<Admin::Stub> stub;
};

Connection Connect(const AdminBackend& backend, bool whatif = false) {
  AdminOptions options;
  static int n = 0;
  options.address = absl::StrCat("unix://", Dir(), "/admin-", ++n, ".sock");
  options.allow_whatif = whatif;
  auto server = StartAdminServer(options, backend);
  EXPECT_TRUE(server.ok()) << server.status();
  Connection c;
  if (server.ok()) c.server = std::move(*server);
  c.stub = Admin::NewStub(
      grpc::CreateChannel(options.address, grpc::InsecureChannelCredentials()));
  return c;
}

struct Served {
  std::unique_ptr<FileBackend> backend;
  std::unique_ptr<AdminServer> server;
  std::unique_ptr<Admin::Stub> stub;
};

Served Serve(const std::string& file, int cycles, bool whatif,
             const framework::SchedulerConfig& config = DefaultConfig()) {
  Served s;
  auto b = FileBackend::Load(file, config, cycles);
  EXPECT_TRUE(b.ok()) << b.status();
  s.backend = std::move(*b);
  Connection c = Connect(*s.backend, whatif);
  s.server = std::move(c.server);
  s.stub = std::move(c.stub);
  return s;
}

constexpr char kGang[] = "e2e/snapshots/gang-deadlock.yaml";
constexpr char kPreempt[] = "scheduler/admin/testdata/preempt.yaml";
constexpr char kQueues[] = "scheduler/admin/testdata/queues.yaml";
constexpr char kDevices[] = "scheduler/admin/testdata/devices.yaml";

TEST(Explain, PendingGangNamesPerNodeReasonsAsExplainDoes) {
  Served s = Serve(kGang, 1, false);
  v1::ExplainRequest req;
  req.set_podgroup("ml-team/resnet-152");
  v1::ExplainResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Explain(&ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  std::cerr << resp.DebugString();
  EXPECT_EQ(resp.kind(), "podgroup");
  EXPECT_EQ(resp.queue(), "default");
  EXPECT_TRUE(resp.have_last_cycle());
  EXPECT_EQ(resp.phase(), "Pending");
  EXPECT_EQ(resp.min_member(), 6);
  ASSERT_EQ(resp.pods_size(), 1);  // one role: worker
  EXPECT_EQ(resp.pods(0).role(), "worker");

  // The per-node verdicts are --explain's on the same snapshot.
  auto policy =
      framework::BuildPolicy(s.backend->config(), plugins::BuiltinPlugins(),
                             actions::BuiltinActions());
  ASSERT_TRUE(policy.ok());
  auto want = ExplainPod(s.backend->Snapshot(), *policy, resp.pods(0).pod());
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(resp.pods(0).available(), (*want)["available"]);
  ASSERT_EQ(resp.pods(0).nodes_size(), (*want)["nodes"].size());
  for (int i = 0; i < resp.pods(0).nodes_size(); ++i) {
    const auto& got = resp.pods(0).nodes(i);
    const auto& w = (*want)["nodes"][i];
    EXPECT_EQ(got.node(), w["node"]);
    EXPECT_EQ(got.feasible(), w["feasible"]);
    std::vector<std::string> reasons(got.reasons().begin(),
                                     got.reasons().end());
    EXPECT_EQ(reasons, w["reasons"].get<std::vector<std::string>>());
  }
  EXPECT_FALSE(resp.gang_fix().empty());
}

TEST(Explain, NetworkBoundGangListsEachDomainsRoom) {
  // After cycle 1 gang `big` fills rack1; `next` (4 pods of 2 cpu, hard,
  // tier 1 named `rack`) fits neither rack.
  Served s = Serve("e2e/snapshots/network-topology-hard.yaml", 1, false);
  v1::ExplainRequest req;
  req.set_podgroup("team/next");
  v1::ExplainResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Explain(&ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.network(), "mode hard, highestTierName rack");
  EXPECT_EQ(resp.network_source(), "HyperNodes");
  ASSERT_EQ(resp.domains_size(), 2);  // the spine is tier 2: beyond
  EXPECT_EQ(resp.domains(0).name(), "rack0");
  EXPECT_EQ(resp.domains(0).room(), 3);
  EXPECT_EQ(resp.domains(0).need(), 4);
  EXPECT_EQ(resp.domains(1).name(), "rack1");
  EXPECT_EQ(resp.domains(1).room(), 0);
  bool named = false;
  for (const auto& b : resp.blockers()) {
    named |= b ==
             "no network domain up to tier 1 holds 4 pods of cpu: 2 "
             "(spec.networkTopology mode hard, highestTierName rack): rack0 "
             "has room for 3, rack1 has room for 0";
  }
  EXPECT_TRUE(named) << resp.DebugString();
}

TEST(Explain, AWorkloadGangByItsWorkloadsName) {
  // e2e/snapshots/workload-gangs.yaml: `train` has one gang (workers),
  // short of pods; `tune` has two (replica keys 0 and 1).
  Served s = Serve("e2e/snapshots/workload-gangs.yaml", 1, false);
  auto explain = [&](const std::string& key, v1::ExplainResponse* resp) {
    v1::ExplainRequest req;
    req.set_podgroup(key);
    grpc::ClientContext ctx;
    return s.stub->Explain(&ctx, req, resp);
  };
  v1::ExplainResponse resp;
  grpc::Status st = explain("ml/train", &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.podgroup(), "ml/train/workers");
  st = explain("ml/tune", &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(),
            "workload \"ml/tune\" has 2 gangs (ml/tune/trials/0, "
            "ml/tune/trials/1): name one, as NAMESPACE/NAME/PODGROUP[/KEY]");
}

TEST(Explain, PodFixNamesVictimsOrShortfall) {
  Served s = Serve(kPreempt, 0, false);
  v1::ExplainRequest req;
  req.set_pod("prod/urgent");
  v1::ExplainResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Explain(&ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  std::cerr << resp.DebugString();
  EXPECT_FALSE(resp.have_last_cycle());
  ASSERT_EQ(resp.pods_size(), 1);
  const auto& p = resp.pods(0);
  EXPECT_EQ(p.available(), "0/2 nodes are available: 2 Insufficient cpu.");
  ASSERT_EQ(p.fixes_size(), 2);
  EXPECT_EQ(p.fixes(0).node(), "node-1");
  // Both are needed (2 free + 3 + 3 >= 6); the newer goes first.
  EXPECT_EQ(std::vector<std::string>(p.fixes(0).victims().begin(),
                                     p.fixes(0).victims().end()),
            (std::vector<std::string>{"batch/low-b", "batch/low-a"}));
  EXPECT_EQ(p.fixes(0).text(),
            "evicting batch/low-b, batch/low-a (lower priority) would make "
            "room on node-1");
  EXPECT_EQ(p.fixes(1).node(), "node-2");
  EXPECT_EQ(p.fixes(1).victims_size(), 0);
  EXPECT_EQ(p.fixes(1).text(),
            "needs 2 more cpu on node-2 even with its 1 lower-priority pod(s) "
            "evicted");
  EXPECT_EQ(resp.gang_fix(), "");  // a job of one
}

TEST(Explain, PodFixNamesTheVictimsWhoseClaimsHoldTheDevices) {
  // n1's two GPUs are held by the claims of two running low-priority
  // pods; cpu is plentiful: evicting one GPU holder makes room.
  Served s = Serve("scheduler/admin/testdata/dra_preempt.yaml", 0, false);
  v1::ExplainRequest req;
  req.set_pod("prod/urgent");
  v1::ExplainResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Explain(&ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(resp.pods_size(), 1);
  const auto& p = resp.pods(0);
  ASSERT_EQ(p.fixes_size(), 1) << resp.DebugString();
  EXPECT_EQ(std::vector<std::string>(p.fixes(0).victims().begin(),
                                     p.fixes(0).victims().end()),
            (std::vector<std::string>{"batch/low-1"}));  // the newer
  EXPECT_EQ(p.fixes(0).text(),
            "evicting batch/low-1 (lower priority) would make room and free "
            "the devices its claims need on n1");
}

// The default policy with `actions` in place of its own.
framework::SchedulerConfig DefaultWithActions(const std::string& actions) {
  std::string yaml = policies::kDefaultPolicy;
  const std::string line = "actions: \"enqueue, allocate, backfill\"";
  const size_t at = yaml.find(line);
  EXPECT_NE(at, std::string::npos);
  yaml.replace(at, line.size(), absl::StrCat("actions: \"", actions, "\""));
  auto config = framework::ParseSchedulerConfig(yaml, "test-policy.yaml");
  EXPECT_TRUE(config.ok()) << config.status();
  return *config;
}

v1::ExplainResponse ExplainGroup(Served& s, const std::string& key) {
  v1::ExplainRequest req;
  req.set_podgroup(key);
  v1::ExplainResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Explain(&ctx, req, &resp);
  EXPECT_TRUE(st.ok()) << st.error_message();
  return resp;
}

std::vector<std::string> GangRoom(const v1::ExplainResponse& resp) {
  return {resp.gang_room().begin(), resp.gang_room().end()};
}

// A CompositePodGroup tree by the name of any of its groups: each level's
// standing, parents first, and the leaf that waits named short.
TEST(Explain, ATreeListsEachLevelsGroupsWholeAndTheLeafThatWaits) {
  Served s = Serve("scheduler/admin/testdata/composite_tree.yaml", 1, false);
  for (const std::string key :
       {"default/train", "default/workers", "default/workers-2"}) {
    v1::ExplainResponse resp = ExplainGroup(s, key);
    EXPECT_EQ(resp.podgroup(), "default/train") << key;
    ASSERT_EQ(resp.groups_size(), 6) << key << resp.DebugString();
  }
  v1::ExplainResponse resp = ExplainGroup(s, "default/workers-2");
  struct Row {
    std::string name, kind;
    int depth, needs, of, whole, pending;
    std::string verdict;
  };
  const std::vector<Row> want = {
      {"train", "CompositePodGroup", 0, 2, 2, 2, 0, "whole"},
      {"driver", "PodGroup", 1, 1, 1, 1, 0, "whole"},
      {"workers", "CompositePodGroup", 1, 2, 3, 2, 0, "whole"},
      {"workers-0", "PodGroup", 2, 4, 4, 4, 0, "whole"},
      {"workers-1", "PodGroup", 2, 4, 4, 4, 0, "whole"},
      {"workers-2", "PodGroup", 2, 4, 4, 0, 4, "short of 4 pods"},
  };
  for (size_t i = 0; i < want.size(); ++i) {
    const v1::GroupStanding& got = resp.groups(static_cast<int>(i));
    EXPECT_EQ(got.name(), want[i].name);
    EXPECT_EQ(got.kind(), want[i].kind) << want[i].name;
    EXPECT_EQ(got.depth(), want[i].depth) << want[i].name;
    EXPECT_EQ(got.needs(), want[i].needs) << want[i].name;
    EXPECT_EQ(got.of(), want[i].of) << want[i].name;
    EXPECT_EQ(got.whole(), want[i].whole) << want[i].name;
    EXPECT_EQ(got.pending(), want[i].pending) << want[i].name;
    EXPECT_EQ(GroupVerdict(got), want[i].verdict) << want[i].name;
  }
  // A plain gang has no levels to list.
  Served plain = Serve(kGang, 1, false);
  EXPECT_EQ(ExplainGroup(plain, "ml-team/resnet-152").groups_size(), 0);
}

// Volcano's sub-groups in the same table: gang `odd` needs three whole
// replicas of the two its pods form.
TEST(Explain, VolcanoSubGroupsInTheSameTable) {
  Served s = Serve("e2e/snapshots/network-topology-subgroups.yaml", 1, false);
  v1::ExplainResponse resp = ExplainGroup(s, "team/odd");
  ASSERT_EQ(resp.groups_size(), 3) << resp.DebugString();
  EXPECT_EQ(resp.groups(0).name(), "replica");
  EXPECT_EQ(resp.groups(0).kind(), "subGroupPolicy");
  EXPECT_EQ(resp.groups(0).needs(), 3);
  EXPECT_EQ(resp.groups(0).of(), 2);
  EXPECT_EQ(GroupVerdict(resp.groups(0)), "short of 3 groups");
  for (int i : {1, 2}) {
    const v1::GroupStanding& g = resp.groups(i);
    EXPECT_EQ(g.name(), i == 1 ? "replica/x" : "replica/y");
    EXPECT_EQ(g.kind(), "subGroup");
    EXPECT_EQ(g.depth(), 1);
    EXPECT_EQ(g.needs(), 4);
    EXPECT_EQ(g.of(), 4);
    EXPECT_EQ(g.pending(), 4);
    EXPECT_EQ(GroupVerdict(g), "short of 4 pods");
  }
}

TEST(Explain, GangLineNamesTheDevicesLowerPriorityPodsHold) {
  // Gang prod/urgent needs both of n1's GPUs, which the claims of two
  // running lower-priority pods hold; the newer is the first victim.
  constexpr char kFile[] = "scheduler/admin/testdata/dra_preempt_gang.yaml";
  {
    Served s = Serve(kFile, 0, false);  // no preempt in the policy
    v1::ExplainResponse resp = ExplainGroup(s, "prod/urgent");
    std::cerr << resp.DebugString();
    EXPECT_EQ(GangRoom(resp),
              (std::vector<std::string>{
                  "needs 2 devices of class gpu.example.com held by 2 pods of "
                  "lower priority (batch/low-1, batch/low-0); a policy listing "
                  "preempt would free them"}))
        << resp.DebugString();
  }
  {
    Served s =
        Serve(kFile, 0, false,
              DefaultWithActions("enqueue, allocate, backfill, preempt"));
    v1::ExplainResponse resp = ExplainGroup(s, "prod/urgent");
    EXPECT_EQ(GangRoom(resp),
              (std::vector<std::string>{
                  "needs 2 devices of class gpu.example.com held by 2 pods of "
                  "lower priority: preempt would take batch/low-1, "
                  "batch/low-0"}))
        << resp.DebugString();
  }
}

TEST(Explain, GangLineSaysTheRoomIsScattered) {
  // Three 8-GPU nodes with 4 GPUs free each; train/big asks 8.
  constexpr char kFile[] = "scheduler/admin/testdata/scattered.yaml";
  {
    Served s = Serve(kFile, 0, false);  // no consolidate in the policy
    v1::ExplainResponse resp = ExplainGroup(s, "train/big");
    EXPECT_EQ(GangRoom(resp),
              (std::vector<std::string>{
                  "12 nvidia.com/gpu free in all but at most 4 on one node: "
                  "the room is scattered; a policy listing consolidate (after "
                  "allocate) may move pods to make a node whole"}))
        << resp.DebugString();
  }
  {
    Served s = Serve(kFile, 0, false,
                     DefaultWithActions("enqueue, allocate, backfill, "
                                        "consolidate"));
    v1::ExplainResponse resp = ExplainGroup(s, "train/big");
    EXPECT_EQ(GangRoom(resp),
              (std::vector<std::string>{
                  "12 nvidia.com/gpu free in all but at most 4 on one node: "
                  "the room is scattered; consolidate may move pods to make a "
                  "node whole"}))
        << resp.DebugString();
  }
}

TEST(Explain, NoGangRoomLineWhenNeitherDevicesNorScatteredRoom) {
  // resnet-152 is short of GPUs in sum (6 needed, 3 free) and claims no
  // devices: neither line applies.
  Served s = Serve(kGang, 1, false);
  v1::ExplainResponse resp = ExplainGroup(s, "ml-team/resnet-152");
  EXPECT_FALSE(resp.gang_fix().empty());
  EXPECT_EQ(resp.gang_room_size(), 0) << resp.DebugString();
}

TEST(Explain, NotFoundAndBadName) {
  Served s = Serve(kGang, 1, false);
  struct Case {
    std::string pod, group;
    grpc::StatusCode code;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"ml-team/nope", "", grpc::StatusCode::NOT_FOUND,
            "pod \"ml-team/nope\" is not pending in Shoal (not in the cache, "
            "or its schedulerName is not Shoal's)"},
           {"ml-team/bert-large-worker-0", "", grpc::StatusCode::NOT_FOUND,
            "pod \"ml-team/bert-large-worker-0\" is not pending in Shoal (it "
            "is Binding on gpu-node-b)"},
           {"", "ml-team/nope", grpc::StatusCode::NOT_FOUND,
            "podgroup \"ml-team/nope\" is not known to Shoal (no such "
            "PodGroup, and no pod of Shoal's names it)"},
           {"nope", "", grpc::StatusCode::INVALID_ARGUMENT,
            "explain: pod must be NAMESPACE/NAME, got \"nope\""},
       }) {
    v1::ExplainRequest req;
    if (!c.pod.empty()) req.set_pod(c.pod);
    if (!c.group.empty()) req.set_podgroup(c.group);
    v1::ExplainResponse resp;
    grpc::ClientContext ctx;
    grpc::Status st = s.stub->Explain(&ctx, req, &resp);
    EXPECT_EQ(st.error_code(), c.code) << c.pod << c.group;
    EXPECT_EQ(st.error_message(), c.message);
  }
}

TEST(Queues, SharesAndGangs) {
  Served s = Serve(kGang, 1, false);
  v1::QueuesResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Queues(&ctx, v1::QueuesRequest(), &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  std::cerr << resp.DebugString();
  EXPECT_EQ(resp.source(), "last cycle");
  ASSERT_EQ(resp.queues_size(), 1);
  const auto& q = resp.queues(0);
  EXPECT_EQ(q.name(), "default");
  EXPECT_EQ(q.weight(), 1);
  EXPECT_EQ(q.capability(), "");
  EXPECT_EQ(q.pending_gangs(), 1);
  EXPECT_EQ(q.running_gangs(), 1);
}

TEST(Snapshot, ReturnsTheCacheAfterItsCyclesAsAList) {
  Served s = Serve(kGang, 1, false);
  v1::SnapshotResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Snapshot(&ctx, v1::SnapshotRequest(), &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  auto list = nlohmann::json::parse(resp.list_json());
  EXPECT_EQ(list["kind"], "List");
  EXPECT_EQ(list["items"].size(), 19u);  // every object of the dump
  // The cache now, as live mode writes it: the replayed cycle's binds
  // included (bert-large's workers are pending in the file).
  int bert_bound = 0;
  for (const auto& item : list["items"]) {
    const std::string name = item["metadata"].value("name", "");
    if (item["kind"] == "Pod" && name.rfind("bert-large-worker-", 0) == 0 &&
        !item["spec"].value("nodeName", "").empty()) {
      ++bert_bound;
    }
  }
  EXPECT_GT(bert_bound, 0) << resp.list_json();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WhatIf, RefusedUnlessEnabled) {
  Served s = Serve(kPreempt, 0, false);
  v1::WhatIfRequest req;
  req.set_policy_yaml(ReadFile("policies/default.yaml"));
  v1::WhatIfResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->WhatIf(&ctx, req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(st.error_message(),
            "whatif is disabled; start shoal-scheduler with "
            "--admin-allow-whatif");
}

TEST(WhatIf, RunsAnotherPolicyWithoutApplyingIt) {
  Served s = Serve(kPreempt, 0, true);
  const std::string preempting =
      "actions: \"enqueue, allocate, preempt\"\n"
      "tiers:\n"
      "- plugins:\n"
      "  - name: priority\n"
      "  - name: gang\n"
      "- plugins:\n"
      "  - name: predicates\n"
      "  - name: proportion\n";
  v1::WhatIfRequest req;
  req.set_policy_yaml(preempting);
  req.set_policy_name("preempting.yaml");
  v1::WhatIfResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->WhatIf(&ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  std::cerr << resp.DebugString();
  ASSERT_EQ(resp.evictions_size(), 2);
  EXPECT_EQ(resp.evictions(0).preemptor(), "prod/urgent");
  // Nothing was applied: the low pods still run in the cache.
  int running = 0;
  for (const auto& t : s.backend->Snapshot().tasks) {
    if (t.status == api::TaskStatus::kRunning) ++running;
  }
  EXPECT_EQ(running, 3);

  // The gang snapshot under the default policy: one gang bound.
  Served g = Serve(kGang, 0, true);
  v1::WhatIfRequest dreq;
  dreq.set_policy_yaml(ReadFile("policies/default.yaml"));
  v1::WhatIfResponse dresp;
  grpc::ClientContext dctx;
  st = g.stub->WhatIf(&dctx, dreq, &dresp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(dresp.binds_size(), 6);
  ASSERT_EQ(dresp.podgroups_size(), 2);
  EXPECT_EQ(dresp.podgroups(0).podgroup(), "ml-team/bert-large");
}

TEST(WhatIf, BadPolicyNamesFileAndLine) {
  Served s = Serve(kPreempt, 0, true);
  for (const std::string& yaml :
       {std::string("actions: \"allocate\"\ntiers:\n- plugins:\n  - "
                    "name: nosuch\n"),
        std::string("actions: [unclosed\n")}) {
    v1::WhatIfRequest req;
    req.set_policy_yaml(yaml);
    req.set_policy_name("mine.yaml");
    v1::WhatIfResponse resp;
    grpc::ClientContext ctx;
    grpc::Status st = s.stub->WhatIf(&ctx, req, &resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(st.error_message().rfind("mine.yaml:", 0), 0u)
        << st.error_message();
    std::cerr << st.error_message() << "\n";
  }
}

TEST(Server, NonLoopbackWithoutCertificatesIsRefused) {
  auto backend = Load(kPreempt, 0);
  AdminOptions options;
  options.address = "0.0.0.0:0";
  auto server = StartAdminServer(options, *backend);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().message(),
            "--admin-address=0.0.0.0:0 is not a Unix socket or loopback "
            "address, so the admin service needs TLS with client "
            "certificates: pass --admin-tls-cert, --admin-tls-key and "
            "--admin-client-ca");
  options.tls_cert = "/nonexistent/server.crt";
  options.tls_key = "/nonexistent/server.key";
  server = StartAdminServer(options, *backend);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().message(),
            "admin TLS needs all of --admin-tls-cert, --admin-tls-key and "
            "--admin-client-ca");
  EXPECT_EQ(CheckAdminOptions(options), server.status());
  EXPECT_TRUE(IsLocalAddress("unix:///tmp/x.sock"));
  EXPECT_TRUE(IsLocalAddress("127.0.0.1:9000"));
  EXPECT_TRUE(IsLocalAddress("localhost:9000"));
  EXPECT_TRUE(IsLocalAddress("[::1]:9000"));
  EXPECT_FALSE(IsLocalAddress("10.0.0.5:9000"));
  EXPECT_FALSE(IsLocalAddress("[::]:9000"));
}

// A self-signed certificate for `cn` (also valid for localhost and
// 127.0.0.1), as e2e/live's TLS test makes them.
void SelfSigned(const std::string& dir, const std::string& name,
                const std::string& cn) {
  std::string cmd = absl::StrCat(
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=", cn,
      " -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout ", dir, "/",
      name, ".key -out ", dir, "/", name, ".crt 2>/dev/null");
  ASSERT_EQ(system(cmd.c_str()), 0) << cmd;
}

TEST(Server, TlsRequiresAClientCertificate) {
  const std::string dir = Dir();
  SelfSigned(dir, "server", "localhost");
  SelfSigned(dir, "client", "shoalctl");
  auto backend = Load(kPreempt, 0);
  AdminOptions options;
  options.address = "0.0.0.0:0";
  options.tls_cert = dir + "/server.crt";
  options.tls_key = dir + "/server.key";
  options.client_ca = dir + "/client.crt";  // self-signed: its own CA
  auto server = StartAdminServer(options, *backend);
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_GT((*server)->port(), 0);
  const std::string target = absl::StrCat("localhost:", (*server)->port());

  auto call = [&](bool with_cert) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ReadFile(dir + "/server.crt");
    if (with_cert) {
      ssl.pem_cert_chain = ReadFile(dir + "/client.crt");
      ssl.pem_private_key = ReadFile(dir + "/client.key");
    }
    auto stub =
        Admin::NewStub(grpc::CreateChannel(target, grpc::SslCredentials(ssl)));
    v1::QueuesResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(10));
    return stub->Queues(&ctx, v1::QueuesRequest(), &resp);
  };
  grpc::Status without = call(false);
  EXPECT_FALSE(without.ok());
  EXPECT_EQ(without.error_code(), grpc::StatusCode::UNAVAILABLE)
      << without.error_message();
  grpc::Status with = call(true);
  EXPECT_TRUE(with.ok()) << with.error_message();
}

// The live wiring: a CacheBackend over a cache and the real loop, which
// runs cycles while gRPC threads ask.
TEST(CacheBackend, ConcurrentCallsWhileCyclesAreRecorded) {
  absl::Time clock;
  cache::Cache cache("shoal", [&clock] { return clock; });
  std::vector<std::string> warnings;
  ASSERT_TRUE(kube::LoadSnapshotFile(kGang, cache, &warnings).ok());
  clock = cache.LatestCreation();
  auto policy = framework::BuildPolicy(
      DefaultConfig(), plugins::BuiltinPlugins(), actions::BuiltinActions());
  ASSERT_TRUE(policy.ok());
  testing::TestWorld world(cache);
  SchedulerOptions quiet;
  quiet.log_cycles = false;
  Scheduler scheduler(cache, *policy, world, world, quiet);
  CacheBackend backend(
      cache, DefaultConfig(), [] { return "{}"; },
      [&scheduler]() -> std::optional<api::ClusterInfo> {
        auto last = scheduler.last_cycle();
        if (!last) return std::nullopt;
        return last->cluster;
      });
  EXPECT_FALSE(backend.LastCycle().has_value());

  AdminOptions options;
  options.address = absl::StrCat("unix://", Dir(), "/cache-backend.sock");
  auto server = StartAdminServer(options, backend);
  ASSERT_TRUE(server.ok()) << server.status();

  std::atomic<bool> done{false};
  std::thread loop([&] {
    for (int i = 0; i < 20; ++i) scheduler.RunOnce();
    done = true;
  });
  std::vector<std::thread> askers;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i) {
    askers.emplace_back([&] {
      auto stub = Admin::NewStub(grpc::CreateChannel(
          options.address, grpc::InsecureChannelCredentials()));
      for (int n = 0; n < 5; ++n) {
        v1::ExplainRequest req;
        req.set_podgroup("ml-team/resnet-152");
        v1::ExplainResponse resp;
        grpc::ClientContext ctx;
        if (!stub->Explain(&ctx, req, &resp).ok()) ++failures;
        v1::QueuesResponse q;
        grpc::ClientContext qctx;
        if (!stub->Queues(&qctx, v1::QueuesRequest(), &q).ok()) ++failures;
      }
    });
  }
  loop.join();
  for (auto& t : askers) t.join();
  EXPECT_EQ(failures, 0);
  ASSERT_TRUE(backend.LastCycle().has_value());
  v1::SnapshotResponse snap;
  grpc::ClientContext ctx;
  auto stub = Admin::NewStub(
      grpc::CreateChannel(options.address, grpc::InsecureChannelCredentials()));
  ASSERT_TRUE(stub->Snapshot(&ctx, v1::SnapshotRequest(), &snap).ok());
  EXPECT_EQ(snap.list_json(), "{}");
}

// The live wiring again, under the elastic preset: the gang's trainer
// raises its progress 10 per second at 2 pods; the elastic plugin learns
// the rate and explain's Throughput line names the learned curve (from
// the last cycle; the snapshot alone has only the annotation).
TEST(CacheBackend, ExplainNamesTheCurveLearnedFromProgressReports) {
  absl::Time clock;
  cache::Cache cache("shoal", [&clock] { return clock; });
  std::vector<std::string> warnings;
  ASSERT_TRUE(kube::LoadSnapshotFile("scheduler/admin/testdata/"
                                     "elastic_progress.yaml",
                                     cache, &warnings)
                  .ok());
  clock = cache.LatestCreation();
  auto config = framework::LoadSchedulerConfig("policies/elastic.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  ASSERT_TRUE(policy.ok());
  testing::TestWorld world(cache);
  SchedulerOptions quiet;
  quiet.log_cycles = false;
  Scheduler scheduler(cache, *policy, world, world, quiet);
  CacheBackend backend(
      cache, *config, [] { return "{}"; },
      [&scheduler]() -> std::optional<api::ClusterInfo> {
        auto last = scheduler.last_cycle();
        if (!last) return std::nullopt;
        return last->cluster;
      });
  nlohmann::json group = nlohmann::json::parse(R"({
    "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
    "metadata": {"name": "train", "namespace": "ml", "uid": "uid-train",
                 "creationTimestamp": "2026-11-20T08:00:00Z"},
    "spec": {"minMember": 1}, "status": {"phase": "Running"}})");
  for (int minute = 0; minute < 5; ++minute) {
    group["metadata"]["annotations"]["shoal.dev/progress"] =
        absl::StrCat(minute * 600);
    auto job = kube::DecodePodGroup(group, nullptr);
    ASSERT_TRUE(job.ok()) << job.status();
    cache.UpsertPodGroup(*job);
    scheduler.RunOnce();
    clock += absl::Seconds(60);
  }
  Connection admin = Connect(backend);
  ASSERT_NE(admin.server, nullptr);
  v1::ExplainRequest req;
  req.set_podgroup("ml/train");
  v1::ExplainResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(admin.stub->Explain(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.throughput(),
            "2=2 (learned from shoal.dev/progress at 2 pods, relative to one "
            "pod); at 2 pods 2; pod 3 would add 0 (the curve is flat past 2 "
            "pods)");
}

TEST(Crds, WhatTheCrdWatchFoundOrThatItReadNone) {
  // A replay has read no CRD.
  Served replay = Serve(kGang, 0, false);
  v1::CrdsResponse none;
  grpc::ClientContext ctx;
  ASSERT_TRUE(replay.stub->Crds(&ctx, v1::CrdsRequest(), &none).ok());
  EXPECT_FALSE(none.checked());
  EXPECT_EQ(none.crds_size(), 0);
  // The live backend answers what its CRD watch found.
  cache::Cache cache("shoal");
  CacheBackend backend(cache, DefaultConfig(), nullptr, nullptr);
  backend.set_crds([]() -> std::optional<std::vector<CrdFinding>> {
    return std::vector<CrdFinding>{
        {"podgroups.scheduling.volcano.sh",
         {"spec.networkTopology"},
         {"CustomResourceDefinition podgroups.scheduling.volcano.sh: the "
          "schema of v1beta1 has no spec.networkTopology, ..."}},
        {"queues.scheduling.volcano.sh", {}, {}}};
  });
  Connection admin = Connect(backend);
  ASSERT_NE(admin.server, nullptr);
  v1::CrdsResponse found;
  grpc::ClientContext ctx2;
  ASSERT_TRUE(admin.stub->Crds(&ctx2, v1::CrdsRequest(), &found).ok());
  EXPECT_TRUE(found.checked());
  ASSERT_EQ(found.crds_size(), 2);
  EXPECT_EQ(found.crds(0).name(), "podgroups.scheduling.volcano.sh");
  ASSERT_EQ(found.crds(0).pruned_fields_size(), 1);
  EXPECT_EQ(found.crds(0).pruned_fields(0), "spec.networkTopology");
  EXPECT_EQ(found.crds(0).messages_size(), 1);
  EXPECT_EQ(found.crds(1).pruned_fields_size(), 0);
}

TEST(Queues, WeightedShareOfTheCluster) {
  // No cycle: the numbers come from the snapshot. a and b split what c's
  // capability leaves 1:3.
  Served s = Serve(kQueues, 0, false);
  v1::QueuesResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(s.stub->Queues(&ctx, v1::QueuesRequest(), &resp).ok());
  EXPECT_EQ(resp.source(), "current snapshot");
  std::map<std::string, v1::QueueStatus> by_name;
  for (const auto& q : resp.queues()) by_name[q.name()] = q;
  ASSERT_EQ(by_name.size(), 4u);  // and the implicit default queue
  EXPECT_TRUE(by_name["default"].implicit());
  EXPECT_EQ(by_name["c"].capability(), "cpu: 1");
  // Water-filling rounds down each round, as plugins/proportion does.
  EXPECT_EQ(by_name["c"].deserved(), "cpu: 1, pods: 2");
  EXPECT_EQ(by_name["a"].deserved(), "cpu: 2746m, pods: 12");
  EXPECT_EQ(by_name["b"].deserved(), "cpu: 8252m, pods: 12");
  EXPECT_EQ(by_name["a"].request(), "cpu: 12, pods: 12");
  EXPECT_EQ(by_name["a"].share(), 0);
  EXPECT_EQ(by_name["a"].pending_gangs(), 1);
  EXPECT_EQ(by_name["a"].podgroups().at("Pending"), 1);
}

TEST(Server, SocketInUseIsRefusedStaleOneReplaced) {
  auto backend = Load(kPreempt, 0);
  AdminOptions options;
  options.address = absl::StrCat("unix://", Dir(), "/shared.sock");
  auto first = StartAdminServer(options, *backend);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = StartAdminServer(options, *backend);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            absl::StrCat("--admin-address=", options.address,
                         ": another process (a second shoal-scheduler?) "
                         "serves that socket; pick another --admin-address"));
  // Once the first is gone its socket file is stale: the next one serves.
  (*first)->Shutdown();
  auto third = StartAdminServer(options, *backend);
  EXPECT_TRUE(third.ok()) << third.status();
}

// scheduler/admin/testdata/devices.yaml: shares, partitions and their
// counters, taints (a slice's and a DeviceTaintRule's) and a device
// waiting for its binding condition, as `shoalctl devices` prints them.
TEST(Devices, PerNodeSharesPartitionsTaintsAndBindingWaits) {
  Served s = Serve(kDevices, 0, false);
  v1::DevicesResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Devices(&ctx, v1::DevicesRequest(), &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(resp.pools_size(), 2);
  const v1::DevicePool& n1 = resp.pools(0);
  EXPECT_EQ(n1.node(), "n1");
  EXPECT_EQ(n1.reach(), "node n1");
  ASSERT_EQ(n1.devices_size(), 7);
  const v1::DeviceState& shared = n1.devices(0);
  EXPECT_EQ(shared.name(), "gpu-0");
  EXPECT_EQ(shared.state(), "shared");
  EXPECT_EQ(shared.shares(), 2);
  ASSERT_EQ(shared.capacity_size(), 1);
  EXPECT_EQ(shared.capacity(0).used(), "60Gi");
  EXPECT_EQ(shared.capacity(0).total(), "80Gi");
  ASSERT_EQ(n1.counter_sets_size(), 1);
  EXPECT_EQ(n1.counter_sets(0).counters(0).used(), "40Gi");
  EXPECT_EQ(resp.pools(1).devices(0).taints(0).rule(), "drain-n2-gpu-0");

  EXPECT_EQ(DevicesText(resp, false),
            "Node n1\n"
            "  Pool gpu.example.com/n1 (generation 1): 7 devices: 3 allocated "
            "(1 partition, 1 waiting for binding conditions), 1 shared (2 "
            "shares), 1 tainted, 1 kept by spent counters, 1 free\n"
            "  DEVICE         STATE                CLAIMS                     "
            "      DETAIL\n"
            "  gpu-0          shared by 2 claims   ml/share-a-gpu, "
            "ml/share-b-gpu   memory 60Gi/80Gi\n"
            "  gpu-1          tainted              -                          "
            "      gpu.example.com/unhealthy=true:NoSchedule\n"
            "  gpu-2          allocated            ml/train-0-gpu             "
            "      waiting for binding condition dra.example.com/attached\n"
            "  gpu-3          allocated            ml/whole-gpu\n"
            "  gpu-4          counters spent       -                          "
            "      partition of gpu-4-counters\n"
            "  gpu-4-half-0   allocated            ml/half-a-gpu              "
            "      partition of gpu-4-counters\n"
            "  Counters gpu-4-counters: memory 40Gi/80Gi\n"
            "\n"
            "Node n2\n"
            "  Pool gpu.example.com/n2 (generation 1): 1 device: 1 tainted\n"
            "  DEVICE   STATE     CLAIMS   DETAIL\n"
            "  gpu-0    tainted   -        "
            "example.com/maintenance=planned:NoExecute (DeviceTaintRule "
            "drain-n2-gpu-0)\n");
  // --all lists the free half too.
  const std::string all = DevicesText(resp, true);
  EXPECT_NE(all.find("\n  gpu-4-half-1   free                 -        "
                     "                        partition of gpu-4-counters\n"),
            std::string::npos)
      << all;
}

TEST(Devices, OneNodeOrNotFound) {
  Served s = Serve(kDevices, 0, false);
  v1::DevicesRequest req;
  req.set_node("n2");
  v1::DevicesResponse resp;
  grpc::ClientContext ctx;
  grpc::Status st = s.stub->Devices(&ctx, req, &resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(resp.pools_size(), 1);
  EXPECT_EQ(resp.pools(0).node(), "n2");
  req.set_node("nope");
  grpc::ClientContext nctx;
  st = s.stub->Devices(&nctx, req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "node \"nope\" is not in the cache");
}

// A pod waiting on devices: the allocator's reason per node (shares too
// full, counters spent by partitions, taints, a binding condition not
// reported), what its claim asks, and what the refusing node's devices
// hold.
TEST(Explain, DeviceWaitsNameSharesPartitionsTaintsAndBindingConditions) {
  Served s = Serve(kDevices, 0, false);
  auto explain = [&](const std::string& pod) {
    v1::ExplainRequest req;
    req.set_pod(pod);
    v1::ExplainResponse resp;
    grpc::ClientContext ctx;
    grpc::Status st = s.stub->Explain(&ctx, req, &resp);
    EXPECT_TRUE(st.ok()) << st.error_message();
    EXPECT_EQ(resp.pods_size(), 1);
    return resp.pods_size() == 1 ? resp.pods(0) : v1::PodExplanation();
  };
  auto reason = [](const v1::PodExplanation& p, const std::string& node) {
    for (const auto& n : p.nodes()) {
      if (n.node() == node) return absl::StrJoin(n.reasons(), "; ");
    }
    return std::string("no node ") + node;
  };
  const std::vector<std::string> n1_notes = {
      "gpu-0 shared by 2 claims: memory 60Gi/80Gi",
      "counters gpu-4-counters: memory 40Gi/80Gi",
      "3 devices of pool gpu.example.com/n1 allocated whole",
      "gpu-1 tainted gpu.example.com/unhealthy=true:NoSchedule"};

  v1::PodExplanation share = explain("ml/share-c");
  EXPECT_EQ(reason(share, "n1"),
            "claim share-c-gpu, request gpu: no matching device of class "
            "shared.gpu.example.com is free: 1 shared with too little "
            "capacity left");
  EXPECT_EQ(
      std::vector<std::string>(share.claims().begin(), share.claims().end()),
      (std::vector<std::string>{
          "ml/share-c-gpu: not allocated; request gpu: 1 of class "
          "shared.gpu.example.com, capacity memory 30Gi"}));
  ASSERT_EQ(share.devices_size(), 2);
  EXPECT_EQ(share.devices(0).node(), "n1");
  EXPECT_EQ(std::vector<std::string>(share.devices(0).notes().begin(),
                                     share.devices(0).notes().end()),
            n1_notes);

  v1::PodExplanation big = explain("ml/big");
  EXPECT_EQ(reason(big, "n1"),
            "claim big-gpu, request gpu: no matching device of class "
            "whole.gpu.example.com is free: 1 whose shared counters "
            "allocated partitions have spent");

  v1::PodExplanation plain = explain("ml/plain");
  EXPECT_EQ(reason(plain, "n1"),
            "claim plain-gpu, request gpu: no matching device of class "
            "plain.gpu.example.com is free: 2 allocated, 1 with a taint the "
            "request does not tolerate "
            "(gpu.example.com/unhealthy=true:NoSchedule)");
  EXPECT_EQ(reason(plain, "n2"),
            "claim plain-gpu, request gpu: 1 matching device of class "
            "plain.gpu.example.com has a taint the request does not tolerate "
            "(example.com/maintenance=planned:NoExecute)");
  ASSERT_EQ(plain.devices_size(), 2);
  EXPECT_EQ(std::vector<std::string>(plain.devices(1).notes().begin(),
                                     plain.devices(1).notes().end()),
            (std::vector<std::string>{
                "gpu-0 tainted example.com/maintenance=planned:NoExecute "
                "(DeviceTaintRule drain-n2-gpu-0)"}));

  // Waiting for its device to report: the claim's state, the same on
  // every node, so no node's devices are listed.
  v1::PodExplanation train = explain("ml/train-0");
  EXPECT_EQ(train.pod_reason(),
            "pod ml/train-0: resourceclaim ml/train-0-gpu: waiting for device "
            "gpu.example.com/n1/gpu-2 to report binding condition "
            "dra.example.com/attached");
  EXPECT_EQ(
      std::vector<std::string>(train.claims().begin(), train.claims().end()),
      (std::vector<std::string>{
          "ml/train-0-gpu: allocated gpu.example.com/n1/gpu-2; waiting "
          "for binding conditions: gpu-2 has not reported "
          "dra.example.com/attached"}));
  EXPECT_EQ(train.devices_size(), 0);
}

}  // namespace
}  // namespace shoal::admin
