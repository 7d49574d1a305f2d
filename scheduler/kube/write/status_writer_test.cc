// The status writer against the test API server: what it writes, that it
// writes only on change, and that a conflict is retried on a fresh object
// without losing another writer's condition.
#include "scheduler/kube/write/status_writer.h"

#include "e2e/emulator/api_server.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace shoal::kube {
namespace {

using nlohmann::json;

constexpr char kGroupPath[] =
    "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups";

class StatusWriterTest : public ::testing::Test {
 protected:
  StatusWriterTest() : server_(emulator::ApiServerOptions{}) {
    connection_.server =
        "http://127.0.0.1:" + std::to_string(server_.Start("127.0.0.1", 0));
    client_ = std::make_unique<HttpClient>(connection_);
    pool_ = std::make_unique<RequestPool>(connection_, 2);
    event_pool_ = std::make_unique<RequestPool>(connection_, 1);
    events_ = std::make_unique<EventRecorder>(*event_pool_, "shoal", "test");
    writer_ = std::make_unique<StatusWriter>(*pool_, *events_);
  }
  ~StatusWriterTest() override {
    writer_.reset();
    events_.reset();
    event_pool_.reset();
    pool_.reset();
    client_.reset();
    server_.Stop();
  }

  json Call(const std::string& method, const std::string& path,
            const json& body = nullptr,
            const std::string& type = "application/json") {
    auto r =
        client_->Request(method, path, body.is_null() ? "" : body.dump(), type);
    EXPECT_TRUE(r.ok() && r->status < 300)
        << (r.ok() ? r->body : r.status().ToString());
    return json::parse(r->body);
  }

  // A gang of two, as the session leaves it.
  api::ClusterInfo Gang(api::PodGroupPhase phase, int running,
                        const std::string& message) {
    api::ClusterInfo cluster;
    api::JobInfo job;
    job.ns = "default";
    job.name = "g";
    job.min_member = 2;
    job.phase = phase;
    job.message = message;
    job.count_by_status[static_cast<int>(api::TaskStatus::kRunning)] = running;
    cluster.jobs.push_back(job);
    return cluster;
  }
  void Publish(const api::ClusterInfo& cluster) {
    writer_->Publish(cluster);
    pool_->Wait();
    event_pool_->Wait();
  }

  emulator::ApiServer server_;
  ConnectionConfig connection_;
  std::unique_ptr<HttpClient> client_;
  std::unique_ptr<RequestPool> pool_, event_pool_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<StatusWriter> writer_;
};

TEST_F(StatusWriterTest,
       WritesPodGroupStatusOnceAndRetriesAConflictOnAFreshObject) {
  json group =
      Call("POST", kGroupPath,
           {{"metadata", {{"name", "g"}}}, {"spec", {{"minMember", 2}}}});
  writer_->ObservePodGroup(group);
  const std::string why =
      "2/2 tasks in gang unschedulable: 0/1 nodes are available: 1 "
      "Insufficient cpu.";
  Publish(Gang(api::PodGroupPhase::kInqueue, 0, why));
  json status = Call("GET", std::string(kGroupPath) + "/g")["status"];
  EXPECT_EQ(status["phase"], "Inqueue");
  ASSERT_EQ(status["conditions"].size(), 1u);
  EXPECT_EQ(status["conditions"][0]["type"], "Unschedulable");
  EXPECT_EQ(status["conditions"][0]["reason"], "NotEnoughResources");
  EXPECT_EQ(status["conditions"][0]["message"], why);
  EXPECT_EQ(writer_->writes(), 1);

  // Nothing changed: nothing written.
  Publish(Gang(api::PodGroupPhase::kInqueue, 0, why));
  EXPECT_EQ(writer_->writes(), 1);

  // Another writer adds a condition; the writer's view is now stale, so
  // its next write is refused with 409 and redone on the fresh object.
  Call("PATCH", std::string(kGroupPath) + "/g/status",
       {{"status",
         {{"conditions",
           {status["conditions"][0],
            {{"type", "Audited"}, {"status", "True"}}}}}}},
       "application/merge-patch+json");
  Publish(Gang(api::PodGroupPhase::kRunning, 2, ""));
  status = Call("GET", std::string(kGroupPath) + "/g")["status"];
  EXPECT_EQ(status["phase"], "Running");
  EXPECT_EQ(status["running"], 2);
  std::map<std::string, std::string> conditions;
  for (const json& c : status["conditions"])
    conditions[c["type"]] = c["status"];
  EXPECT_EQ(conditions,
            (std::map<std::string, std::string>{{"Audited", "True"},
                                                {"Scheduled", "True"},
                                                {"Unschedulable", "False"}}));
  EXPECT_EQ(writer_->writes(), 2);
}

TEST_F(StatusWriterTest, WaitingPodGetsUnschedulableConditionAndOneEvent) {
  json pod = Call("POST", "/api/v1/namespaces/default/pods",
                  {{"metadata", {{"name", "p"}}},
                   {"spec",
                    {{"schedulerName", "shoal"},
                     {"containers", {{{"name", "c"}, {"image", "pause"}}}}}}});
  writer_->ObservePod(pod);
  api::ClusterInfo cluster;
  api::JobInfo job;
  job.ns = "default";
  job.name = "p";
  job.source = api::GroupSource::kSinglePod;
  job.message = "0/3 nodes are available: 3 Insufficient cpu.";
  job.tasks = {0};
  job.count_by_status[static_cast<int>(api::TaskStatus::kPending)] = 1;
  cluster.jobs.push_back(job);
  // And a gang of 2 of which only one pod exists: it waits for its
  // sibling, so its pod is not marked.
  json lonely =
      Call("POST", "/api/v1/namespaces/default/pods",
           {{"metadata", {{"name", "q"}}},
            {"spec",
             {{"schedulerName", "shoal"},
              {"containers", {{{"name", "c"}, {"image", "pause"}}}}}}});
  writer_->ObservePod(lonely);
  api::JobInfo gang = job;
  gang.name = "g";
  gang.source = api::GroupSource::kVolcano;
  gang.min_member = 2;
  gang.tasks = {1};
  gang.message = "not enough pods for the gang: 1 exist, spec.minMember is 2";
  cluster.jobs.push_back(gang);
  for (const char* name : {"p", "q"}) {
    auto info = std::make_shared<api::PodInfo>();
    info->ns = "default";
    info->name = name;
    api::TaskInfo task;
    task.pod = info;
    task.job = static_cast<api::JobIndex>(cluster.tasks.size());
    cluster.tasks.push_back(task);
  }
  Publish(cluster);
  Publish(cluster);  // unchanged: no second write, no second event
  json conditions =
      Call("GET", "/api/v1/namespaces/default/pods/p")["status"]["conditions"];
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0]["type"], "PodScheduled");
  EXPECT_EQ(conditions[0]["status"], "False");
  EXPECT_EQ(conditions[0]["reason"], "Unschedulable");
  EXPECT_EQ(conditions[0]["message"], job.message);
  json events = Call("GET", "/api/v1/namespaces/default/events")["items"];
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["reason"], "FailedScheduling");
  EXPECT_EQ(events[0]["type"], "Warning");
  EXPECT_EQ(events[0]["involvedObject"]["name"], "p");
  EXPECT_EQ(events[0]["message"], job.message);
  EXPECT_EQ(writer_->writes(), 1);
  EXPECT_FALSE(
      Call("GET", "/api/v1/namespaces/default/pods/q")["status"].contains(
          "conditions"));
}

// A gang of Kubernetes' own API (a Workload's podGroup) has no PodGroup
// status of Shoal's to say why it waits: its pods say it, even while the
// gang is short of pods.
TEST_F(StatusWriterTest, AWorkloadGangShortOfPodsSaysSoOnItsPods) {
  json pod = Call("POST", "/api/v1/namespaces/default/pods",
                  {{"metadata", {{"name", "w-0"}}},
                   {"spec",
                    {{"schedulerName", "shoal"},
                     {"containers", {{{"name", "c"}, {"image", "pause"}}}}}}});
  writer_->ObservePod(pod);
  api::ClusterInfo cluster;
  api::JobInfo gang;
  gang.ns = "default";
  gang.name = "train/workers";
  gang.source = api::GroupSource::kWorkload;
  gang.owner = {"scheduling.k8s.io/v1alpha1", "Workload", "train", "w1"};
  gang.min_member = 4;
  gang.tasks = {0};
  gang.count_by_status[static_cast<int>(api::TaskStatus::kPending)] = 1;
  gang.message =
      "not enough pods for the gang: 1 exist, the Workload's "
      "podGroups[].policy.gang.minCount is 4";
  cluster.jobs.push_back(gang);
  auto info = std::make_shared<api::PodInfo>();
  info->ns = "default";
  info->name = "w-0";
  api::TaskInfo task;
  task.pod = info;
  task.job = 0;
  cluster.tasks.push_back(task);
  Publish(cluster);
  json conditions = Call(
      "GET", "/api/v1/namespaces/default/pods/w-0")["status"]["conditions"];
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0]["type"], "PodScheduled");
  EXPECT_EQ(conditions[0]["message"], gang.message);
  // The Workload gets one Event naming the podGroup, not one per cycle.
  Publish(cluster);
  json events = Call("GET", "/api/v1/namespaces/default/events")["items"];
  int on_workload = 0;
  for (const json& e : events) {
    if (e["involvedObject"]["kind"] != "Workload") continue;
    ++on_workload;
    EXPECT_EQ(e["involvedObject"]["name"], "train");
    EXPECT_EQ(e["reason"], "FailedScheduling");
    EXPECT_EQ(e["message"], "podGroup workers: " + gang.message);
  }
  EXPECT_EQ(on_workload, 1);
}

// Volcano's PodGroup CRD declares no status subresource, and its schema
// has no elasticTarget: the status is written through the PodGroup
// itself, and the pruned field is not written again every cycle.
TEST_F(StatusWriterTest,
       WritesThroughThePodGroupWhenTheCrdHasNoStatusSubresource) {
  json status_schema = {
      {"type", "object"},
      {"properties",
       {{"phase", {{"type", "string"}}},
        {"running", {{"type", "integer"}}},
        {"succeeded", {{"type", "integer"}}},
        {"failed", {{"type", "integer"}}},
        {"conditions",
         {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"x-kubernetes-preserve-unknown-fields", true}}}}}}}};
  json schema = {
      {"type", "object"},
      {"properties",
       {{"metadata", {{"type", "object"}}},
        {"spec",
         {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}},
        {"status", status_schema}}}};
  Call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
       {{"metadata", {{"name", "podgroups.scheduling.volcano.sh"}}},
        {"spec",
         {{"group", "scheduling.volcano.sh"},
          {"scope", "Namespaced"},
          {"names", {{"kind", "PodGroup"}, {"plural", "podgroups"}}},
          {"versions",
           {{{"name", "v1beta1"},
             {"served", true},
             {"storage", true},
             {"subresources", json::object()},
             {"schema", {{"openAPIV3Schema", schema}}}}}}}}});
  json group =
      Call("POST", kGroupPath,
           {{"metadata", {{"name", "g"}}}, {"spec", {{"minMember", 2}}}});
  writer_->ObservePodGroup(group);
  // An elastic gang: three pods, minMember 2, all running.
  api::ClusterInfo cluster = Gang(api::PodGroupPhase::kRunning, 3, "");
  cluster.jobs[0].tasks = {0, 1, 2};
  cluster.jobs[0].elastic_target = 3;
  Publish(cluster);
  json status = Call("GET", std::string(kGroupPath) + "/g")["status"];
  EXPECT_EQ(status["phase"], "Running");
  EXPECT_EQ(status["running"], 3);
  EXPECT_FALSE(status.contains("elasticTarget"));  // pruned
  EXPECT_EQ(writer_->writes(), 1);
  Publish(cluster);
  EXPECT_EQ(writer_->writes(), 1);
  // What changes is written again.
  cluster.jobs[0].count_by_status[static_cast<int>(api::TaskStatus::kRunning)] =
      2;
  cluster.jobs[0]
      .count_by_status[static_cast<int>(api::TaskStatus::kSucceeded)] = 1;
  Publish(cluster);
  EXPECT_EQ(Call("GET", std::string(kGroupPath) + "/g")["status"]["succeeded"],
            1);
  EXPECT_EQ(writer_->writes(), 2);
}

}  // namespace
}  // namespace shoal::kube
