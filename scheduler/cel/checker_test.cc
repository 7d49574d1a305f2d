#include "scheduler/cel/checker.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace shoal::cel {
namespace {

std::string Refusal(const std::string& source) {
  absl::Status s = CheckDraSelector(source);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << source;
  return std::string(s.message());
}

// The selector kube-apiserver 1.36.3 refused: the lists extension's
// reverse() is the only one (strings v2 has none), so the dyn attribute
// becomes list(dyn).
TEST(CheckerTest, RefusesTheIssuesSelectorInTheServersWords) {
  EXPECT_EQ(
      Refusal("device.attributes['gpu.example.com'].model.reverse() == 'x'"),
      "compilation failed: ERROR: <input>:1:54: found no matching overload "
      "for '_==_' applied to '(list(dyn), string)'\n"
      " | device.attributes['gpu.example.com'].model.reverse() == 'x'\n"
      " | .....................................................^");
}

TEST(CheckerTest, RefusesWhatCelGoRefuses) {
  struct Case {
    const char* source;
    const char* message;  // the first line, after "compilation failed: "
  };
  const Case cases[] = {
      {"x == 1",
       "ERROR: <input>:1:1: undeclared reference to 'x' (in "
       "container '')"},
      {"device.driver.foo()",
       "ERROR: <input>:1:18: undeclared reference to "
       "'foo' (in container '')"},
      {"device.nodeName == 'a'",
       "ERROR: <input>:1:7: undefined field "
       "'nodeName'"},
      {"device.driver == 1",
       "ERROR: <input>:1:15: found no matching overload "
       "for '_==_' applied to '(string, int)'"},
      {"1 == 1.0",
       "ERROR: <input>:1:3: found no matching overload for '_==_' "
       "applied to '(int, double)'"},
      {"device.driver + 1 == 'a'",
       "ERROR: <input>:1:15: found no matching "
       "overload for '_+_' applied to '(string, "
       "int)'"},
      {"device.capacity['a'].memory > quantity('1')",
       "ERROR: <input>:1:29: found no matching overload for '_>_' applied to "
       "'(kubernetes.Quantity, kubernetes.Quantity)'"},
      {"device.capacity['a'].memory.compareTo(1) > 0",
       "ERROR: <input>:1:38: found no matching overload for 'compareTo' "
       "applied to 'kubernetes.Quantity.(int)'"},
      {"device.capacity['a'].memory.mul(2).isInteger()",
       "ERROR: <input>:1:32: undeclared reference to 'mul' (in container '')"},
      {"device.driver.size == 3",
       "ERROR: <input>:1:14: type 'string' does "
       "not support field selection"},
      {"device.driver.exists(c, c == 'a')",
       "ERROR: <input>:1:7: expression of type 'string' cannot be range of a "
       "comprehension (must be list, map, or dynamic)"},
      {"device.attributes['a'].list.exists(e, e == 1)",
       "ERROR: <input>:1:23: expression of type 'google.protobuf.Any' cannot "
       "be range of a comprehension (must be list, map, or dynamic)"},
      {"device.attributes['d'].x.anything()",
       "ERROR: <input>:1:34: undeclared reference to 'anything' (in "
       "container '')"},
      {"[1, 'a'].size() == 2",
       "ERROR: <input>:1:5: expected type 'int' but "
       "found 'string'"},
      {"device.driver.startsWith('a') ? 1 : 'b'",
       "ERROR: <input>:1:31: found no matching overload for '_?_:_' applied "
       "to '(bool, int, string)'"},
      {"device.allowMultipleAllocations && 1",
       "ERROR: <input>:1:33: found no matching overload for '_&&_' applied "
       "to '(bool, int)'"},
      {"'abc'.reverse() == 'cba'",
       "ERROR: <input>:1:14: found no matching "
       "overload for 'reverse' applied to "
       "'string.()'"},
      {"device.driver == ",
       "ERROR: <input>:1:18: Syntax error: unexpected "
       "end of input"},
  };
  for (const Case& c : cases) {
    std::string got = Refusal(c.source);
    EXPECT_EQ(got.substr(0, got.find('\n')),
              std::string("compilation failed: ") + c.message)
        << c.source;
  }
}

TEST(CheckerTest, ReportsEveryErrorInOrder) {
  EXPECT_EQ(Refusal("a || b"),
            "compilation failed: ERROR: <input>:1:1: undeclared reference to "
            "'a' (in container '')\n | a || b\n | ^\n"
            "ERROR: <input>:1:6: undeclared reference to 'b' (in container "
            "'')\n | a || b\n | .....^");
}

TEST(CheckerTest, PlacesErrorsOnTheirLine) {
  EXPECT_EQ(Refusal("device.driver == 'a' &&\n  device.drver == 'b'"),
            "compilation failed: ERROR: <input>:2:9: undefined field 'drver'\n"
            " |   device.drver == 'b'\n | ........^");
}

TEST(CheckerTest, RefusesANonBoolResultAsKubernetesDoes) {
  EXPECT_EQ(Refusal("1"), "must evaluate to bool or the unknown type, not int");
  EXPECT_EQ(Refusal("device.driver"),
            "must evaluate to bool or the unknown type, not string");
  EXPECT_EQ(
      Refusal("device.capacity['a'].memory"),
      "must evaluate to bool or the unknown type, not kubernetes.Quantity");
  EXPECT_EQ(Refusal("[device.driver]"),
            "must evaluate to bool or the unknown type, not list(string)");
}

TEST(CheckerTest, AcceptsWhatCelGoAccepts) {
  const char* accepted[] = {
      "true",
      "device.driver == 'gpu.example.com'",
      "device.attributes['gpu.example.com'].model",
      "device.attributes['gpu.example.com'].model == 'a100'",
      "device.attributes['d'].count > 2 && device.attributes['d'].count < 9u",
      "device.attributes['d'].count >= 2.5",
      "device.attributes['d'].x == null",
      "'d' in device.attributes && 'x' in device.attributes['d']",
      "has(device.attributes.d) && has(device.attributes['d'].x)",
      "device.capacity['d'].memory.compareTo(quantity('40Gi')) >= 0",
      "device.capacity['d'].memory.isGreaterThan(quantity('1')) && "
      "device.capacity['d'].memory.add(1).sub(quantity('1')).sign() >= 0",
      "device.capacity['d'].memory.asApproximateFloat() > 1.0",
      "device.attributes['d'].version.isGreaterThan(semver('1.2.3'))",
      "semver('1.2.3').major() == 1 && isSemver('v1.2', true)",
      "device.attributes['d'].version.compareTo(semver('1.0.0')) == 0",
      "device.attributes.exists(k, k.startsWith('gpu')) && "
      "device.attributes['d'].all(k, k != '')",
      "device.capacity.exists_one(k, device.capacity[k].size() > 0)",
      "device.attributes['d'].map(k, k.size()).filter(n, n > 1).size() == 0",
      "[1, 2, 3].map(x, x > 1, x * 2) == [4, 6]",
      "{'a': 1}.a == 1 && {'a': [1]}['a'][0] == 1",
      "device.attributes['d'].model.matches('^A1') || "
      "matches(device.driver, 'x')",
      "device.driver.lowerAscii().upperAscii().endsWith('M')",
      "dyn(device.driver) == 1",
      "type(device.driver) == string",
      "int('1') + 2 == 3 && double(1) == 1.0 && uint(1) == 1u",
      "string(1) == '1' && bytes('a') == b'a' && bool('true')",
      "device.attributes['d'].model.reverse().size() == 0",
      "device.attributes['d'].model.trim() == 'x'",
      "device.driver.split('.')[0] == 'gpu'",
      "device.driver.indexOf('.') > 0 && device.driver.charAt(0) == 'g'",
      "device.driver.substring(0, 3) == 'gpu' && device.driver.replace('.', "
      "'-') != ''",
      "['a', 'b'].join(',') == 'a,b' && 'a%s'.format(['b']) == 'ab'",
      "strings.quote(device.driver) != ''",
      "sets.contains([1, 2], [1]) && sets.intersects([1], [1])",
      "[3, 1].sort() == [1, 3]",
      "lists.range(3).size() == 3 && [[1], [2]].flatten() == [1, 2]",
      "[1, 2].slice(0, 1) == [1] && [1, 1].distinct() == [1]",
      "[1, 2].sum() == 3 && [1, 2].isSorted() && [1, 2].max() == 2",
      "[1, 2].first().hasValue() && [1].last().orValue(0) == 1",
      "device.attributes['d'].?model.orValue('') == 'x'",
      "device.attributes[?'d'].hasValue()",
      "optional.of(1).value() == 1 && optional.none().or(optional.of(2)) "
      "== optional.of(2)",
      "device.attributes['d'].?model.optMap(m, m.size()).orValue(0) > 1",
      "cel.bind(a, device.attributes['d'], a.model == 'x' && a.count > 1)",
      "'abc'.find('b') == 'b' && 'abc'.findAll('b').size() == 1",
      "isURL('https://x') && url('https://x').getHost() == 'x'",
      "ip('1.2.3.4').family() == 4 && "
      "cidr('10.0.0.0/8').containsIP('10.1.1.1')",
      "isQuantity('1Gi') && quantity('1Gi').isInteger()",
      "format.dns1123Label().validate('a').hasValue() == false",
      "timestamp('2024-01-01T00:00:00Z') < timestamp('2025-01-01T00:00:00Z')",
      "duration('1h').getMinutes() == 60",
      "device.attributes['d'].list.sortBy(e, e) == []",
      "device.allowMultipleAllocations",
      "device.attributes['d'].whatever.size() > device.attributes['d'].n",
  };
  for (const char* source : accepted) {
    absl::Status s = CheckDraSelector(source);
    EXPECT_TRUE(s.ok()) << source << "\n" << s;
  }
}

// DRAListTypeAttributes (alpha, off by default in 1.36): off, an
// attribute is google.protobuf.Any, includes() is not declared and a dyn
// result is refused; on, an attribute is dyn (a list-typed one can be
// iterated), includes() is declared and dyn results pass.
TEST(CheckerTest, ListTypeAttributesGateOffAsA136ServerHasIt) {
  EXPECT_EQ(Refusal("device.attributes['d'].numa.includes(1)"),
            "compilation failed: ERROR: <input>:1:37: undeclared reference to "
            "'includes' (in container '')\n"
            " | device.attributes['d'].numa.includes(1)\n"
            " | ....................................^");
  std::string got = Refusal("device.attributes['d'].numa.exists(n, n == 1)");
  EXPECT_EQ(got.substr(0, got.find('\n')),
            "compilation failed: ERROR: <input>:1:23: expression of type "
            "'google.protobuf.Any' cannot be range of a comprehension (must "
            "be list, map, or dynamic)");
  EXPECT_EQ(Refusal("dyn(true)"),
            "must evaluate to bool or the unknown type, not dyn");
  // What a 1.36 server takes either way.
  EXPECT_TRUE(CheckDraSelector("device.attributes['d'].numa").ok());
  EXPECT_TRUE(CheckDraSelector("1 in device.attributes['d'].numa").ok());
  EXPECT_TRUE(CheckDraSelector("device.attributes['d'].numa[0] == 1").ok());
}

TEST(CheckerTest, ListTypeAttributesGateOn) {
  DraCelFeatures on;
  on.list_type_attributes = true;
  for (const char* source : {
           "device.attributes['d'].numa.includes(1)",
           "device.attributes['d'].model.includes('a100')",
           "device.attributes['d'].numa.exists(n, n == 1)",
           "device.attributes['d'].numa.all(n, n < 8) && "
           "device.attributes['d'].numa.map(n, n * 2).size() > 1",
           "device.attributes['d'].numa",
           "dyn(true)",
           "cel.bind(a, device.attributes['d'], a.roots.includes('pci0'))",
       }) {
    absl::Status s = CheckDraSelector(source, on);
    EXPECT_TRUE(s.ok()) << source << "\n" << s;
  }
  absl::Status s =
      CheckDraSelector("includes(device.attributes['d'].x, 1)", on);
  EXPECT_EQ(s.message(),
            "compilation failed: ERROR: <input>:1:9: found no matching "
            "overload for 'includes' applied to '(dyn, int)'\n"
            " | includes(device.attributes['d'].x, 1)\n"
            " | ........^");
  EXPECT_EQ(CheckDraSelector("device.driver.includes(1) == 1", on).message(),
            "compilation failed: ERROR: <input>:1:27: found no matching "
            "overload for '_==_' applied to '(bool, int)'\n"
            " | device.driver.includes(1) == 1\n"
            " | ..........................^");
}

TEST(CheckerTest, LeavesUncheckableConstructsToTheServer) {
  EXPECT_EQ(CheckDraSelector("[1].exists(i, v, v == 1)").code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(CheckDraSelector("[1].transformList(i, v, v).size() == 1").code(),
            absl::StatusCode::kUnimplemented);
}

void CollectExpressions(const YAML::Node& n, std::vector<std::string>* out) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      if (kv.first.as<std::string>() == "expression" && kv.second.IsScalar()) {
        out->push_back(kv.second.as<std::string>());
      } else {
        CollectExpressions(kv.second, out);
      }
    }
  } else if (n.IsSequence()) {
    for (const auto& e : n) CollectExpressions(e, out);
  }
}

// Every selector the suite's data carries is one the API server takes.
TEST(CheckerTest, AcceptsTheSelectorsOfTheProjectsData) {
  std::vector<std::string> sources;
  YAML::Node classes =
      YAML::LoadFile("scheduler/cel/testdata/driver_device_classes.yaml");
  for (const auto& c : classes["classes"]) {
    sources.push_back(c["expression"].as<std::string>());
  }
  for (const char* file : {"e2e/conformance/kube-scheduler/dra_allocator.yaml",
                           "e2e/conformance/kube-scheduler/"
                           "dynamicresources.yaml"}) {
    for (const YAML::Node& doc : YAML::LoadAllFromFile(file)) {
      CollectExpressions(doc, &sources);
    }
  }
  EXPECT_GT(sources.size(), 20u);
  for (const std::string& source : sources) {
    absl::Status s = CheckDraSelector(source);
    EXPECT_TRUE(s.ok()) << source << "\n" << s;
  }
}

// The library examples evaluate to ints and bools and may fail at run
// time, but every one type-checks.
TEST(CheckerTest, TypesTheKubernetesLibraryExamples) {
  YAML::Node root =
      YAML::LoadFile("scheduler/cel/testdata/k8s_library_cases.yaml");
  for (const YAML::Node& c : root["cases"]) {
    const std::string source = c["expr"].as<std::string>();
    absl::Status s = CheckDraSelector(source);
    EXPECT_TRUE(s.ok() || absl::StartsWith(s.message(), "must evaluate to"))
        << source << "\n"
        << s;
  }
}

}  // namespace
}  // namespace shoal::cel
