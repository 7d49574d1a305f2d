#include "scheduler/kube/client/leader_lease.h"

#include "e2e/emulator/api_server.h"
#include "gtest/gtest.h"

namespace shoal::kube {
namespace {

class LeaderLeaseTest : public ::testing::Test {
 protected:
  LeaderLeaseTest() : server_(emulator::ApiServerOptions{}) {
    ConnectionConfig c;
    c.server =
        "http://127.0.0.1:" + std::to_string(server_.Start("127.0.0.1", 0));
    a_client_ = std::make_unique<HttpClient>(c);
    b_client_ = std::make_unique<HttpClient>(c);
  }
  ~LeaderLeaseTest() override {
    a_client_.reset();
    b_client_.reset();
    server_.Stop();
  }

  emulator::ApiServer server_;
  std::unique_ptr<HttpClient> a_client_, b_client_;
  absl::Time t0_ = absl::FromUnixSeconds(1700000000);
};

TEST_F(LeaderLeaseTest,
       OneLeaderAtATimeTakeoverAfterExpiryAndAtOnceAfterRelease) {
  LeaderLease a(*a_client_, "kube-system", "shoal", "a", absl::Seconds(15));
  LeaderLease b(*b_client_, "kube-system", "shoal", "b", absl::Seconds(15));
  EXPECT_EQ(*a.TryAcquireOrRenew(t0_), true);
  EXPECT_EQ(*b.TryAcquireOrRenew(t0_), false);
  EXPECT_EQ(b.holder(), "a");
  // a renews: b sees the record change and waits a whole duration again.
  EXPECT_EQ(*a.TryAcquireOrRenew(t0_ + absl::Seconds(10)), true);
  EXPECT_EQ(*b.TryAcquireOrRenew(t0_ + absl::Seconds(12)), false);
  EXPECT_EQ(*b.TryAcquireOrRenew(t0_ + absl::Seconds(26)), false);
  // a stops renewing: 15 s after b last saw a change, b takes over.
  EXPECT_EQ(*b.TryAcquireOrRenew(t0_ + absl::Seconds(27)), true);
  EXPECT_EQ(*a.TryAcquireOrRenew(t0_ + absl::Seconds(28)), false);
  EXPECT_EQ(a.holder(), "b");
  // b lets go: a takes it on its next try, without waiting.
  ASSERT_TRUE(b.Release().ok());
  EXPECT_EQ(*a.TryAcquireOrRenew(t0_ + absl::Seconds(29)), true);
}

TEST_F(LeaderLeaseTest, AnApiErrorIsReportedNotTakenForLeadership) {
  LeaderLease a(*a_client_, "no-such-namespace", "shoal", "a",
                absl::Seconds(15));
  auto held = a.TryAcquireOrRenew(t0_);
  ASSERT_FALSE(held.ok());
  EXPECT_EQ(
      held.status().message(),
      "create lease: HTTP 404: namespaces \"no-such-namespace\" not found");
}

}  // namespace
}  // namespace shoal::kube
