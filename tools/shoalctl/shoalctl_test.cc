// shoalctl end to end: the real binary against an in-process admin server
// over the gang-deadlock snapshot after one cycle.
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "policies/default_policy.h"
#include "scheduler/admin/file_backend.h"
#include "scheduler/admin/server.h"

namespace shoal::admin {
namespace {

struct Result {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string Dir() {
  const char* tmp = getenv("TEST_TMPDIR");
  if (tmp != nullptr && std::string(tmp).size() < 60) return tmp;
  char templ[] = "/tmp/shoalctl-test-XXXXXX";
  return mkdtemp(templ);
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class ShoalctlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(Dir());
    auto config = framework::ParseSchedulerConfig(policies::kDefaultPolicy,
                                                  "policies/default.yaml");
    ASSERT_TRUE(config.ok());
    auto b = FileBackend::Load("e2e/snapshots/gang-deadlock.yaml", *config, 1);
    ASSERT_TRUE(b.ok()) << b.status();
    backend_ = b->release();
    AdminOptions options;
    options.address = absl::StrCat("unix://", *dir_, "/admin.sock");
    options.allow_whatif = true;
    auto s = StartAdminServer(options, *backend_);
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = s->release();
  }
  static void TearDownTestSuite() {
    delete server_;
    delete backend_;
  }

  // Runs shoalctl with `args` (shell words) against the server.
  Result Run(const std::string& args, bool with_address = true) {
    const std::string out = *dir_ + "/out", err = *dir_ + "/err";
    std::string cmd = "tools/shoalctl/shoalctl";
    if (with_address) absl::StrAppend(&cmd, " --address=", server_->address());
    absl::StrAppend(&cmd, " ", args, " >", out, " 2>", err);
    Result r;
    int status = system(cmd.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = Slurp(out);
    r.err = Slurp(err);
    return r;
  }

  static std::string* dir_;
  static FileBackend* backend_;
  static AdminServer* server_;
};
std::string* ShoalctlTest::dir_ = nullptr;
FileBackend* ShoalctlTest::backend_ = nullptr;
AdminServer* ShoalctlTest::server_ = nullptr;

// A gang bound to the network: each rack's room for it, as a table.
TEST_F(ShoalctlTest, ExplainPodgroupListsNetworkDomains) {
  auto config = framework::ParseSchedulerConfig(policies::kDefaultPolicy,
                                                "policies/default.yaml");
  ASSERT_TRUE(config.ok());
  auto b =
      FileBackend::Load("e2e/snapshots/network-topology-hard.yaml", *config, 1);
  ASSERT_TRUE(b.ok()) << b.status();
  AdminOptions options;
  options.address = absl::StrCat("unix://", *dir_, "/network.sock");
  auto server = StartAdminServer(options, **b);
  ASSERT_TRUE(server.ok()) << server.status();
  Result r = Run(absl::StrCat("--address=", (*server)->address(),
                              " explain podgroup team/next"),
                 /*with_address=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Network: spec.networkTopology mode hard, "
                       "highestTierName rack; described by HyperNodes\n"
                       "DOMAIN   TIER   ROOM FOR   NEEDS   VERDICT\n"
                       "rack0    1      3          4       short of 1 pod\n"
                       "rack1    1      0          4       short of 4 pods\n"),
            std::string::npos)
      << r.out;
}

// A CompositePodGroup tree named by one of its leaves: its levels as a
// table, indented as the tree is, the waiting leaf named short.
TEST_F(ShoalctlTest, ExplainPodgroupOfATreeTablesItsLevels) {
  auto config = framework::ParseSchedulerConfig(policies::kDefaultPolicy,
                                                "policies/default.yaml");
  ASSERT_TRUE(config.ok());
  auto b = FileBackend::Load("scheduler/admin/testdata/composite_tree.yaml",
                             *config, 1);
  ASSERT_TRUE(b.ok()) << b.status();
  AdminOptions options;
  options.address = absl::StrCat("unix://", *dir_, "/tree.sock");
  auto server = StartAdminServer(options, **b);
  ASSERT_TRUE(server.ok()) << server.status();
  Result r = Run(absl::StrCat("--address=", (*server)->address(),
                              " explain podgroup default/workers-2"),
                 /*with_address=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("CompositePodGroup default/train (queue default): "
                        "Running, 9 ready, 4 pending, minMember 9\n",
                        0),
            0u)
      << r.out;
  EXPECT_NE(
      r.out.find(
          "Groups:\n"
          "GROUP           KIND                NEEDS                 HAS       "
          "            VERDICT\n"
          "train           CompositePodGroup   2 of 2 groups whole   2 whole   "
          "            whole\n"
          "  driver        PodGroup            1 of 1 pods placed    1 placed, "
          "0 pending   whole\n"
          "  workers       CompositePodGroup   2 of 3 groups whole   2 whole   "
          "            whole\n"
          "    workers-0   PodGroup            4 of 4 pods placed    4 placed, "
          "0 pending   whole\n"
          "    workers-1   PodGroup            4 of 4 pods placed    4 placed, "
          "0 pending   whole\n"
          "    workers-2   PodGroup            4 of 4 pods placed    0 placed, "
          "4 pending   short of 4 pods\n"),
      std::string::npos)
      << r.out;
}

// DRA devices (scheduler/admin/testdata/devices.yaml): `devices` per
// node, one node's, and `explain` of a pod waiting on a shared GPU.
TEST_F(ShoalctlTest, DevicesAndExplainOfAPodWaitingOnThem) {
  auto config = framework::ParseSchedulerConfig(policies::kDefaultPolicy,
                                                "policies/default.yaml");
  ASSERT_TRUE(config.ok());
  auto b =
      FileBackend::Load("scheduler/admin/testdata/devices.yaml", *config, 0);
  ASSERT_TRUE(b.ok()) << b.status();
  AdminOptions options;
  options.address = absl::StrCat("unix://", *dir_, "/devices.sock");
  auto server = StartAdminServer(options, **b);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string at = absl::StrCat("--address=", (*server)->address(), " ");

  Result r = Run(at + "devices n2", /*with_address=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Node n2\n"
            "  Pool gpu.example.com/n2 (generation 1): 1 device: 1 tainted\n"
            "  DEVICE   STATE     CLAIMS   DETAIL\n"
            "  gpu-0    tainted   -        "
            "example.com/maintenance=planned:NoExecute (DeviceTaintRule "
            "drain-n2-gpu-0)\n");

  r = Run(at + "devices", /*with_address=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  gpu-0          shared by 2 claims   ml/share-a-gpu, "
                       "ml/share-b-gpu   memory 60Gi/80Gi\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  Counters gpu-4-counters: memory 40Gi/80Gi\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("gpu-4-half-1"), std::string::npos) << r.out;
  r = Run(at + "devices --all", /*with_address=*/false);
  EXPECT_NE(r.out.find("  gpu-4-half-1   free "), std::string::npos) << r.out;

  r = Run(at + "-o json devices n1", /*with_address=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["pools"][0]["devices"][0]["capacity"][0]["used"], "60Gi");

  r = Run(at + "devices nope", /*with_address=*/false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (NotFound): node \"nope\" is not in the "
            "cache\n");

  r = Run(at + "explain pod ml/share-c", /*with_address=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("Claim ml/share-c-gpu: not allocated; request gpu: 1 of class "
                 "shared.gpu.example.com, capacity memory 30Gi\n"
                 "NODE   FITS   WHY / SCORES\n"
                 "n1     no     claim share-c-gpu, request gpu: no matching "
                 "device of class shared.gpu.example.com is free: 1 shared "
                 "with too little capacity left\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Devices on n1: gpu-0 shared by 2 claims: memory "
                       "60Gi/80Gi; counters gpu-4-counters: memory "
                       "40Gi/80Gi; 3 devices of pool gpu.example.com/n1 "
                       "allocated whole; gpu-1 tainted "
                       "gpu.example.com/unhealthy=true:NoSchedule\n"
                       "Devices on n2: gpu-0 tainted "
                       "example.com/maintenance=planned:NoExecute "
                       "(DeviceTaintRule drain-n2-gpu-0)\n"),
            std::string::npos)
      << r.out;
}

TEST_F(ShoalctlTest, ExplainPodgroupTable) {
  Result r = Run("explain podgroup ml-team/resnet-152");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string gpu_message =
      "the gang's minimum does not fit what the cluster can still promise "
      "(nvidia.com/gpu needs 6, 3 left; idle x overcommit-factor 1.2, less "
      "gangs already admitted)";
  EXPECT_EQ(r.out,
            "PodGroup ml-team/resnet-152 (queue default): Pending, 0 ready, 6 "
            "pending, minMember 6\n"
            "Message: waiting for admission: " +
                gpu_message +
                "\n"
                "Blocked: " +
                gpu_message +
                "\n"
                "\n"
                "Pod ml-team/resnet-152-worker-0 (role worker): 2/2 nodes are "
                "available.\n"
                "NODE         FITS   WHY / SCORES\n"
                "gpu-node-a   yes    TaintToleration=0\n"
                "gpu-node-b   yes    TaintToleration=0\n"
                "\n"
                "Gang: 2 of 6 pods the gang still needs fit in the free room "
                "now; one more node like gpu-node-a (cpu: 63500m, memory: "
                "503Gi, pods: 110, nvidia.com/gpu: 4) would let the gang "
                "run\n");
}

TEST_F(ShoalctlTest, ExplainJson) {
  Result r = Run("-o json explain pod ml-team/resnet-152-worker-1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "pod");
  EXPECT_EQ(j["podgroup"], "ml-team/resnet-152");
  EXPECT_EQ(j["pods"][0]["pod"], "ml-team/resnet-152-worker-1");
  EXPECT_EQ(j["pods"][0]["nodes"].size(), 2u);
  EXPECT_EQ(j["pods"][0]["nodes"][0]["node"], "gpu-node-a");

  r = Run("--output=yaml explain pod ml-team/resnet-152-worker-1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kind: pod\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    role: worker\n"), std::string::npos) << r.out;
}

TEST_F(ShoalctlTest, NotFound) {
  Result r = Run("explain pod ml-team/x");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "Error from server (NotFound): pod \"ml-team/x\" is not pending in "
            "Shoal (not in the cache, or its schedulerName is not Shoal's)\n");
}

TEST_F(ShoalctlTest, Queues) {
  Result r = Run("queues");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      "NAME      WEIGHT   STATE   SHARE   PENDING   RUNNING   DESERVED    "
      "                                          ALLOCATED               "
      "                            BORROWED   LENT                      "
      "                          CAPABILITY\n"
      "default   1        Open    0.75    1         1         cpu: 48, "
      "memory: 192Gi, pods: 12, nvidia.com/gpu: 8   cpu: 24, memory: "
      "96Gi, pods: 6, nvidia.com/gpu: 6   none       cpu: 24, memory: 96Gi, "
      "pods: 6, nvidia.com/gpu: 2   unlimited\n");
  r = Run("queues -o json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["queues"][0]["name"], "default");
  EXPECT_EQ(j["queues"][0]["runningGangs"], 1);
  EXPECT_EQ(j["source"], "last cycle");
}

TEST_F(ShoalctlTest, Snapshot) {
  Result r = Run("snapshot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "List");
  EXPECT_EQ(j["items"].size(), 19u);
}

TEST_F(ShoalctlTest, WhatIf) {
  Result r = Run("whatif --policy=policies/default.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("PODGROUP             PHASE     MESSAGE\n"
                       "ml-team/bert-large   Running\n"
                       "ml-team/resnet-152   Pending   waiting for admission"),
            std::string::npos)
      << r.out;
  const std::string bad = *dir_ + "/bad.yaml";
  std::ofstream(bad) << "actions: \"allocate, nosuch\"\n";
  r = Run("whatif --policy " + bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("Error from server (BadRequest): " + bad + ":1", 0), 0u)
      << r.err;
}

TEST_F(ShoalctlTest, Unreachable) {
  const std::string address = "unix://" + *dir_ + "/nobody.sock";
  Result r = Run("--address=" + address + " queues", false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind(
                "shoalctl: cannot reach the scheduler at " + address + ": ", 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("(is shoal-scheduler running with --admin-address=" +
                       address + "?)\n"),
            std::string::npos)
      << r.err;
}

TEST_F(ShoalctlTest, UsageErrors) {
  Result r = Run("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind(
                "shoalctl: unknown command \"frobnicate\"\n\nshoalctl: ask", 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("shoalctl explain pod NAMESPACE/NAME"),
            std::string::npos);
  r = Run("--help", false);
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub :
       {"explain pod", "explain podgroup", "queues", "devices [NODE]",
        "snapshot", "whatif --policy=FILE"}) {
    EXPECT_NE(r.out.find(absl::StrCat("shoalctl ", sub)), std::string::npos)
        << sub;
  }
  r = Run("queues -o xml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err.rfind("shoalctl: -o must be table, json or yaml, got \"xml\"", 0),
      0u);
  r = Run("--address=10.1.2.3:7070 queues", false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pass --tls-ca, --tls-cert and --tls-key"),
            std::string::npos);
}

TEST_F(ShoalctlTest, RemoteOverTls) {
  const std::string dir = *dir_;
  for (const auto& [name, cn] :
       {std::pair<std::string, std::string>{"server", "localhost"},
        {"client", "shoalctl"}}) {
    std::string cmd = absl::StrCat(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=", cn,
        " -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout ", dir, "/",
        name, ".key -out ", dir, "/", name, ".crt 2>/dev/null");
    ASSERT_EQ(system(cmd.c_str()), 0) << cmd;
  }
  AdminOptions options;
  options.address = "0.0.0.0:0";
  options.tls_cert = dir + "/server.crt";
  options.tls_key = dir + "/server.key";
  options.client_ca = dir + "/client.crt";
  auto server = StartAdminServer(options, *backend_);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = absl::StrCat("localhost:", (*server)->port());
  Result r = Run(
      absl::StrCat("--address=", address, " --tls-ca=", dir,
                   "/server.crt --tls-cert=", dir,
                   "/client.crt --tls-key=", dir, "/client.key queues -o json"),
      false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["queues"][0]["name"], "default");
  // Without a client certificate the handshake fails.
  r = Run(absl::StrCat("--address=", address, " --tls-ca=", dir,
                       "/server.crt --timeout=5 queues"),
          false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.err.rfind("shoalctl: cannot reach the scheduler at " + address, 0), 0u)
      << r.err;
}

}  // namespace
}  // namespace shoal::admin
