#include "scheduler/admin/devices_text.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::admin {
namespace {

std::string Plural(int n, const std::string& one, const std::string& many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

std::string TaintText(const v1::DeviceTaint& t) {
  return absl::StrCat(
      t.key(), t.value().empty() ? "" : "=", t.value(), ":", t.effect(),
      t.rule().empty() ? ""
                       : absl::StrCat(" (DeviceTaintRule ", t.rule(), ")"));
}

std::string Uses(const google::protobuf::RepeatedPtrField<v1::AmountUse>& u) {
  std::vector<std::string> parts;
  for (const v1::AmountUse& a : u)
    parts.push_back(absl::StrCat(a.name(), " ", a.used(), "/", a.total()));
  return absl::StrJoin(parts, ", ");
}

// Worth a row without --all: anything but a free device nothing marks.
bool Notable(const v1::DeviceState& d) {
  return d.state() != "free" || d.taints_size() > 0 ||
         d.binding_waits_size() > 0 || !d.binding_failure().empty() ||
         d.admin_access_size() > 0;
}

std::string PoolLine(const v1::DevicePool& p) {
  int allocated = 0, partitions = 0, waiting = 0, shared = 0, shares = 0,
      tainted = 0, spent = 0, free = 0;
  for (const v1::DeviceState& d : p.devices()) {
    const std::string& s = d.state();
    if (s == "allocated") {
      ++allocated;
      if (d.partition()) ++partitions;
    } else if (s == "shared") {
      ++shared;
      shares += d.shares();
    } else if (s == "tainted") {
      ++tainted;
    } else if (s == "counters spent") {
      ++spent;
    } else {
      ++free;
    }
    if (d.binding_waits_size() > 0) ++waiting;
  }
  std::vector<std::string> parts;
  if (allocated > 0) {
    std::vector<std::string> of;
    if (partitions > 0)
      of.push_back(Plural(partitions, "partition", "partitions"));
    if (waiting > 0)
      of.push_back(absl::StrCat(waiting, " waiting for binding conditions"));
    parts.push_back(absl::StrCat(
        allocated, " allocated",
        of.empty() ? "" : absl::StrCat(" (", absl::StrJoin(of, ", "), ")")));
  }
  if (shared > 0)
    parts.push_back(absl::StrCat(shared, " shared (",
                                 Plural(shares, "share", "shares"), ")"));
  if (tainted > 0) parts.push_back(absl::StrCat(tainted, " tainted"));
  if (spent > 0)
    parts.push_back(absl::StrCat(spent, " kept by spent counters"));
  if (free > 0) parts.push_back(absl::StrCat(free, " free"));
  std::string line = absl::StrCat(
      "Pool ", p.driver(), "/", p.pool(), " (generation ", p.generation(),
      p.node().empty() ? absl::StrCat(", reachable from ", p.reach()) : "",
      "): ", Plural(p.devices_size(), "device", "devices"));
  if (!parts.empty()) absl::StrAppend(&line, ": ", absl::StrJoin(parts, ", "));
  if (p.incomplete())
    absl::StrAppend(&line, "; incomplete (slices missing): not allocated from");
  return line;
}

std::string State(const v1::DeviceState& d) {
  if (d.state() == "shared")
    return absl::StrCat("shared by ", Plural(d.shares(), "claim", "claims"));
  return d.state();
}

std::string Detail(const v1::DeviceState& d) {
  std::vector<std::string> parts;
  if (d.capacity_size() > 0 && (d.shares() > 0 || d.state() == "free"))
    parts.push_back(Uses(d.capacity()));
  if (d.partition())
    parts.push_back(
        absl::StrCat("partition of ", absl::StrJoin(d.counter_sets(), ", ")));
  std::vector<std::string> taints;
  for (const v1::DeviceTaint& t : d.taints()) taints.push_back(TaintText(t));
  if (!taints.empty()) {
    parts.push_back(absl::StrCat(d.state() == "tainted" ? "" : "tainted ",
                                 absl::StrJoin(taints, ", ")));
  }
  if (!d.binding_failure().empty()) {
    parts.push_back(
        absl::StrCat("reports binding failure ", d.binding_failure()));
  } else if (d.binding_waits_size() > 0) {
    parts.push_back(absl::StrCat("waiting for binding condition",
                                 d.binding_waits_size() == 1 ? " " : "s ",
                                 absl::StrJoin(d.binding_waits(), ", ")));
  }
  if (d.admin_access_size() > 0) {
    parts.push_back(
        absl::StrCat("admin access: ", absl::StrJoin(d.admin_access(), ", ")));
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace

std::string DevicesText(const v1::DevicesResponse& r, bool all) {
  std::string out;
  if (r.pools().empty()) out = "No devices: no ResourceSlice publishes any.\n";
  std::string heading = "\1";  // none yet
  for (const v1::DevicePool& p : r.pools()) {
    if (p.node() != heading) {
      if (!out.empty()) out += "\n";
      out += p.node().empty() ? "Network-attached\n"
                              : absl::StrCat("Node ", p.node(), "\n");
      heading = p.node();
    }
    out += absl::StrCat("  ", PoolLine(p), "\n");
    std::vector<std::vector<std::string>> rows = {
        {"DEVICE", "STATE", "CLAIMS", "DETAIL"}};
    for (const v1::DeviceState& d : p.devices()) {
      if (!all && !Notable(d)) continue;
      rows.push_back(
          {d.name(), State(d),
           d.claims().empty() ? "-" : absl::StrJoin(d.claims(), ", "),
           Detail(d)});
    }
    if (rows.size() > 1) out += KubectlTable(rows, "  ");
    for (const v1::CounterSetUse& cs : p.counter_sets()) {
      out += absl::StrCat("  Counters ", cs.name(), ": ", Uses(cs.counters()),
                          "\n");
    }
  }
  if (!r.unknown().empty()) {
    out += absl::StrCat("\nHeld by claims, published by no slice: ",
                        absl::StrJoin(r.unknown(), "; "), "\n");
  }
  return out;
}

std::string KubectlTable(const std::vector<std::vector<std::string>>& rows,
                         const std::string& indent) {
  std::vector<size_t> width;
  for (const auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size());
    for (size_t i = 0; i < r.size(); ++i)
      width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line = indent;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size())
        line += std::string(width[i] - r[i].size() + 3, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace shoal::admin
