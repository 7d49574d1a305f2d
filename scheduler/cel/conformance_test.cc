// Runs every case of the CEL project's conformance data (cel-spec, as
// packaged in npm @bufbuild/cel-spec 0.6.1 and converted to JSON by
// tools/install-deps.sh). Each case must either give exactly the expected
// value (or an error where one is expected), or be refused at Compile with
// an "unsupported" message. Cases the harness cannot express at all (a
// check-only case, a binding that is a protobuf message) are counted as
// "not applicable" and listed. For the suites that are DRA's subset, a
// minimum share must be evaluated rather than refused.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/cel/program.h"

namespace shoal::cel {
namespace {

using nlohmann::json;

const char* DataPath() {
  const char* env = std::getenv("CEL_CONFORMANCE_JSON");
  return env != nullptr ? env
                        : "/var/cache/shoal-testdata/cel-spec-0.6.1/"
                          "conformance.json";
}

// Proto-JSON (cel.expr.Value) to a Value; false for kinds Shoal has no
// value for (objectValue, enumValue).
bool FromProtoJson(const json& v, Value* out) {
  if (v.contains("int64Value")) {
    int64_t i;
    if (!absl::SimpleAtoi(v["int64Value"].get<std::string>(), &i)) return false;
    *out = Value::Int(i);
  } else if (v.contains("uint64Value")) {
    uint64_t u;
    if (!absl::SimpleAtoi(v["uint64Value"].get<std::string>(), &u))
      return false;
    *out = Value::Uint(u);
  } else if (v.contains("doubleValue")) {
    const json& d = v["doubleValue"];
    if (d.is_number()) {
      *out = Value::Double(d.get<double>());
    } else {
      std::string s = d.get<std::string>();
      *out = Value::Double(
          s == "NaN" ? NAN : (s == "Infinity" ? INFINITY : -INFINITY));
    }
  } else if (v.contains("stringValue")) {
    *out = Value::String(v["stringValue"].get<std::string>());
  } else if (v.contains("bytesValue")) {
    std::string raw;
    if (!absl::Base64Unescape(v["bytesValue"].get<std::string>(), &raw)) {
      return false;
    }
    *out = Value::Bytes(raw);
  } else if (v.contains("boolValue")) {
    *out = Value::Bool(v["boolValue"].get<bool>());
  } else if (v.contains("nullValue")) {
    *out = Value::Null();
  } else if (v.contains("typeValue")) {
    *out = Value::Type(v["typeValue"].get<std::string>());
  } else if (v.contains("listValue")) {
    std::vector<Value> elems;
    for (const json& e : v["listValue"].value("values", json::array())) {
      Value x;
      if (!FromProtoJson(e, &x)) return false;
      elems.push_back(x);
    }
    *out = Value::List(std::move(elems));
  } else if (v.contains("mapValue")) {
    std::vector<std::pair<Value, Value>> entries;
    for (const json& e : v["mapValue"].value("entries", json::array())) {
      Value k, x;
      if (!FromProtoJson(e["key"], &k) || !FromProtoJson(e["value"], &x)) {
        return false;
      }
      entries.emplace_back(k, x);
    }
    absl::StatusOr<Value> m = Value::MapOf(std::move(entries));
    if (!m.ok()) return false;
    *out = *m;
  } else {
    return false;
  }
  return true;
}

// Exact comparison for the test: same kind (no numeric mixing), NaN
// equals NaN, lists and maps element-wise.
bool SameValue(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kDouble:
      if (std::isnan(a.as_double())) return std::isnan(b.as_double());
      return a.as_double() == b.as_double();
    case Kind::kList: {
      if (a.as_list().size() != b.as_list().size()) return false;
      for (size_t i = 0; i < a.as_list().size(); ++i) {
        if (!SameValue(a.as_list()[i], b.as_list()[i])) return false;
      }
      return true;
    }
    case Kind::kMap: {
      const MapData& x = a.as_map();
      if (x.entries.size() != b.as_map().entries.size()) return false;
      for (const auto& [k, v] : x.entries) {
        const Value* o = b.as_map().Find(k);
        if (o == nullptr || !SameValue(v, *o)) return false;
      }
      return true;
    }
    default:
      return a.Equals(b);
  }
}

struct Counts {
  int evaluated = 0, refused = 0, not_applicable = 0, failed = 0;
  int total() const { return evaluated + refused + not_applicable + failed; }
};

// The suites whose features DRA selectors use, with the share of cases
// that must be evaluated (not refused). The rest of each suite is what
// the subset refuses: protobuf messages and wrappers in comparisons and
// fields, timestamps in conversions, and so on.
const std::map<std::string, double>& DraSuites() {
  static const auto* m = new std::map<std::string, double>{
      {"basic", 0.90}, {"comparisons", 0.80}, {"conversions", 0.95},
      {"fields", 1.0}, {"fp_math", 1.0},      {"integer_math", 1.0},
      {"lists", 1.0},  {"logic", 1.0},        {"macros", 1.0},
      {"parse", 0.80}, {"string", 1.0},
  };
  return *m;
}

TEST(ConformanceTest, EveryCaseEvaluatesCorrectlyOrIsRefused) {
  std::ifstream in(DataPath());
  ASSERT_TRUE(in.good())
      << "CEL conformance data missing at " << DataPath()
      << ": run tools/install-deps.sh (it fetches npm @bufbuild/cel-spec@0.6.1"
         " and writes that file)";
  json root = json::parse(in, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(root.is_discarded()) << "unparsable " << DataPath();

  std::map<std::string, Counts> counts;
  std::map<std::string, int> na_reasons;
  for (const json& file : root["suites"]) {
    const std::string suite = file["name"].get<std::string>();
    Counts& c = counts[suite];
    for (const json& section : file.value("suites", json::array())) {
      for (const json& tc : section["tests"]) {
        const json& o = tc["original"];
        const std::string name =
            absl::StrCat(suite, "/", section["name"].get<std::string>(), "/",
                         o["name"].get<std::string>());
        const std::string expr = o["expr"].get<std::string>();
        auto not_applicable = [&](const std::string& why) {
          ++c.not_applicable;
          ++na_reasons[why];
        };
        if (o.value("checkOnly", false)) {
          not_applicable("check-only case (type deduction, no value)");
          continue;
        }
        const json bindings = o.value("bindings", json::object());
        Activation vars;
        bool bindable = true;
        for (const auto& [var, b] : bindings.items()) {
          Value v;
          if (!b.contains("value") || !FromProtoJson(b["value"], &v)) {
            bindable = false;
            break;
          }
          vars[var] = v;
        }
        const bool want_error = o.contains("evalError");
        json want_json = o.contains("value") ? o["value"]
                         : o.contains("typedResult")
                             ? o["typedResult"].value("result", json())
                             // cel-spec: no result given means `true`.
                             : json{{"boolValue", true}};
        CompileOptions options;
        options.variables.emplace();
        for (const json& decl : o.value("typeEnv", json::array())) {
          if (decl.contains("ident")) {
            options.variables->push_back(decl["name"].get<std::string>());
          }
        }
        for (const auto& [var, b] : bindings.items()) {
          options.variables->push_back(var);
        }
        options.container = o.value("container", "");
        // An unchecked case ("disableCheck") expects undeclared names to
        // fail at evaluation, so names are only checked for checked cases.
        if (o.value("disableCheck", false)) options.variables.reset();
        absl::StatusOr<Program> p = Program::Compile(expr, options);
        if (!p.ok()) {
          if (absl::StrContains(p.status().message(), "unsupported")) {
            ++c.refused;
          } else if (want_error) {
            ++c.evaluated;  // a compile-time error where one is expected
          } else {
            ++c.failed;
            ADD_FAILURE() << name << ": " << expr
                          << "\n  compile: " << p.status();
          }
          continue;
        }
        if (!bindable) {
          not_applicable("binding of a protobuf message or wrapper value");
          continue;
        }
        absl::StatusOr<Value> got = p->Evaluate(vars);
        if (want_error) {
          if (got.ok()) {
            ++c.failed;
            ADD_FAILURE() << name << ": " << expr << "\n  want an error, got "
                          << got->DebugString();
          } else {
            ++c.evaluated;
          }
          continue;
        }
        Value want;
        if (want_json.is_null() || !FromProtoJson(want_json, &want)) {
          // The expected value is a protobuf message or enum: any value
          // Shoal computes for it is wrong.
          ++c.failed;
          ADD_FAILURE() << name << ": " << expr
                        << "\n  expects a protobuf value, yet compiled; got "
                        << (got.ok() ? got->DebugString()
                                     : std::string(got.status().message()));
          continue;
        }
        if (!got.ok()) {
          ++c.failed;
          ADD_FAILURE() << name << ": " << expr << "\n  want "
                        << want.DebugString() << ", got " << got.status();
        } else if (!SameValue(*got, want)) {
          ++c.failed;
          ADD_FAILURE() << name << ": " << expr << "\n  want "
                        << want.DebugString() << ", got " << got->DebugString();
        } else {
          ++c.evaluated;
        }
      }
    }
  }

  Counts all;
  std::printf("%-18s %9s %7s %4s %6s %5s\n", "suite", "evaluated", "refused",
              "n/a", "failed", "total");
  for (const auto& [suite, c] : counts) {
    std::printf("%-18s %9d %7d %4d %6d %5d%s\n", suite.c_str(), c.evaluated,
                c.refused, c.not_applicable, c.failed, c.total(),
                DraSuites().count(suite) ? "  (DRA subset)" : "");
    all.evaluated += c.evaluated;
    all.refused += c.refused;
    all.not_applicable += c.not_applicable;
    all.failed += c.failed;
  }
  std::printf("%-18s %9d %7d %4d %6d %5d\n", "all", all.evaluated, all.refused,
              all.not_applicable, all.failed, all.total());
  for (const auto& [why, n] : na_reasons) {
    std::printf("not applicable: %d x %s\n", n, why.c_str());
  }
  for (const auto& [suite, min_share] : DraSuites()) {
    const Counts& c = counts[suite];
    ASSERT_GT(c.total(), 0) << suite << " missing from the data";
    double share = static_cast<double>(c.evaluated) / c.total();
    EXPECT_GE(share, min_share)
        << suite << ": " << c.evaluated << " of " << c.total()
        << " cases evaluated, below the required share " << min_share;
  }
}

}  // namespace
}  // namespace shoal::cel
