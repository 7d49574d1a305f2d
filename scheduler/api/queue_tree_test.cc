#include "scheduler/api/queue_tree.h"

#include <string>

#include "gtest/gtest.h"
#include "scheduler/api/cluster_builder.h"

namespace shoal::api {
namespace {

Resource Cpu(int64_t milli) {
  Resource r;
  r.Set(kCpu, milli);
  return r;
}

QueueInfo Queue(const std::string& name, const std::string& parent = "") {
  QueueInfo q;
  q.name = name;
  q.parent = parent;
  return q;
}

ClusterInfo Build(std::vector<QueueInfo> queues) {
  ClusterBuilder b;
  for (QueueInfo& q : queues) b.AddQueue(std::move(q));
  return std::move(b).Build();
}

const QueueInfo& Named(const ClusterInfo& c, const std::string& name) {
  return c.queues[c.FindQueue(name)];
}

TEST(QueueTree, FlatQueuesStayFlatWithoutRootOrParents) {
  ClusterInfo c = Build({Queue("a"), Queue("b")});
  EXPECT_EQ(c.FindQueue(kRootQueue), kNone);
  for (const QueueInfo& q : c.queues) {
    EXPECT_EQ(q.parent_index, kNone) << q.name;
    EXPECT_TRUE(q.tree_error.empty()) << q.name;
    EXPECT_EQ(QueuePlacementError(c, q.index), "") << q.name;
  }
}

TEST(QueueTree, ANamedParentBringsAnImplicitRootAboveTopLevelQueues) {
  ClusterInfo c = Build({Queue("eng"), Queue("ml", "eng"), Queue("ops")});
  const QueueInfo& root = Named(c, kRootQueue);
  EXPECT_TRUE(root.implicit);
  EXPECT_EQ(Named(c, "eng").parent_index, root.index);
  EXPECT_EQ(Named(c, "ops").parent_index, root.index);
  EXPECT_EQ(Named(c, "default").parent_index, root.index);
  EXPECT_EQ(Named(c, "ml").parent_index, Named(c, "eng").index);
  EXPECT_EQ(Named(c, "ml").depth, 2);
  EXPECT_EQ(Named(c, "eng").children,
            std::vector<int32_t>{Named(c, "ml").index});
  EXPECT_EQ(QueuePlacementError(c, Named(c, "ml").index), "");
  EXPECT_EQ(QueuePlacementError(c, Named(c, "eng").index),
            "queue \"eng\" has child queues (ml); only a leaf queue holds "
            "jobs");
}

TEST(QueueTree, AMissingParentFailsItsQueueAndEverythingBelow) {
  ClusterInfo c =
      Build({Queue("ml", "eng"), Queue("vision", "ml"), Queue("ops")});
  const std::string why =
      "queue \"ml\" names parent \"eng\" (spec.parent), which does not exist";
  EXPECT_EQ(Named(c, "ml").tree_error, why);
  EXPECT_EQ(Named(c, "vision").tree_error, why);
  EXPECT_EQ(QueuePlacementError(c, Named(c, "vision").index), why);
  EXPECT_EQ(Named(c, "ops").tree_error, "");
}

TEST(QueueTree, ACycleNamesEveryQueueOnItAndFailsWhatHangsBelow) {
  ClusterInfo c = Build({Queue("a", "b"), Queue("b", "c"), Queue("c", "a"),
                         Queue("leaf", "a"), Queue("fine")});
  const std::string why =
      "queues a, b, c name each other as parents (spec.parent): a cycle, "
      "not a tree";
  for (const char* name : {"a", "b", "c", "leaf"}) {
    EXPECT_EQ(Named(c, name).tree_error, why) << name;
  }
  EXPECT_EQ(Named(c, "fine").tree_error, "");
}

TEST(QueueTree, ChildrenMayNotGuaranteeOrDeserveMoreThanTheirParentStates) {
  QueueInfo eng = Queue("eng");
  eng.guarantee = Cpu(8000);
  QueueInfo a = Queue("a", "eng"), b = Queue("b", "eng");
  a.guarantee = Cpu(6000);
  b.guarantee = Cpu(4000);
  ClusterInfo c = Build({eng, a, b});
  const std::string why =
      "the children of queue \"eng\" (a, b) guarantee more than it does "
      "(spec.guarantee): cpu 10 (more than 8)";
  EXPECT_EQ(Named(c, "eng").tree_error, why);
  EXPECT_EQ(Named(c, "a").tree_error, why);

  // A parent that states no guarantee adds its children's up (Volcano's
  // root does so); deserved alike.
  eng.guarantee = Cpu(0);
  Resource deserved;
  for (int id = 0; id < ResourceNameCount(); ++id) {
    deserved.Set(static_cast<ResourceId>(id), kUnlimited);
  }
  deserved.Set(kCpu, 4000);
  eng.deserved = deserved;
  a.deserved = Cpu(3000);
  b.deserved = std::nullopt;  // adds nothing
  c = Build({eng, a, b});
  EXPECT_EQ(Named(c, "eng").tree_error, "");
  // A child naming only memory adds nothing to the cpu both others claim.
  Resource memory_only = deserved;
  memory_only.Set(kCpu, kUnlimited);
  memory_only.Set(kMemory, 1024);
  b.deserved = memory_only;
  a.deserved = Cpu(5000);
  c = Build({eng, a, b});
  EXPECT_EQ(Named(c, "b").tree_error,
            "the children of queue \"eng\" (a, b) deserve more than it does "
            "(spec.deserved): cpu 5 (more than 4)");
}

TEST(QueueTree, RootMayNotNameAParent) {
  ClusterInfo c = Build({Queue(kRootQueue, "x"), Queue("a")});
  EXPECT_NE(Named(c, "a").tree_error.find("top of the queue tree"),
            std::string::npos)
      << Named(c, "a").tree_error;
}

TEST(QueueTree, AnExplicitRootHoldsEveryTopLevelQueueEvenWithoutParents) {
  ClusterInfo c = Build({Queue(kRootQueue), Queue("a")});
  EXPECT_FALSE(Named(c, kRootQueue).implicit);
  EXPECT_EQ(Named(c, "a").parent_index, c.FindQueue(kRootQueue));
  int visited = 0;
  ForEachOnPathToRoot(c, c.FindQueue("a"),
                      [&](const QueueInfo&) { ++visited; });
  EXPECT_EQ(visited, 2);
}

}  // namespace
}  // namespace shoal::api
