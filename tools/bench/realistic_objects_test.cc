#include "tools/bench/realistic_objects.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/cache/cache.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "scheduler/kube/snapshot/snapshot_writer.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

// The labels the dress adds, which Shoal keeps (selectors may match them).
nlohmann::json WithoutDressLabels(const std::string& list_text) {
  nlohmann::json list = nlohmann::json::parse(list_text);
  for (nlohmann::json& item : list["items"]) {
    nlohmann::json& meta = item["metadata"];
    if (!meta.contains("labels")) continue;
    for (const char* key :
         {"volcano.sh/job-name", "volcano.sh/job-namespace",
          "volcano.sh/queue-name", "beta.kubernetes.io/os", "kubernetes.io/os",
          "beta.kubernetes.io/arch", "kubernetes.io/arch"}) {
      meta["labels"].erase(key);
    }
    if (meta["labels"].empty()) meta.erase("labels");
  }
  return list;
}

// Besides its labels, the dress adds only what Shoal leaves out or reads to
// the same effect: the dressed dump loads into exactly the cluster the
// plain one does, once those labels are taken off.
TEST(RealisticObjectsTest, TheDressedDumpLoadsTheSameClusterAsThePlainOne) {
  SyntheticClusterSpec spec;
  spec.nodes = 100;
  spec.gangs = 20;
  spec.pods_per_gang = 10;
  spec.queues = 3;
  spec.anti_affinity_fraction = 0.2;
  spec.spread_fraction = 0.2;
  spec.host_port_fraction = 0.1;
  cache::Cache original("shoal");
  BuildSyntheticCluster(spec, original);
  const std::string plain = kube::WriteSnapshotList(original);

  const std::string path =
      std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                             : "/tmp") +
      "/dressed.json";
  auto written = WriteRealisticSnapshot(original, path);
  ASSERT_TRUE(written.ok()) << written.status();
  // A pod the size kubectl prints is several times the plain one.
  EXPECT_GT(*written, 4 * plain.size());

  cache::Cache from_plain("shoal"), from_dressed("shoal");
  std::vector<std::string> warnings;
  ASSERT_TRUE(
      kube::LoadSnapshot(plain, "plain.json", from_plain, &warnings).ok());
  absl::Status s = kube::LoadSnapshotFile(path, from_dressed, &warnings);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(warnings.empty());
  const std::string dressed_text = kube::WriteSnapshotList(from_dressed);
  // Every pod carries Volcano's labels, naming its PodGroup's queue.
  nlohmann::json dressed_list = nlohmann::json::parse(dressed_text);
  std::map<std::string, std::string> queue_of_group;
  for (const nlohmann::json& item : dressed_list["items"]) {
    if (item["kind"] == "PodGroup")
      queue_of_group[item["metadata"]["name"]] = item["spec"]["queue"];
  }
  std::set<std::string> queues_labelled;
  int pods = 0;
  for (const nlohmann::json& item : dressed_list["items"]) {
    if (item["kind"] != "Pod") continue;
    ++pods;
    const nlohmann::json& meta = item["metadata"];
    const std::string group =
        meta["annotations"]["scheduling.k8s.io/group-name"];
    EXPECT_EQ(meta["labels"].value("volcano.sh/job-name", ""), group);
    EXPECT_EQ(meta["labels"].value("volcano.sh/queue-name", ""),
              queue_of_group[group])
        << meta.dump();
    queues_labelled.insert(meta["labels"].value("volcano.sh/queue-name", ""));
  }
  EXPECT_EQ(queues_labelled.size(), 3u);
  EXPECT_EQ(pods, 200);
  // Compared whole, not printed: the texts are long.
  EXPECT_TRUE(WithoutDressLabels(dressed_text) ==
              WithoutDressLabels(kube::WriteSnapshotList(from_plain)));
}

}  // namespace
}  // namespace shoal::bench
