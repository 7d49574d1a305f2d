#include "scheduler/api/labels.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace shoal::api {
namespace {

TEST(LabelsTest, AreSortedByKeyAndFoundByKey) {
  Labels l({{"zone", "a"}, {"app", "web"}, {"tier", "front"}});
  ASSERT_EQ(l.pairs().size(), 3u);
  EXPECT_EQ(l.pairs()[0].first, "app");
  EXPECT_EQ(l.pairs()[2].first, "zone");
  ASSERT_NE(l.Find("tier"), nullptr);
  EXPECT_EQ(*l.Find("tier"), "front");
  EXPECT_EQ(l.Find("tie"), nullptr);
  EXPECT_EQ(l.Find("zzz"), nullptr);
}

TEST(LabelsTest, ARepeatedKeyKeepsOneValue) {
  Labels l({{"k", "b"}, {"k", "a"}});
  ASSERT_EQ(l.pairs().size(), 1u);
  EXPECT_EQ(*l.Find("k"), "a");
}

TEST(LabelsTest, NoLabelsIsOneValue) {
  EXPECT_TRUE(Labels().empty());
  EXPECT_TRUE(Labels(Labels::Pairs{}).empty());
  EXPECT_EQ(Labels(), Labels(Labels::Pairs{}));
  EXPECT_TRUE(Labels().pairs().empty());
  EXPECT_EQ(Labels().Find("k"), nullptr);
}

TEST(LabelsTest, EqualContentsAreStoredOnce) {
  const size_t before = Labels::Stats().alive;
  std::vector<Labels> gang;
  for (int i = 0; i < 50; ++i) {
    // Given in different orders: the same set once sorted.
    gang.push_back(i % 2 ? Labels({{"job", "j1"}, {"queue", "q"}})
                         : Labels({{"queue", "q"}, {"job", "j1"}}));
  }
  Labels other({{"job", "j2"}, {"queue", "q"}});
  EXPECT_EQ(Labels::Stats().alive, before + 2);
  EXPECT_EQ(gang[0], gang[49]);
  EXPECT_EQ(&gang[0].pairs(), &gang[1].pairs());
  EXPECT_FALSE(gang[0] == other);
}

TEST(LabelsTest, ASetLivesAsLongAsSomeLabelsNameIt) {
  const size_t before = Labels::Stats().alive;
  {
    Labels a(Labels::Pairs{{"unique-to-this-test", "1"}});
    Labels copy = a;
    EXPECT_EQ(Labels::Stats().alive, before + 1);
    a = Labels();
    EXPECT_EQ(Labels::Stats().alive, before + 1);  // the copy keeps it
    EXPECT_EQ(*copy.Find("unique-to-this-test"), "1");
  }
  EXPECT_EQ(Labels::Stats().alive, before);
  // Made again after it died: a new set with the same content.
  Labels again(Labels::Pairs{{"unique-to-this-test", "1"}});
  EXPECT_EQ(*again.Find("unique-to-this-test"), "1");
}

// A long-running scheduler sees pods with labels unique to them come and
// go (pod-template hashes, replica indexes): the table must not keep an
// entry for each one that ever existed.
TEST(LabelsTest, TheTableDoesNotGrowWithSetsThatDied) {
  for (int round = 0; round < 20; ++round) {
    std::vector<Labels> alive;
    for (int i = 0; i < 5000; ++i) {
      alive.emplace_back(
          Labels::Pairs{{"pod-template-hash", absl::StrCat(round, "-", i)}});
    }
  }
  Labels::TableStats stats = Labels::Stats();
  // 100,000 sets were made; the table holds at most a sweep's worth.
  EXPECT_LE(stats.entries, 2 * 5000 + 2048u) << stats.alive;
}

TEST(LabelsTest, ThreadsMakeAndDropTheSameSetsSafely) {
  std::vector<std::thread> threads;
  std::vector<std::vector<Labels>> kept(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &kept] {
      for (int i = 0; i < 20000; ++i) {
        Labels l({{"job", absl::StrCat("j", i % 97)}, {"t", "x"}});
        if (i % 1000 == t) kept[t].push_back(l);
        EXPECT_EQ(*l.Find("job"), absl::StrCat("j", i % 97));
      }
    });
  }
  for (auto& t : threads) t.join();
  // Equal contents made on different threads are one set.
  for (int t = 1; t < 4; ++t) {
    ASSERT_EQ(kept[t].size(), kept[0].size());
  }
  Labels j1({{"job", "j1"}, {"t", "x"}});
  int shared = 0;
  for (const auto& per_thread : kept) {
    for (const Labels& l : per_thread) {
      if (*l.Find("job") == "j1") {
        EXPECT_EQ(&l.pairs(), &j1.pairs());
        ++shared;
      }
    }
  }
  EXPECT_GT(shared, 0);
}

}  // namespace
}  // namespace shoal::api
