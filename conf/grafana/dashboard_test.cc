// Checks conf/grafana/shoal-dashboard.json against the metrics Shoal
// registers: every `shoal_` name in a panel's query must be a counter or
// gauge family, or a histogram family's _bucket, _sum or _count series.
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal {
namespace {

using nlohmann::json;

// Family name -> type, from a registry holding every Shoal metric.
std::map<std::string, metrics::Type> Exported() {
  metrics::Registry registry;
  metrics::ShoalMetrics shoal(registry);
  std::map<std::string, metrics::Type> out;
  for (const auto& [name, type] : registry.Families()) out[name] = type;
  return out;
}

// The series names `expr` mentions that Shoal does not export.
std::vector<std::string> Unknown(
    const std::string& expr,
    const std::map<std::string, metrics::Type>& exported) {
  static const std::regex kName(R"(\bshoal_[a-zA-Z0-9_:]*)");
  std::vector<std::string> out;
  for (std::sregex_iterator it(expr.begin(), expr.end(), kName), end; it != end;
       ++it) {
    std::string name = it->str();
    auto found = exported.find(name);
    if (found != exported.end() && found->second != metrics::Type::kHistogram)
      continue;
    bool ok = false;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      std::string s = suffix;
      if (name.size() > s.size() &&
          name.compare(name.size() - s.size(), s.size(), s) == 0) {
        auto base = exported.find(name.substr(0, name.size() - s.size()));
        ok =
            base != exported.end() && base->second == metrics::Type::kHistogram;
      }
    }
    if (!ok) out.push_back(name);
  }
  return out;
}

json Dashboard() {
  std::ifstream in("conf/grafana/shoal-dashboard.json");
  EXPECT_TRUE(in) << "shoal-dashboard.json not in runfiles";
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// Panels, including those nested in collapsed rows.
void Collect(const json& panels, std::vector<json>& out) {
  for (const json& p : panels) {
    out.push_back(p);
    if (p.contains("panels")) Collect(p["panels"], out);
  }
}

TEST(DashboardTest, TheCheckerKnowsHistogramSeries) {
  auto exported = Exported();
  EXPECT_TRUE(Unknown("rate(shoal_binds_total[5m])", exported).empty());
  EXPECT_TRUE(Unknown("histogram_quantile(0.9, sum by (le) (rate("
                      "shoal_e2e_scheduling_latency_milliseconds_bucket[5m])))",
                      exported)
                  .empty());
  EXPECT_EQ(Unknown("shoal_e2e_scheduling_latency_milliseconds", exported),
            std::vector<std::string>{
                "shoal_e2e_scheduling_latency_milliseconds"});  // no series
  EXPECT_EQ(
      Unknown("shoal_binds_total_count + shoal_made_up", exported),
      (std::vector<std::string>{"shoal_binds_total_count", "shoal_made_up"}));
}

TEST(DashboardTest, EveryQueriedMetricIsExported) {
  json dashboard = Dashboard();
  ASSERT_TRUE(dashboard.is_object()) << "not valid JSON";
  EXPECT_FALSE(dashboard.value("title", "").empty());
  EXPECT_FALSE(dashboard.value("uid", "").empty());
  std::vector<json> panels;
  Collect(dashboard.value("panels", json::array()), panels);
  auto exported = Exported();
  std::set<int> ids;
  std::set<std::string> mentioned;
  int queries = 0;
  for (const json& panel : panels) {
    std::string title = panel.value("title", "");
    EXPECT_TRUE(ids.insert(panel.value("id", -1)).second)
        << "duplicate panel id in " << title;
    EXPECT_TRUE(panel.contains("gridPos")) << title;
    if (panel.value("type", "") == "row") continue;
    ASSERT_TRUE(panel.contains("targets")) << title;
    std::set<std::string> refs;
    for (const json& target : panel["targets"]) {
      std::string expr = target.value("expr", "");
      ++queries;
      EXPECT_TRUE(refs.insert(target.value("refId", "")).second)
          << title << ": duplicate refId";
      EXPECT_NE(expr.find("shoal_"), std::string::npos)
          << title << ": " << expr << " queries no Shoal metric";
      for (const std::string& name : Unknown(expr, exported)) {
        ADD_FAILURE() << "panel \"" << title << "\" queries " << name
                      << ", which Shoal does not export: " << expr;
      }
      static const std::regex kName(R"(shoal_[a-zA-Z0-9_:]*)");
      for (auto it = std::sregex_iterator(expr.begin(), expr.end(), kName);
           it != std::sregex_iterator(); ++it) {
        mentioned.insert(it->str());
      }
    }
  }
  EXPECT_GT(queries, 0);
  // What the dashboard is for.
  for (const char* must : {
           "shoal_e2e_scheduling_latency_milliseconds_bucket",
           "shoal_binds_total",
           "shoal_queue_share",
           "shoal_queue_pending_gangs",
           "shoal_evictions_total",
           "shoal_api_request_duration_seconds_bucket",
       }) {
    EXPECT_TRUE(mentioned.count(must)) << "no panel shows " << must;
  }
}

}  // namespace
}  // namespace shoal
