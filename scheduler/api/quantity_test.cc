#include "scheduler/api/quantity.h"

#include "gtest/gtest.h"

namespace shoal::api {
namespace {

int64_t Milli(const char* s) {
  return ParseQuantity(s, QuantityScale::kMilli).value();
}
int64_t Unit(const char* s) {
  return ParseQuantity(s, QuantityScale::kUnit).value();
}

TEST(QuantityTest, CpuForms) {
  EXPECT_EQ(Milli("100m"), 100);
  EXPECT_EQ(Milli("0.5"), 500);
  EXPECT_EQ(Milli(".5"), 500);
  EXPECT_EQ(Milli("5."), 5000);
  EXPECT_EQ(Milli("2"), 2000);
  EXPECT_EQ(Milli("1e3"), 1000000);
  EXPECT_EQ(Milli("1E-3"), 1);
  EXPECT_EQ(Milli("0.0001"), 1);  // rounds up, like MilliValue()
  EXPECT_EQ(Milli("+1"), 1000);
  EXPECT_EQ(Milli("1k"), 1000000);
}

TEST(QuantityTest, MemoryForms) {
  EXPECT_EQ(Unit("128974848"), 128974848);
  EXPECT_EQ(Unit("1.5Gi"), 1610612736);
  EXPECT_EQ(Unit("2G"), 2000000000);
  EXPECT_EQ(Unit("+1Ki"), 1024);
  EXPECT_EQ(Unit("129e6"), 129000000);
  EXPECT_EQ(Unit("123Mi"), 128974848);
  EXPECT_EQ(Unit("1Ei"), int64_t{1} << 60);
  EXPECT_EQ(Unit("1E"), 1000000000000000000);
  EXPECT_EQ(Unit("100m"), 1);  // a tenth of a byte rounds up to one
  EXPECT_EQ(Unit("0"), 0);
  EXPECT_EQ(Unit("000.000"), 0);
}

TEST(QuantityTest, NegativeIsParsedForCallersToRefuse) {
  EXPECT_EQ(Unit("-1Ki"), -1024);
}

TEST(QuantityTest, MalformedNamesTheTextAndTheProblem) {
  auto bad = [](const char* s) {
    return std::string(
        ParseQuantity(s, QuantityScale::kUnit).status().message());
  };
  EXPECT_EQ(bad(""),
            "quantity \"\" is malformed: it is empty (expected forms like "
            "\"500m\", \"2\", \"1.5Gi\", \"2G\", \"1e3\")");
  EXPECT_EQ(bad("abc"),
            "quantity \"abc\" is malformed: it has no digits (expected forms "
            "like \"500m\", \"2\", \"1.5Gi\", \"2G\", \"1e3\")");
  EXPECT_NE(bad("1.2.3").find("it has two decimal points"), std::string::npos);
  EXPECT_NE(bad("5GB").find("unknown suffix \"GB\""), std::string::npos);
  EXPECT_NE(bad("1e").find("unknown suffix \"e\""), std::string::npos);
  EXPECT_NE(bad("1 Gi").find("unknown suffix \" Gi\""), std::string::npos);
  EXPECT_NE(bad("1ki").find("unknown suffix \"ki\""), std::string::npos);
  EXPECT_NE(bad("--1").find("no digits"), std::string::npos);
}

TEST(QuantityTest, TooLargeIsRefused) {
  auto s = ParseQuantity("10Ei", QuantityScale::kUnit).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(std::string(s.message()).find("quantity \"10Ei\" is too large"),
            std::string::npos);
  EXPECT_FALSE(ParseQuantity("1e30", QuantityScale::kUnit).ok());
  EXPECT_FALSE(ParseQuantity("10E", QuantityScale::kMilli).ok());
}

TEST(QuantityTest, Format) {
  EXPECT_EQ(FormatQuantity(500, QuantityScale::kMilli), "500m");
  EXPECT_EQ(FormatQuantity(2000, QuantityScale::kMilli), "2");
  EXPECT_EQ(FormatQuantity(1610612736, QuantityScale::kUnit), "1536Mi");
  EXPECT_EQ(FormatQuantity(4, QuantityScale::kUnit), "4");
  EXPECT_EQ(FormatQuantity(2147483648, QuantityScale::kUnit), "2Gi");
  EXPECT_EQ(FormatQuantity(1193007697100, QuantityScale::kUnit), "1.1Ti");
  EXPECT_EQ(FormatQuantity(1000, QuantityScale::kUnit), "1000");
}

}  // namespace
}  // namespace shoal::api
