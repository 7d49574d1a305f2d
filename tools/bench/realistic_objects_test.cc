#include "tools/bench/realistic_objects.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/cache/cache.h"
#include "scheduler/kube/snapshot_file.h"
#include "scheduler/kube/snapshot_writer.h"
#include "tools/bench/synthetic_cluster.h"

namespace shoal::bench {
namespace {

// The dress adds only what Shoal leaves out or reads to the same effect:
// the dressed dump loads into exactly the cluster the plain one does.
TEST(RealisticObjectsTest, TheDressedDumpLoadsTheSameClusterAsThePlainOne) {
  SyntheticClusterSpec spec;
  spec.nodes = 100;
  spec.gangs = 20;
  spec.pods_per_gang = 10;
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
  // Compared whole, not printed: the texts are long.
  EXPECT_TRUE(kube::WriteSnapshotList(from_dressed) ==
              kube::WriteSnapshotList(from_plain));
}

}  // namespace
}  // namespace shoal::bench
