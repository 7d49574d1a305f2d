#include <chrono>

#include "gtest/gtest.h"
#include "scheduler/cel/program.h"

namespace shoal::cel {
namespace {

std::string CompileError(absl::string_view src) {
  absl::StatusOr<Program> p = Program::Compile(src);
  return p.ok() ? "ok" : std::string(p.status().message());
}

// A DRA device as Kubernetes presents it to selectors.
Value Device() {
  return Value::Map({
      {"driver", Value::String("gpu.example.com")},
      {"allowMultipleAllocations", Value::Bool(false)},
      {"attributes",
       Value::MapWithEmptyDefault({
           {"gpu.example.com",
            Value::Map({
                {"model", Value::String("A100")},
                {"index", Value::Int(3)},
                {"mig", Value::Bool(true)},
                {"driverVersion", *Value::SemverFromString("550.54.15")},
                // A list-typed attribute (DRAListTypeAttributes).
                {"numa", Value::List({Value::Int(0), Value::Int(1)})},
            })},
       })},
      {"capacity", Value::MapWithEmptyDefault({
                       {"gpu.example.com",
                        Value::Map({
                            {"memory", *Value::QuantityFromString("40Gi")},
                            {"cores", *Value::QuantityFromString("500m")},
                        })},
                   })},
  });
}

absl::StatusOr<Value> Eval(absl::string_view src) {
  CompileOptions options;
  options.variables = std::vector<std::string>{"device"};
  absl::StatusOr<Program> p = Program::Compile(src, options);
  if (!p.ok()) return p.status();
  return p->Evaluate({{"device", Device()}});
}

bool True(absl::string_view src) {
  absl::StatusOr<Value> v = Eval(src);
  EXPECT_TRUE(v.ok()) << src << ": " << v.status();
  return v.ok() && v->kind() == Kind::kBool && v->as_bool();
}

std::string EvalError(absl::string_view src) {
  absl::StatusOr<Value> v = Eval(src);
  return v.ok() ? "ok: " + v->DebugString() : std::string(v.status().message());
}

TEST(CompileTest, RefusalsNameTheConstructAndColumn) {
  EXPECT_EQ(CompileError("foo(1)"), "unsupported function foo() at column 1");
  EXPECT_EQ(CompileError("device.x < timestamp('2024-01-01T00:00:00Z')"),
            "unsupported: timestamp() (not in the CEL subset Shoal evaluates) "
            "at column 12");
  EXPECT_EQ(CompileError("size(a b)"),
            "syntax error at column 8: expected ','");
  EXPECT_EQ(CompileError("(1 + 2"), "syntax error at column 7: expected ')'");
  EXPECT_EQ(CompileError("device?.attributes"),
            "unsupported: optional field selection ?. (not in the CEL subset "
            "Shoal evaluates) at column 7");
  EXPECT_EQ(CompileError("a.?b"),
            "unsupported: optional field selection .? (not in the CEL subset "
            "Shoal evaluates) at column 2");
  EXPECT_EQ(CompileError("Msg{a: 1}"),
            "unsupported: message construction Msg{...} (not in the CEL subset "
            "Shoal evaluates) at column 4");
  EXPECT_EQ(CompileError("'a'.charAt(0)"),
            "unsupported: charAt() (not in the CEL subset Shoal evaluates) at "
            "column 5");
  EXPECT_EQ(CompileError("duration('1s')"),
            "unsupported: duration() (not in the CEL subset Shoal evaluates) "
            "at column 1");
  EXPECT_EQ(CompileError("[1].all(i, v, true)"),
            "unsupported: two-variable comprehension all() (not in the CEL "
            "subset Shoal evaluates) at column 5");
  EXPECT_EQ(CompileError("if"),
            "syntax error at column 1: reserved identifier 'if'");
}

TEST(CompileTest, UndeclaredVariablesRefusedWhenDeclared) {
  CompileOptions options;
  options.variables = std::vector<std::string>{"device"};
  absl::StatusOr<Program> p = Program::Compile("devic.driver == 'x'", options);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "undeclared reference to 'devic' at column 1");
  EXPECT_TRUE(
      Program::Compile("[1].all(x, x > 0 && device.driver != '')", options)
          .ok());
}

TEST(EvalTest, ErrorAbsorptionIsCommutative) {
  EXPECT_FALSE(True("1/0 == 1 && false"));
  EXPECT_FALSE(True("false && 1/0 == 1"));
  EXPECT_TRUE(True("1/0 == 1 || true"));
  EXPECT_TRUE(True("true || 1/0 == 1"));
  EXPECT_EQ(EvalError("1/0 == 1 && true"), "division by zero");
  EXPECT_EQ(EvalError("true && 1/0 == 1"), "division by zero");
  EXPECT_TRUE(True("[1, 0].exists(x, 1/x == 1)"));
  EXPECT_FALSE(True("[0, 1].all(x, 1/x == 5)"));
  EXPECT_EQ(EvalError("[0, 1].all(x, 1/x == 1)"), "division by zero");
  EXPECT_EQ(EvalError("9223372036854775807 + 1"), "integer overflow in +");
  EXPECT_EQ(EvalError("1 + 1u"), "no such overload: + applied to (int, uint)");
}

TEST(EvalTest, DraDeviceSemantics) {
  EXPECT_TRUE(True("device.driver == 'gpu.example.com'"));
  EXPECT_TRUE(True("device.attributes['gpu.example.com'].model == 'A100'"));
  // An unknown domain is an empty map, not an error.
  EXPECT_TRUE(True("device.attributes['other.example.com'] == {}"));
  EXPECT_TRUE(True("size(device.capacity['other.example.com']) == 0"));
  EXPECT_TRUE(True("!has(device.attributes['other.example.com'].model)"));
  EXPECT_TRUE(True("has(device.attributes['gpu.example.com'].model)"));
  EXPECT_FALSE(True("has(device.attributes['gpu.example.com'].memory)"));
  // A missing attribute within a known domain is an error.
  EXPECT_EQ(EvalError("device.attributes['gpu.example.com'].family == 'x'"),
            "no such key: family");
  EXPECT_EQ(EvalError("device.attributes['other.example.com'].model == 'x'"),
            "no such key: model");
  EXPECT_TRUE(True(
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) "
      "== 0"));
  EXPECT_TRUE(True(
      "device.capacity['gpu.example.com'].memory == quantity('42949672960')"));
  EXPECT_TRUE(
      True("device.capacity['gpu.example.com'].cores == quantity('0.5')"));
  EXPECT_TRUE(
      True("device.attributes['gpu.example.com'].driverVersion.isGreaterThan("
           "semver('535.0.0'))"));
  EXPECT_TRUE(True(
      "device.attributes['gpu.example.com'].driverVersion.major() == 550"));
  EXPECT_TRUE(True("device.attributes['gpu.example.com'].index in [1, 3]"));
}

// Kubernetes DRA's includes() (DRAListTypeAttributes): membership in a
// list-typed attribute, equality with a scalar one.
TEST(EvalTest, IncludesAsksAListOrAScalar) {
  const std::string attrs = "device.attributes['gpu.example.com']";
  EXPECT_TRUE(True(attrs + ".numa.includes(1)"));
  EXPECT_TRUE(True("!" + attrs + ".numa.includes(2)"));
  EXPECT_TRUE(True(attrs + ".numa.includes(1u)"));  // numbers across kinds
  EXPECT_TRUE(True("!" + attrs + ".numa.includes('1')"));
  EXPECT_TRUE(True(attrs + ".index.includes(3)"));
  EXPECT_TRUE(True("!" + attrs + ".model.includes('A')"));
  EXPECT_TRUE(True(attrs + ".driverVersion.includes(semver('550.54.15'))"));
  EXPECT_TRUE(True(attrs + ".numa.exists(n, n == 0) && " + attrs +
                   ".numa.size() == 2 && " + attrs + ".numa[1] == 1"));
  // At most a device's 48 attribute values are looked at, as Kubernetes
  // bounds its cost.
  std::string list = "[0";
  for (int i = 1; i < 48; ++i) list += ", 0";
  EXPECT_EQ(EvalError(list + "].includes(1)"), "ok: false");
  EXPECT_EQ(EvalError(list + ", 0].includes(1)"),
            "'includes' function cannot be applied to lists longer than 48 "
            "values");
  EXPECT_EQ(EvalError(list + ", 1].includes(0)"), "ok: true");
  EXPECT_EQ(CompileError("includes([1], 1)"),
            "no matching overload for function includes() with 2 arguments "
            "at column 1");
}

TEST(QuantityTest, ExactComparisons) {
  EXPECT_TRUE(True("quantity('1Gi').compareTo(quantity('1073741824')) == 0"));
  EXPECT_TRUE(True("quantity('500m').compareTo(quantity('0.5')) == 0"));
  EXPECT_TRUE(True("quantity('1.5Gi').asInteger() == 1610612736"));
  EXPECT_TRUE(True("quantity('1n').isLessThan(quantity('0.0000000011'))"));
  EXPECT_TRUE(True("quantity('1e3') == quantity('1k')"));
  EXPECT_FALSE(True("isQuantity('200K')"));
}

TEST(EvalTest, FastEnoughForThousandsOfDevices) {
  CompileOptions options;
  options.variables = std::vector<std::string>{"device"};
  absl::StatusOr<Program> p = Program::Compile(
      "device.driver == 'gpu.example.com' && "
      "device.attributes['gpu.example.com'].model.startsWith('A1') && "
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('16Gi')) "
      ">= 0",
      options);
  ASSERT_TRUE(p.ok()) << p.status();
  Activation vars{{"device", Device()}};
  auto start = std::chrono::steady_clock::now();
  constexpr int kRuns = 10000;
  for (int i = 0; i < kRuns; ++i) {
    absl::StatusOr<Value> v = p->Evaluate(vars);
    ASSERT_TRUE(v.ok() && v->as_bool());
  }
  double us = std::chrono::duration<double, std::micro>(
                  std::chrono::steady_clock::now() - start)
                  .count() /
              kRuns;
  std::printf("per evaluation: %.2f us\n", us);
  EXPECT_LT(us, 200.0);  // generous: sanitizers and loaded CI machines
}

}  // namespace
}  // namespace shoal::cel
