// Runs the data-carried cases: Kubernetes' quantity/semver library
// examples (testdata/k8s_library_cases.yaml) and DRA drivers' published
// DeviceClass selectors against constructed devices
// (testdata/driver_device_classes.yaml).
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/cel/program.h"
#include "yaml-cpp/yaml.h"

namespace shoal::cel {
namespace {

YAML::Node Load(const std::string& name) {
  return YAML::LoadFile("scheduler/cel/testdata/" + name);
}

TEST(K8sLibraryCases, AllHold) {
  YAML::Node root = Load("k8s_library_cases.yaml");
  int n = 0;
  for (const YAML::Node& c : root["cases"]) {
    ++n;
    const std::string expr = c["expr"].as<std::string>();
    SCOPED_TRACE(expr + "  [" + c["source"].as<std::string>() + "]");
    absl::StatusOr<Program> p = Program::Compile(expr);
    ASSERT_TRUE(p.ok()) << p.status();
    absl::StatusOr<Value> v = p->Evaluate({});
    if (c["error"]) {
      ASSERT_FALSE(v.ok()) << v->DebugString();
      EXPECT_NE(v.status().message().find(c["error"].as<std::string>()),
                std::string::npos)
          << v.status();
      continue;
    }
    ASSERT_TRUE(v.ok()) << v.status();
    const std::string want = c["value"].as<std::string>();
    if (want == "true" || want == "false") {
      ASSERT_EQ(v->kind(), Kind::kBool);
      EXPECT_EQ(v->as_bool(), want == "true");
    } else {
      ASSERT_EQ(v->kind(), Kind::kInt);
      EXPECT_EQ(v->as_int(), c["value"].as<int64_t>());
    }
  }
  EXPECT_GT(n, 40);
}

Value Attribute(const YAML::Node& n) {
  if (n.IsMap() && n["semver"]) {
    return *Value::SemverFromString(n["semver"].as<std::string>());
  }
  const std::string s = n.as<std::string>();
  if (n.Tag() == "!") return Value::String(s);  // quoted in the YAML
  if (s == "true" || s == "false") return Value::Bool(s == "true");
  int64_t i;
  if (YAML::convert<int64_t>::decode(n, i)) return Value::Int(i);
  return Value::String(s);
}

Value Device(const YAML::Node& d) {
  std::vector<std::pair<std::string, Value>> attributes, capacity;
  for (const auto& domain : d["attributes"]) {
    std::vector<std::pair<std::string, Value>> attrs;
    for (const auto& a : domain.second) {
      attrs.emplace_back(a.first.as<std::string>(), Attribute(a.second));
    }
    attributes.emplace_back(domain.first.as<std::string>(),
                            Value::Map(std::move(attrs)));
  }
  for (const auto& domain : d["capacity"]) {
    std::vector<std::pair<std::string, Value>> caps;
    for (const auto& c : domain.second) {
      caps.emplace_back(c.first.as<std::string>(),
                        *Value::QuantityFromString(c.second.as<std::string>()));
    }
    capacity.emplace_back(domain.first.as<std::string>(),
                          Value::Map(std::move(caps)));
  }
  return Value::Map({
      {"driver", Value::String(d["driver"].as<std::string>())},
      {"attributes", Value::MapWithEmptyDefault(std::move(attributes))},
      {"capacity", Value::MapWithEmptyDefault(std::move(capacity))},
      {"allowMultipleAllocations", Value::Bool(false)},
  });
}

TEST(DriverDeviceClasses, MatchAndMismatch) {
  YAML::Node root = Load("driver_device_classes.yaml");
  CompileOptions options;
  options.variables = std::vector<std::string>{"device"};
  for (const YAML::Node& c : root["classes"]) {
    SCOPED_TRACE(c["name"].as<std::string>());
    absl::StatusOr<Program> p =
        Program::Compile(c["expression"].as<std::string>(), options);
    ASSERT_TRUE(p.ok()) << p.status();
    for (const char* key : {"matching", "non_matching"}) {
      absl::StatusOr<Value> v = p->Evaluate({{"device", Device(c[key])}});
      ASSERT_TRUE(v.ok()) << key << ": " << v.status();
      ASSERT_EQ(v->kind(), Kind::kBool);
      EXPECT_EQ(v->as_bool(), std::string(key) == "matching") << key;
    }
  }
}

}  // namespace
}  // namespace shoal::cel
