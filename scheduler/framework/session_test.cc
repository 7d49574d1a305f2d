#include "scheduler/framework/session.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/framework/statement.h"
#include "scheduler/framework/testing.h"

namespace shoal::framework {
namespace {

using testing::Node;

// Refuses nodes whose name ends in "-bad"; prefers later jobs.
class Picky : public Plugin {
 public:
  explicit Picky(int* predicate_calls) : calls_(predicate_calls) {}
  std::unique_ptr<PluginSession> OnSessionOpen(Session& s) override {
    int* calls = calls_;
    s.Register<Predicate>([calls](const api::PlacementConstraints&,
                                  const api::NodeInfo& n, Reasons* why) {
      ++*calls;
      if (n.name().size() > 4 &&
          n.name().substr(n.name().size() - 4) == "-bad") {
        if (why) why->push_back("node(s) were bad");
        return false;
      }
      return true;
    });
    s.Register<JobOrder>([](const api::JobInfo& a, const api::JobInfo& b) {
      return a.name > b.name ? -1 : (a.name < b.name ? 1 : 0);
    });
    s.Register<Fit>([](const api::TaskInfo& t, const api::NodeInfo&,
                       const api::Resource& available, Reasons* why) {
      if (t.request().FitsIn(available)) return true;
      if (why) {
        t.request().ForEachShortage(available, [&](api::ResourceId id) {
          why->emplace_back(api::InsufficientReason(id));
        });
      }
      return false;
    });
    return nullptr;
  }

 private:
  int* calls_;
};

// Logs its sessions' lifetime; each session counts the events of its own
// statements in state of its own.
class Tracer : public Plugin {
 public:
  Tracer(std::string name, std::vector<std::string>* log)
      : name_(std::move(name)), log_(log) {}

  class State : public PluginSession {
   public:
    State(std::string name, std::vector<std::string>* log)
        : name_(std::move(name)), log_(log) {}
    ~State() override { log_->push_back(name_ + " destroyed"); }
    void OnSessionClose(Session&) override {
      log_->push_back(absl::StrCat(name_, " closed after ", allocated, " +"));
    }
    int allocated = 0;

   private:
    std::string name_;
    std::vector<std::string>* log_;
  };

  std::unique_ptr<PluginSession> OnSessionOpen(Session& s) override {
    log_->push_back(name_ + " opened");
    auto state = std::make_unique<State>(name_, log_);
    State* st = state.get();
    s.AddEventHandler({[st](const api::TaskInfo&) { ++st->allocated; },
                       [st](const api::TaskInfo&) { --st->allocated; }});
    return state;
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
};

class SessionTest : public ::testing::Test {
 protected:
  Policy Make(const std::string& yaml) {
    registry_.Add(
        "picky",
        [this](const Arguments&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
          return std::make_unique<Picky>(&calls_);
        });
    return testing::MustPolicy(yaml, registry_, actions_);
  }
  api::ClusterInfo Cluster() {
    api::ClusterBuilder b;
    b.AddNode(Node("a", {{"cpu", "1"}}));
    b.AddNode(Node("b-bad", {{"cpu", "8"}}));
    b.AddNode(Node("c-bad", {{"cpu", "8"}}));
    testing::AddGang(b, "x", 1, 2, {{"cpu", "2"}});
    testing::AddGang(b, "y", 1, 1, {{"cpu", "1"}});
    return std::move(b).Build();
  }
  int calls_ = 0;
  PluginRegistry registry_;
  ActionRegistry actions_ = testing::IdleActions();
};

TEST_F(SessionTest, PredicateResultsAreCachedPerConstraints) {
  Policy p = Make("actions: allocate\ntiers:\n- plugins:\n  - name: picky\n");
  Session s(Cluster(), p);
  const FeasibleNodes& f = s.Feasible(s.task(0).placement());
  EXPECT_EQ(f.nodes, std::vector<api::NodeIndex>{0});
  EXPECT_EQ(calls_, 3);
  // Every test pod has equal (empty) constraints: no new predicate calls.
  s.Feasible(s.task(1).placement());
  s.Feasible(s.task(2).placement());
  EXPECT_EQ(calls_, 3);
}

TEST_F(SessionTest, ExplainsLikeKubeScheduler) {
  Policy p = Make("actions: allocate\ntiers:\n- plugins:\n  - name: picky\n");
  Session s(Cluster(), p);
  EXPECT_EQ(s.ExplainUnplaced(s.task(0)),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) were bad.");
}

TEST_F(SessionTest, DisabledSwitchDropsTheCallback) {
  Policy on = Make("actions: allocate\ntiers:\n- plugins:\n  - name: picky\n");
  Session s1(Cluster(), on);
  EXPECT_TRUE(s1.JobBefore(s1.job(1), s1.job(0)));  // y before x
  Policy off = Make(
      "actions: allocate\ntiers:\n- plugins:\n  - name: picky\n    "
      "enableJobOrder: false\n    enablePredicate: false\n");
  Session s2(Cluster(), off);
  EXPECT_TRUE(s2.JobBefore(s2.job(0), s2.job(1)));  // fallback: by name
  EXPECT_TRUE(s2.Table<Predicate>().empty());
  EXPECT_TRUE(s2.Table<Fit>().empty());
}

TEST_F(SessionTest, MissingOrClosedQueueIsExplained) {
  Policy p = Make("actions: enqueue, allocate\n");
  api::ClusterBuilder b;
  api::JobInfo job;
  job.ns = "team-a";
  job.name = "resnet";
  job.queue = "gpu";
  b.AddJob(job);
  api::QueueInfo closed;
  closed.name = "closed";
  closed.open = false;
  b.AddQueue(closed);
  Session s(std::move(b).Build(), p);
  std::string why;
  EXPECT_FALSE(s.JobSchedulable(s.job(0), &why));
  EXPECT_EQ(why,
            "queue \"gpu\" does not exist; create it or change spec.queue");
  s.job(0).queue = "closed";
  s.job(0).queue_index = s.cluster().FindQueue("closed");
  EXPECT_FALSE(s.JobSchedulable(s.job(0), &why));
  EXPECT_EQ(why, "queue \"closed\" is closed and admits no new work");
  s.job(0).queue = "default";  // implicit
  s.job(0).queue_index = s.cluster().FindQueue("default");
  EXPECT_TRUE(s.JobSchedulable(s.job(0), &why));
  EXPECT_FALSE(s.JobAdmitted(s.job(0)));  // enqueue is configured
}

TEST_F(SessionTest, PluginStateLivesExactlyAsLongAsItsSession) {
  std::vector<std::string> log;
  for (const char* name : {"first", "second"}) {
    registry_.Add(
        name,
        [name,
         &log](const Arguments&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
          return std::make_unique<Tracer>(name, &log);
        });
  }
  Policy p = testing::MustPolicy(
      "actions: allocate\ntiers:\n- plugins:\n  - name: first\n- plugins:\n"
      "  - name: second\n",
      registry_, actions_);
  {
    Session one(Cluster(), p);
    {
      // A second session on the same policy shares no state with the
      // first: its statements count only in its own.
      Session two(Cluster(), p);
      Statement stmt(two);
      stmt.Allocate(2, 0);
      stmt.Commit();
      two.Close();
    }
    // Two's state is gone with it; one's is still there.
    EXPECT_EQ(log.size(), 8u);
    one.Close();
  }
  // Closed last opened first, so the first tier's words stand.
  const std::vector<std::string> opened_closed = {"first opened",
                                                  "second opened",  // one
                                                  "first opened",
                                                  "second opened",  // two
                                                  "second closed after 1 +",
                                                  "first closed after 1 +"};
  ASSERT_EQ(log.size(), 12u);
  EXPECT_EQ(std::vector<std::string>(log.begin(), log.begin() + 6),
            opened_closed);
  const std::vector<std::string> destroyed = {"first destroyed",
                                              "second destroyed"};
  EXPECT_TRUE(
      std::is_permutation(log.begin() + 6, log.begin() + 8, destroyed.begin()));
  EXPECT_EQ(log[8], "second closed after 0 +");
  EXPECT_EQ(log[9], "first closed after 0 +");
  EXPECT_TRUE(
      std::is_permutation(log.begin() + 10, log.end(), destroyed.begin()));
}

TEST(ClusterIndexTest, JobsQueuesAndNodesKnowTheirPositions) {
  api::ClusterBuilder b;
  b.AddNode(Node("a", {{"cpu", "1"}}));
  b.AddNode(Node("b", {{"cpu", "1"}}));
  api::QueueInfo q;
  q.name = "q";
  b.AddQueue(q);
  b.AddQueue(q);  // replaced in place, keeping its index
  testing::AddGang(b, "x", 1, 1, {{"cpu", "1"}});
  testing::AddGang(b, "y", 1, 1, {{"cpu", "1"}});
  api::ClusterInfo c = std::move(b).Build();  // adds the default queue
  ASSERT_EQ(c.queues.size(), 2u);
  EXPECT_EQ(c.queues[1].index, 1);
  EXPECT_EQ(c.nodes[1].index(), 1);
  EXPECT_EQ(c.jobs[1].index, 1);
  EXPECT_TRUE(api::IndexesMatchPositions(c));
  c.jobs.erase(c.jobs.begin());
  EXPECT_FALSE(api::IndexesMatchPositions(c));
}

TEST(FormatUnavailableTest, SortsReasonsAndCountsAvailable) {
  EXPECT_EQ(FormatUnavailable(5, 0,
                              {{"node(s) had untolerated taint {gpu: true}", 2},
                               {"Insufficient nvidia.com/gpu", 3}}),
            "0/5 nodes are available: 3 Insufficient nvidia.com/gpu, 2 node(s) "
            "had untolerated taint {gpu: true}.");
  EXPECT_EQ(FormatUnavailable(2, 2, {}), "2/2 nodes are available.");
}

}  // namespace
}  // namespace shoal::framework
