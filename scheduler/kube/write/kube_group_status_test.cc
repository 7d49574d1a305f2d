#include "scheduler/kube/write/kube_group_status.h"

#include <memory>

#include "gtest/gtest.h"
#include "scheduler/api/cluster_builder.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

std::shared_ptr<const api::PodInfo> Pod(const std::string& name,
                                        const std::string& group,
                                        api::TaskStatus status) {
  auto pod = std::make_shared<api::PodInfo>();
  pod->ns = "ml";
  pod->name = name;
  pod->group = group;
  pod->status = status;
  return pod;
}

// A root (minGroupCount 1) over leaves a and b of 2 pods each: a placed
// whole, b not.
api::ClusterInfo Tree() {
  api::JobInfo job;
  job.ns = "ml";
  job.name = "root";
  job.source = api::GroupSource::kCompositeTree;
  job.min_member = 2;
  job.message = "b needs room";
  api::SubGroupPolicy root;
  root.name = "root";
  root.composite = true;
  root.min_groups = 1;
  root.leaves = {{"a", "uid-a", 2, {}, {}}, {"b", "uid-b", 2, {}, {}}};
  job.sub_group_policies = {root};
  api::ClusterBuilder b;
  api::JobIndex j = b.AddJob(job);
  b.AddTask(Pod("a-0", "a", api::TaskStatus::kBound), j);
  b.AddTask(Pod("a-1", "a", api::TaskStatus::kBound), j);
  b.AddTask(Pod("b-0", "b", api::TaskStatus::kPending), j);
  b.AddTask(Pod("b-1", "b", api::TaskStatus::kPending), j);
  return std::move(b).Build();
}

TEST(KubeGroupStatusTest, ATreesVerdictIsWrittenOnEachOfItsObjects) {
  api::ClusterInfo c = Tree();
  std::vector<KubeGroupVerdict> v = KubeGroupVerdicts(
      c, c.jobs[0], "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].Path(),
            "/apis/scheduling.k8s.io/v1alpha3/namespaces/ml/"
            "compositepodgroups/root");
  EXPECT_TRUE(v[0].scheduled);  // one whole leaf is its minimum
  EXPECT_EQ(v[1].name, "a");
  EXPECT_TRUE(v[1].scheduled);
  EXPECT_EQ(v[2].Path(),
            "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups/b");
  EXPECT_FALSE(v[2].scheduled);
  EXPECT_EQ(v[2].message, "b needs room");
  // A tree refused for a rule of the API is scheduled nowhere.
  c.jobs[0].refusal = "every pod of a CompositePodGroup tree must ...";
  c.jobs[0].message = c.jobs[0].refusal;
  v = KubeGroupVerdicts(c, c.jobs[0], "scheduling.k8s.io/v1beta1", "");
  ASSERT_EQ(v.size(), 2u);  // no CompositePodGroup version watched
  EXPECT_FALSE(v[0].scheduled);
  EXPECT_EQ(v[0].message, c.jobs[0].refusal);
}

TEST(KubeGroupStatusTest, ConditionsAsKubeSchedulerWritesThem) {
  KubeGroupVerdict v{
      "scheduling.k8s.io/v1beta1", "podgroups", "ml", "b", false, "no room"};
  json other = {{"type", "DisruptionTarget"}, {"status", "False"}};
  json observed = {{"conditions", json::array({other})}};
  json desired = DesiredKubeGroupStatus(v, observed, kNow);
  ASSERT_TRUE(desired.is_object());
  ASSERT_EQ(desired["conditions"].size(), 2u);
  EXPECT_EQ(desired["conditions"][0], other);  // another writer's, kept
  const json& mine = desired["conditions"][1];
  EXPECT_EQ(mine["type"], "PodGroupInitiallyScheduled");
  EXPECT_EQ(mine["status"], "False");
  EXPECT_EQ(mine["reason"], "Unschedulable");
  EXPECT_EQ(mine["message"], "no room");
  // Said already: nothing to write.
  EXPECT_TRUE(
      DesiredKubeGroupStatus(v, desired, kNow + absl::Seconds(5)).is_null());
  // Scheduled: True, with a new transition time.
  v.scheduled = true;
  v.message.clear();
  json now = DesiredKubeGroupStatus(v, desired, kNow + absl::Seconds(5));
  EXPECT_EQ(now["conditions"][1]["status"], "True");
  EXPECT_EQ(now["conditions"][1]["reason"], "Scheduled");
  // True stays True, whatever comes after.
  v.scheduled = false;
  v.message = "a pod was evicted";
  EXPECT_TRUE(DesiredKubeGroupStatus(v, now, kNow).is_null());
  // 1.36's name, and a composite's.
  v.api_version = "scheduling.k8s.io/v1alpha2";
  EXPECT_EQ(DesiredKubeGroupStatus(v, json(), kNow)["conditions"][0]["type"],
            "PodGroupScheduled");
  v.api_version = "scheduling.k8s.io/v1alpha3";
  v.resource = "compositepodgroups";
  EXPECT_EQ(DesiredKubeGroupStatus(v, json(), kNow)["conditions"][0]["type"],
            "CompositePodGroupInitiallyScheduled");
}

}  // namespace
}  // namespace shoal::kube
