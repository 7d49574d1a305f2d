#include "scheduler/dra/capacity.h"

#include "gtest/gtest.h"

namespace shoal::dra {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

api::Device SharedGpu(std::optional<api::CapacityPolicy> policy = {}) {
  api::Device d;
  d.name = "gpu-0";
  d.allow_multiple_allocations = true;
  d.capacity = {{"gpu.example.com/memory", "80Gi", "memory", policy}};
  return d;
}

api::DeviceChoice Asking(std::string amount, std::string name = "memory") {
  api::DeviceChoice c;
  if (!amount.empty()) c.capacity_requests = {{name, amount}};
  return c;
}

bool Consume(const api::DeviceChoice& c, const api::Device& d,
             std::vector<int64_t>* out) {
  std::vector<int64_t> totals;
  bool policy = false;
  for (const api::DeviceCapacity& k : d.capacity) {
    totals.push_back(80 * kGi * 1000);
    policy |= k.policy.has_value();
  }
  return Consumption(c, d, "gpu.example.com", totals, policy, out);
}

TEST(ConsumptionTest, TakesWhatIsAskedOrTheWholeCapacityWithoutAPolicy) {
  std::vector<int64_t> out;
  ASSERT_TRUE(Consume(Asking("30Gi"), SharedGpu(), &out));
  EXPECT_EQ(out, std::vector<int64_t>{30 * kGi * 1000});
  ASSERT_TRUE(Consume(Asking(""), SharedGpu(), &out));
  EXPECT_EQ(out, std::vector<int64_t>{80 * kGi * 1000});
}

TEST(ConsumptionTest, QualifiedAndUnqualifiedNamesMeanTheDriversCapacity) {
  std::vector<int64_t> out;
  EXPECT_TRUE(
      Consume(Asking("1Gi", "gpu.example.com/memory"), SharedGpu(), &out));
  EXPECT_FALSE(
      Consume(Asking("1Gi", "other.example.com/memory"), SharedGpu(), &out));
  EXPECT_FALSE(Consume(Asking("1Gi", "cores"), SharedGpu(), &out));
}

TEST(ConsumptionTest, MoreThanTheWholeCapacityIsRefused) {
  std::vector<int64_t> out;
  EXPECT_FALSE(Consume(Asking("81Gi"), SharedGpu(), &out));
}

TEST(ConsumptionTest, ValidRangeRoundsUpToTheNextStepAndRefusesPastMax) {
  api::CapacityPolicy p;
  p.min = "10Gi";
  p.max = "40Gi";
  p.step = "10Gi";
  std::vector<int64_t> out;
  ASSERT_TRUE(Consume(Asking("25Gi"), SharedGpu(p), &out));
  EXPECT_EQ(out[0], 30 * kGi * 1000);
  ASSERT_TRUE(Consume(Asking("1Gi"), SharedGpu(p), &out));
  EXPECT_EQ(out[0], 10 * kGi * 1000);
  EXPECT_FALSE(Consume(Asking("41Gi"), SharedGpu(p), &out));
}

TEST(ConsumptionTest, ValidValuesRoundUpAndDefaultFillsWhatIsNotAsked) {
  api::CapacityPolicy p;
  p.default_value = "20Gi";
  p.valid_values = {"20Gi", "40Gi"};
  std::vector<int64_t> out;
  ASSERT_TRUE(Consume(Asking("21Gi"), SharedGpu(p), &out));
  EXPECT_EQ(out[0], 40 * kGi * 1000);
  ASSERT_TRUE(Consume(Asking(""), SharedGpu(p), &out));
  EXPECT_EQ(out[0], 20 * kGi * 1000);
  EXPECT_FALSE(Consume(Asking("50Gi"), SharedGpu(p), &out));
}

TEST(ConsumedCapacityTest, NamesAsTheSliceWroteThemAndReadsThemBack) {
  api::Device d = SharedGpu();
  auto written = ConsumedCapacity(d, {30 * kGi * 1000});
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].first, "memory");
  EXPECT_EQ(written[0].second, "30Gi");
  api::DeviceResult r;
  r.consumed_capacity = written;
  EXPECT_EQ(AmountsOf(r, d), std::vector<int64_t>{30 * kGi * 1000});
  r.consumed_capacity = {{"gpu.example.com/memory", "1073741824"}};
  EXPECT_EQ(AmountsOf(r, d), std::vector<int64_t>{kGi * 1000});
}

TEST(QuantityTextTest, ExactBinarySuffixesPlainNumbersAndMilli) {
  EXPECT_EQ(QuantityText(10 * kGi * 1000), "10Gi");
  EXPECT_EQ(QuantityText(512LL * 1024 * 1024 * 1000), "512Mi");
  EXPECT_EQ(QuantityText(3000), "3");
  EXPECT_EQ(QuantityText(1500), "1500m");
  EXPECT_EQ(QuantityText(0), "0");
}

}  // namespace
}  // namespace shoal::dra
