#include "tools/simulator/network.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tools/simulator/report.h"

namespace shoal::sim {

std::string NodeName(const NodePool& pool, int i) {
  return absl::StrCat(pool.prefix, "-", i);
}

const char* SpanName(Span span) {
  switch (span) {
    case Span::kRack:
      return "rack";
    case Span::kSpine:
      return "spine";
    case Span::kCluster:
      return "cluster";
  }
  return "cluster";
}

Network::Network(const Scenario& sc) : spec_(sc.network) {
  if (empty()) return;
  rack_nodes_.resize(spec_.racks());
  int n = 0;  // the parser made sure the racks hold exactly the nodes
  for (const auto& pool : sc.pools) {
    for (int i = 0; i < pool.count; ++i, ++n) {
      const int rack = n / spec_.nodes_per_rack;
      rack_nodes_[rack].push_back(NodeName(pool, i));
      rack_of_[rack_nodes_[rack].back()] = rack;
    }
  }
}

std::vector<api::HyperNodeSpec> Network::HyperNodes() const {
  using Member = api::HyperNodeMember;
  std::vector<api::HyperNodeSpec> out;
  for (int r = 0; r < racks(); ++r) {
    api::HyperNodeSpec rack{absl::StrCat("rack-", r), 1, "rack", {}};
    for (const auto& node : rack_nodes_[r])
      rack.members.push_back(
          {Member::Type::kNode, Member::Match::kExact, node});
    out.push_back(std::move(rack));
  }
  for (int s = 0; s < spec_.spines; ++s) {
    api::HyperNodeSpec spine{absl::StrCat("spine-", s), 2, "spine", {}};
    for (int r = s * spec_.racks_per_spine; r < (s + 1) * spec_.racks_per_spine;
         ++r) {
      spine.members.push_back({Member::Type::kHyperNode, Member::Match::kExact,
                               absl::StrCat("rack-", r)});
    }
    out.push_back(std::move(spine));
  }
  if (spec_.top) {
    api::HyperNodeSpec top{"top", 3, "top", {}};
    for (int s = 0; s < spec_.spines; ++s) {
      top.members.push_back({Member::Type::kHyperNode, Member::Match::kExact,
                             absl::StrCat("spine-", s)});
    }
    out.push_back(std::move(top));
  }
  return out;
}

Span Network::SpanOf(const std::vector<std::string>& nodes) const {
  std::set<int> racks, spines;
  for (const auto& node : nodes) {
    auto it = rack_of_.find(node);
    if (it == rack_of_.end()) return Span::kCluster;  // not in the network
    racks.insert(it->second);
    spines.insert(it->second / spec_.racks_per_spine);
  }
  if (racks.size() <= 1) return Span::kRack;
  if (spines.size() <= 1) return Span::kSpine;
  return Span::kCluster;
}

double Network::Factor(Span span) const {
  switch (span) {
    case Span::kRack:
      return spec_.rack;
    case Span::kSpine:
      return spec_.spine;
    case Span::kCluster:
      return spec_.cluster;
  }
  return spec_.cluster;
}

int Network::WholeRacks(const std::set<std::string>& busy_nodes) const {
  int whole = 0;
  for (const auto& nodes : rack_nodes_) {
    whole += std::none_of(
        nodes.begin(), nodes.end(),
        [&](const std::string& n) { return busy_nodes.count(n) != 0; });
  }
  return whole;
}

nlohmann::ordered_json NetworkSummary(const Network& net, bool constraints,
                                      const std::vector<JobOutcome>& jobs,
                                      const std::vector<Sample>& series,
                                      const std::vector<int>& whole_at_arrival,
                                      int64_t makespan) {
  nlohmann::ordered_json out;
  out["racks"] = net.racks();
  out["jobConstraints"] = constraints;
  double factors = 0;
  int started = 0;
  nlohmann::ordered_json spans = {{"rack", 0}, {"spine", 0}, {"cluster", 0}};
  for (const auto& j : jobs) {
    if (j.started < 0) continue;
    ++started;
    factors += j.factor;
    spans[j.span] = spans[j.span].get<int>() + 1;
  }
  out["slowdownMean"] = Round(started ? factors / started : 0);
  out["jobsBySpan"] = spans;
  double whole = 0;
  for (int w : whole_at_arrival) whole += w;
  out["racksWholeAtArrivalMean"] =
      Round(whole_at_arrival.empty() ? 0 : whole / whole_at_arrival.size());
  // Until the last job ended: the idle tail after it says nothing about
  // placement, and would make every run look alike.
  std::map<std::string, double> held, effective;
  int64_t seconds = 0;
  for (const auto& s : series) {
    if (s.second >= makespan) break;
    ++seconds;
    for (const auto& [r, u] : s.utilization) held[r] += u;
    for (const auto& [r, u] : s.effective_utilization) effective[r] += u;
  }
  nlohmann::ordered_json util = nlohmann::ordered_json::object();
  for (const auto& [r, sum] : held) {
    util[r] = {{"held", Round(seconds ? sum / seconds : 0)},
               {"effective", Round(seconds ? effective[r] / seconds : 0)}};
  }
  out["utilizationToMakespan"] = util;
  return out;
}

}  // namespace shoal::sim
