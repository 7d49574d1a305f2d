// Live mode against a loopback HTTP server that answers list and watch
// for every kind Shoal reads and records bindings.
#include "scheduler/live.h"

#include <map>
#include <mutex>
#include <thread>

#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/config.h"

namespace shoal {
namespace {

using nlohmann::json;

json List(json items) {
  return {{"kind", "List"},
          {"metadata", {{"resourceVersion", "100"}}},
          {"items", std::move(items)}};
}

json Pod(const std::string& name) {
  return {
      {"metadata",
       {{"name", name},
        {"namespace", "ml"},
        {"uid", name},
        {"annotations", {{"scheduling.k8s.io/group-name", "train"}}}}},
      {"spec",
       {{"schedulerName", "shoal"},
        {"containers",
         {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}},
      {"status", {{"phase", "Pending"}}}};
}

class FakeApiServer {
 public:
  FakeApiServer() {
    Kind(
        "/api/v1/nodes",
        List(
            {{{"metadata", {{"name", "n1"}}},
              {"status",
               {{"allocatable", {{"cpu", "4"}, {"pods", "110"}}},
                {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}}}));
    // Two of shoal's pods in a gang of two, and another scheduler's pod.
    json other = Pod("web");
    other["spec"]["schedulerName"] = "default-scheduler";
    Kind("/api/v1/pods", List({Pod("train-0"), Pod("train-1"), other}));
    Kind("/apis/scheduling.volcano.sh/v1beta1/podgroups",
         List({{{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", "train"}, {"namespace", "ml"}}},
                {"spec", {{"minMember", 2}}},
                {"status", {{"phase", "Inqueue"}}}}}));
    Kind("/apis/scheduling.volcano.sh/v1beta1/queues", List(json::array()));
    Kind("/apis/scheduling.k8s.io/v1/priorityclasses", List(json::array()));
    Kind("/api/v1/namespaces", List(json::array()));
    Kind("/api/v1/persistentvolumeclaims", List(json::array()));
    Kind("/api/v1/persistentvolumes", List(json::array()));
    Kind("/apis/storage.k8s.io/v1/storageclasses", List(json::array()));
    Kind("/apis/storage.k8s.io/v1/csinodes", List(json::array()));
    // scheduler-plugins' CRD is not installed: 404.
    server_.Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding)",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   std::lock_guard<std::mutex> lock(mu_);
                   binds_[req.matches[2]].push_back(
                       json::parse(req.body)["target"]["name"]);
                   res.status = 201;
                   res.set_content("{}", "application/json");
                 });
    // A thread for every informer's watch and then some, as a real
    // server has: httplib's default pool (8 on this machine) would make
    // lists wait behind the long-polling watches of the other kinds.
    server_.new_task_queue = [] { return new httplib::ThreadPool(64); };
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeApiServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }
  std::map<std::string, std::vector<std::string>> binds() {
    std::lock_guard<std::mutex> lock(mu_);
    return binds_;
  }

 private:
  // A list, and a watch that stays quiet for a while and ends, as a real
  // server's does at its timeout.
  void Kind(const std::string& path, json list) {
    server_.Get(path,
                [list](const httplib::Request& req, httplib::Response& res) {
                  if (req.has_param("watch")) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    res.set_content("", "application/json");
                    return;
                  }
                  res.set_content(list.dump(), "application/json");
                });
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::map<std::string, std::vector<std::string>> binds_;
};

TEST(LiveTest, BindsTheGangOnceAndNeverAgain) {
  FakeApiServer api;
  auto config = framework::ParseSchedulerConfig(
      "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n  - "
      "name: predicates\n",
      "test.yaml");
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  ASSERT_TRUE(policy.ok());
  kube::ConnectionConfig connection;
  connection.server = api.url();
  LiveOptions options;
  options.period = absl::Milliseconds(50);
  options.sync_timeout = absl::Seconds(10);
  std::atomic<bool> stop{false};
  absl::Status result;
  std::thread live(
      [&] { result = RunLive(connection, *policy, options, stop); });
  for (int i = 0; i < 200 && api.binds().size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Several more cycles: the fake never shows the pods bound, so only the
  // cache's assumed binds keep them from being bound again.
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  stop = true;
  live.join();
  ASSERT_TRUE(result.ok()) << result;
  EXPECT_EQ(api.binds(), (std::map<std::string, std::vector<std::string>>{
                             {"train-0", {"n1"}}, {"train-1", {"n1"}}}));
}

TEST(LiveTest, AnUnreachableServerIsReportedNotWaitedForForever) {
  auto config =
      framework::ParseSchedulerConfig("actions: allocate\n", "test.yaml");
  auto policy = framework::BuildPolicy(*config, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  ASSERT_TRUE(policy.ok());
  kube::ConnectionConfig connection;
  connection.server = "http://127.0.0.1:1";
  LiveOptions options;
  options.sync_timeout = absl::Milliseconds(300);
  std::atomic<bool> stop{false};
  absl::Status s = RunLive(connection, *policy, options, stop);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.message(),
            "could not list nodes from http://127.0.0.1:1 within 300ms");
}

}  // namespace
}  // namespace shoal
