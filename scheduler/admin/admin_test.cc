// The admin service through a real gRPC channel: an in-process server on
// a Unix socket (and, for TLS, on a TCP port) over backends loaded from
// snapshot files.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "plugins/builtin.h"
#include "policies/default_policy.h"
#include "proto/admin.grpc.pb.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/admin/file_backend.h"
#include "scheduler/admin/server.h"
#include "scheduler/explain.h"

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

struct Served {
  std::unique_ptr<FileBackend> backend;
  std::unique_ptr<AdminServer> server;
  std::unique_ptr<Admin::Stub> stub;
};

Served Serve(const std::string& file, int cycles, bool whatif) {
  Served s;
  s.backend = Load(file, cycles);
  AdminOptions options;
  static int n = 0;
  options.address = absl::StrCat("unix://", Dir(), "/admin-", ++n, ".sock");
  options.allow_whatif = whatif;
  auto server = StartAdminServer(options, *s.backend);
  EXPECT_TRUE(server.ok()) << server.status();
  s.server = std::move(*server);
  s.stub = Admin::NewStub(
      grpc::CreateChannel(options.address, grpc::InsecureChannelCredentials()));
  return s;
}

constexpr char kGang[] = "e2e/snapshots/gang-deadlock.yaml";
constexpr char kPreempt[] = "scheduler/admin/testdata/preempt.yaml";

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

}  // namespace
}  // namespace shoal::admin
