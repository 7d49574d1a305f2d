// shoalctl: asks a running shoal-scheduler, through its admin service, why
// pods wait, how queues share the cluster, what the cache holds, and what
// another policy would do.
#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "proto/admin.grpc.pb.h"
#include "scheduler/admin/devices_text.h"
#include "scheduler/admin/group_standing.h"
#include "scheduler/admin/server.h"
#include "yaml-cpp/yaml.h"

namespace {

namespace v1 = shoal::admin::v1;

constexpr int kFailed = 1;
constexpr int kUsage = 2;

const char kUsageText[] =
    "shoalctl: ask a running shoal-scheduler about its decisions.\n"
    "\n"
    "Usage:\n"
    "  shoalctl explain pod NAMESPACE/NAME        why a pending pod waits, "
    "per node, and what would make it fit\n"
    "  shoalctl explain podgroup NAMESPACE/NAME   the same for each role of "
    "a PodGroup, and what would let the gang run\n"
    "  shoalctl explain workload NAMESPACE/NAME[/PODGROUP[/KEY]]\n"
    "                                             the same for a gang of a "
    "Kubernetes Workload\n"
    "  shoalctl queues                            each queue's weight, "
    "deserved and allocated share, gangs\n"
    "  shoalctl devices [NODE] [--all]            DRA devices per node and "
    "pool: allocated, shared (capacity\n"
    "                                             consumed), partitions and "
    "their counters, tainted, waiting\n"
    "                                             for binding conditions "
    "(--all: free ones too)\n"
    "  shoalctl crds                              the installed CRDs of the "
    "kinds Shoal reads, and the fields it\n"
    "                                             honours that their schemas "
    "would drop\n"
    "  shoalctl snapshot > dump.json              the scheduler's cache as a "
    "kind: List (replay it with shoal-scheduler --snapshot)\n"
    "  shoalctl whatif --policy=FILE              one cycle of another "
    "policy on the current cluster; nothing is bound\n"
    "                                             (needs shoal-scheduler "
    "--admin-allow-whatif)\n"
    "\n"
    "Flags:\n"
    "  --address=ADDR     the scheduler's --admin-address (default "
    "unix:///tmp/shoal-admin.sock)\n"
    "  --tls-ca=FILE      CA of the scheduler's certificate (remote "
    "addresses)\n"
    "  --tls-cert=FILE    this client's certificate\n"
    "  --tls-key=FILE     this client's key\n"
    "  -o, --output=FMT   table (default), json or yaml\n"
    "  --timeout=SECONDS  give up after this long (default 30)\n"
    "  --all              devices: list free devices too\n"
    "  -h, --help         this text\n";

int Usage(const std::string& why) {
  std::cerr << "shoalctl: " << why << "\n\n" << kUsageText;
  return kUsage;
}

struct Args {
  std::string address = shoal::admin::kDefaultAdminAddress;
  std::string tls_ca, tls_cert, tls_key;
  std::string output = "table";
  std::string policy;
  bool all = false;
  int timeout = 30;
  std::vector<std::string> words;
};

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  *out = text.str();
  return true;
}

// --- output

YAML::Node ToYaml(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      YAML::Node n(YAML::NodeType::Map);
      for (const auto& [k, v] : j.items()) n[k] = ToYaml(v);
      if (j.empty()) n.SetStyle(YAML::EmitterStyle::Flow);
      return n;
    }
    case nlohmann::json::value_t::array: {
      YAML::Node n(YAML::NodeType::Sequence);
      for (const auto& v : j) n.push_back(ToYaml(v));
      if (j.empty()) n.SetStyle(YAML::EmitterStyle::Flow);
      return n;
    }
    case nlohmann::json::value_t::string:
      return YAML::Node(j.get<std::string>());
    case nlohmann::json::value_t::null:
      return YAML::Node(YAML::NodeType::Null);
    default:
      return YAML::Node(j.dump());
  }
}

std::string AsYaml(const nlohmann::json& j) {
  YAML::Emitter out;
  out << ToYaml(j);
  return std::string(out.c_str()) + "\n";
}

std::string AsJson(const google::protobuf::Message& m) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(m, &text, options);
  return text;
}

// Prints json/yaml, or returns false for the table format.
bool PrintStructured(const Args& args, const google::protobuf::Message& m) {
  if (args.output == "json") {
    std::cout << AsJson(m);
    return true;
  }
  if (args.output == "yaml") {
    std::cout << AsYaml(nlohmann::json::parse(AsJson(m)));
    return true;
  }
  return false;
}

void PrintExplain(const v1::ExplainResponse& e) {
  std::ostringstream out;
  if (!e.podgroup().empty()) {
    out << (e.podgroup_kind().empty() ? "PodGroup" : e.podgroup_kind()) << " "
        << e.podgroup() << " (queue " << e.queue() << "): " << e.phase() << ", "
        << e.ready() << " ready, " << e.pending() << " pending, minMember "
        << e.min_member() << "\n";
  } else {
    out << "Pod " << e.name() << " (queue " << e.queue() << ")\n";
  }
  if (!e.have_last_cycle()) {
    out << "Last cycle: none yet\n";
  } else if (!e.message().empty()) {
    out << "Message: " << e.message() << "\n";
  }
  for (const auto& b : e.blockers()) out << "Blocked: " << b << "\n";
  for (const auto& p : e.pods()) {
    out << "\nPod " << p.pod();
    if (!p.role().empty()) out << " (role " << p.role() << ")";
    out << ": " << p.available() << "\n";
    if (!p.pod_reason().empty()) out << "Waits: " << p.pod_reason() << "\n";
    for (const auto& c : p.claims()) out << "Claim " << c << "\n";
    std::vector<std::vector<std::string>> rows = {
        {"NODE", "FITS", "WHY / SCORES"}};
    for (const auto& n : p.nodes()) {
      std::string detail;
      if (n.feasible()) {
        std::map<std::string, int64_t> sorted(n.scores().begin(),
                                              n.scores().end());
        std::vector<std::string> parts;
        for (const auto& [k, v] : sorted)
          parts.push_back(absl::StrCat(k, "=", v));
        detail = absl::StrJoin(parts, " ");
      } else {
        detail = absl::StrJoin(n.reasons(), "; ");
      }
      rows.push_back({n.node(), n.feasible() ? "yes" : "no", detail});
    }
    out << shoal::admin::KubectlTable(rows);
    for (const auto& d : p.devices()) {
      out << "Devices on " << d.node() << ": " << absl::StrJoin(d.notes(), "; ")
          << "\n";
    }
    for (const auto& f : p.fixes()) out << "Fix: " << f.text() << "\n";
  }
  if (!e.gang_fix().empty()) out << "\nGang: " << e.gang_fix() << "\n";
  for (const auto& g : e.gang_room()) out << "Gang: " << g << "\n";
  if (!e.elastic().empty()) out << "Elastic: " << e.elastic() << "\n";
  if (!e.throughput().empty()) out << "Throughput: " << e.throughput() << "\n";
  if (e.groups_size() > 0) {
    // Indented by level, as `shoalctl queues` draws its tree.
    std::vector<std::vector<std::string>> rows = {
        {"GROUP", "KIND", "NEEDS", "HAS", "VERDICT"}};
    for (const auto& g : e.groups()) {
      const bool leaf = shoal::admin::CountsPods(g);
      rows.push_back(
          {std::string(2 * g.depth(), ' ') + g.name(), g.kind(),
           leaf ? absl::StrCat(g.needs(), " of ", g.of(), " pods placed")
                : absl::StrCat(g.needs(), " of ", g.of(), " groups whole"),
           leaf ? absl::StrCat(g.whole(), " placed, ", g.pending(), " pending")
                : absl::StrCat(g.whole(), " whole"),
           shoal::admin::GroupVerdict(g)});
    }
    out << "\nGroups:\n" << shoal::admin::KubectlTable(rows);
  }
  if (!e.network().empty()) {
    out << "\nNetwork: spec.networkTopology " << e.network()
        << "; described by " << e.network_source() << "\n";
    std::vector<std::vector<std::string>> rows = {
        {"DOMAIN", "TIER", "ROOM FOR", "NEEDS", "VERDICT"}};
    for (const auto& d : e.domains()) {
      std::string verdict =
          !d.holds_placed() ? "its running pods are elsewhere"
          : d.room() >= d.need()
              ? "holds the gang"
              : absl::StrCat("short of ", d.need() - d.room(), " pod",
                             d.need() - d.room() == 1 ? "" : "s");
      rows.push_back({d.name(), absl::StrCat(d.tier()), absl::StrCat(d.room()),
                      absl::StrCat(d.need()), verdict});
    }
    if (rows.size() > 1) out << shoal::admin::KubectlTable(rows);
  }
  std::cout << out.str();
}

// Queues as a tree: each parent above its children, names indented by
// depth; a flat cluster prints as before, in the server's order.
void PrintQueues(const v1::QueuesResponse& r) {
  std::map<std::string, std::vector<int>> children;  // parent -> queues
  for (int i = 0; i < r.queues_size(); ++i) {
    children[r.queues(i).parent()].push_back(i);
  }
  std::vector<std::vector<std::string>> rows = {
      {"NAME", "WEIGHT", "STATE", "SHARE", "PENDING", "RUNNING", "DESERVED",
       "ALLOCATED", "BORROWED", "LENT", "CAPABILITY"}};
  std::function<void(const std::string&)> add = [&](const std::string& parent) {
    for (int i : children[parent]) {
      const v1::QueueStatus& q = r.queues(i);
      auto dash = [](const std::string& v) { return v.empty() ? "-" : v; };
      rows.push_back(
          {std::string(2 * q.depth(), ' ') + q.name(), absl::StrCat(q.weight()),
           q.open() ? "Open" : "Closed", absl::StrFormat("%.2f", q.share()),
           absl::StrCat(q.pending_gangs()), absl::StrCat(q.running_gangs()),
           q.deserved(), q.allocated(), dash(q.borrowed()), dash(q.lent()),
           q.capability().empty() ? "unlimited" : q.capability()});
      add(q.name());
    }
  };
  add("");
  std::cout << shoal::admin::KubectlTable(rows);
}

void PrintCrds(const v1::CrdsResponse& r) {
  if (!r.checked()) {
    std::cout << "shoal-scheduler has read no CustomResourceDefinition of the "
                 "kinds it reads (a replay of a snapshot, or its ClusterRole "
                 "does not let it: conf/rbac.yaml)\n";
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"NAME", "DROPS"}};
  for (const v1::CrdCheck& c : r.crds()) {
    rows.push_back({c.name(), c.pruned_fields().empty()
                                  ? "-"
                                  : absl::StrJoin(c.pruned_fields(), ", ")});
  }
  std::cout << shoal::admin::KubectlTable(rows);
  for (const v1::CrdCheck& c : r.crds()) {
    for (const std::string& m : c.messages()) std::cout << "\n" << m << "\n";
  }
}

void PrintWhatIf(const v1::WhatIfResponse& r) {
  std::ostringstream out;
  for (const auto& w : r.warnings()) out << "warning: " << w << "\n";
  std::vector<std::vector<std::string>> rows = {{"ACTION", "POD", "DETAIL"}};
  for (const auto& b : r.binds()) rows.push_back({"bind", b.pod(), b.node()});
  for (const auto& e : r.evictions()) {
    rows.push_back(
        {"evict", e.pod(),
         absl::StrCat(e.reason(), e.preemptor().empty() ? "" : " for ",
                      e.preemptor())});
  }
  if (rows.size() == 1) {
    out << "No binds or evictions.\n";
  } else {
    out << shoal::admin::KubectlTable(rows);
  }
  if (!r.podgroups().empty()) {
    std::vector<std::vector<std::string>> groups = {
        {"PODGROUP", "PHASE", "MESSAGE"}};
    for (const auto& g : r.podgroups())
      groups.push_back({g.podgroup(), g.phase(), g.message()});
    out << "\n" << shoal::admin::KubectlTable(groups);
  }
  out << "(nothing was bound or evicted)\n";
  std::cout << out.str();
}

// --- calls

std::string CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::NOT_FOUND:
      return "NotFound";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "BadRequest";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "Forbidden";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "Unauthorized";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "Timeout";
    default:
      return absl::StrCat("code ", static_cast<int>(code));
  }
}

int Failed(const Args& args, const grpc::Status& s) {
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
    std::cerr << "shoalctl: cannot reach the scheduler at " << args.address
              << ": " << s.error_message()
              << " (is shoal-scheduler running with --admin-address="
              << args.address << "?)\n";
  } else {
    std::cerr << "Error from server (" << CodeName(s.error_code())
              << "): " << s.error_message() << "\n";
  }
  return kFailed;
}

std::unique_ptr<grpc::ClientContext> Context(const Args& args) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() +
                    std::chrono::seconds(args.timeout));
  return ctx;
}

int Run(Args& args) {
  const std::vector<std::string>& w = args.words;
  if (w.empty()) return Usage("no command given");
  const std::string& cmd = w[0];
  // Check the command line before touching the network.
  if (cmd == "explain") {
    if (w.size() != 3 ||
        (w[1] != "pod" && w[1] != "podgroup" && w[1] != "workload")) {
      return Usage(
          "explain takes `pod NAMESPACE/NAME`, `podgroup NAMESPACE/NAME` or "
          "`workload NAMESPACE/NAME[/PODGROUP[/KEY]]`");
    }
  } else if (cmd == "devices") {
    if (w.size() > 2) return Usage("devices takes at most a node's name");
  } else if (cmd == "queues" || cmd == "snapshot" || cmd == "crds") {
    if (w.size() != 1) return Usage(absl::StrCat(cmd, " takes no arguments"));
  } else if (cmd == "whatif") {
    if (w.size() != 1 || args.policy.empty())
      return Usage("whatif takes --policy=FILE");
  } else {
    return Usage(absl::StrCat("unknown command \"", cmd, "\""));
  }
  std::string policy_yaml;
  if (cmd == "whatif" && !ReadFile(args.policy, &policy_yaml)) {
    std::cerr << "shoalctl: --policy: cannot read " << args.policy << "\n";
    return kUsage;
  }

  std::shared_ptr<grpc::ChannelCredentials> creds;
  const bool tls =
      !args.tls_ca.empty() || !args.tls_cert.empty() || !args.tls_key.empty();
  if (tls) {
    grpc::SslCredentialsOptions ssl;
    if ((!args.tls_ca.empty() && !ReadFile(args.tls_ca, &ssl.pem_root_certs)) ||
        (!args.tls_cert.empty() &&
         !ReadFile(args.tls_cert, &ssl.pem_cert_chain)) ||
        (!args.tls_key.empty() &&
         !ReadFile(args.tls_key, &ssl.pem_private_key))) {
      std::cerr << "shoalctl: cannot read --tls-ca, --tls-cert or --tls-key\n";
      return kUsage;
    }
    creds = grpc::SslCredentials(ssl);
  } else if (!shoal::admin::IsLocalAddress(args.address)) {
    std::cerr << "shoalctl: --address=" << args.address
              << " is not a Unix socket or loopback address: the scheduler "
                 "serves it only over TLS; pass --tls-ca, --tls-cert and "
                 "--tls-key\n";
    return kUsage;
  } else {
    creds = grpc::InsecureChannelCredentials();
  }
  // A big cluster's snapshot is larger than gRPC's default 4 MiB.
  grpc::ChannelArguments channel_args;
  channel_args.SetMaxReceiveMessageSize(-1);
  auto stub = v1::Admin::NewStub(
      grpc::CreateCustomChannel(args.address, creds, channel_args));

  if (cmd == "explain") {
    v1::ExplainRequest req;
    if (w[1] == "pod") {
      req.set_pod(w[2]);
    } else {
      req.set_podgroup(w[2]);
    }
    v1::ExplainResponse resp;
    grpc::Status s = stub->Explain(Context(args).get(), req, &resp);
    if (!s.ok()) return Failed(args, s);
    if (!PrintStructured(args, resp)) PrintExplain(resp);
  } else if (cmd == "devices") {
    v1::DevicesRequest req;
    if (w.size() == 2) req.set_node(w[1]);
    v1::DevicesResponse resp;
    grpc::Status s = stub->Devices(Context(args).get(), req, &resp);
    if (!s.ok()) return Failed(args, s);
    if (!PrintStructured(args, resp))
      std::cout << shoal::admin::DevicesText(resp, args.all);
  } else if (cmd == "queues") {
    v1::QueuesResponse resp;
    grpc::Status s =
        stub->Queues(Context(args).get(), v1::QueuesRequest(), &resp);
    if (!s.ok()) return Failed(args, s);
    if (!PrintStructured(args, resp)) PrintQueues(resp);
  } else if (cmd == "crds") {
    v1::CrdsResponse resp;
    grpc::Status s = stub->Crds(Context(args).get(), v1::CrdsRequest(), &resp);
    if (!s.ok()) return Failed(args, s);
    if (!PrintStructured(args, resp)) PrintCrds(resp);
  } else if (cmd == "snapshot") {
    v1::SnapshotResponse resp;
    grpc::Status s =
        stub->Snapshot(Context(args).get(), v1::SnapshotRequest(), &resp);
    if (!s.ok()) return Failed(args, s);
    if (args.output == "yaml") {
      std::cout << AsYaml(nlohmann::json::parse(resp.list_json()));
    } else {
      std::cout << resp.list_json() << "\n";
    }
  } else {
    v1::WhatIfRequest req;
    req.set_policy_yaml(policy_yaml);
    req.set_policy_name(args.policy);
    v1::WhatIfResponse resp;
    grpc::Status s = stub->WhatIf(Context(args).get(), req, &resp);
    if (!s.ok()) return Failed(args, s);
    if (!PrintStructured(args, resp)) PrintWhatIf(resp);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  const std::map<std::string, std::string*> valued = {
      {"--address", &args.address},   {"--tls-ca", &args.tls_ca},
      {"--tls-cert", &args.tls_cert}, {"--tls-key", &args.tls_key},
      {"--output", &args.output},     {"-o", &args.output},
      {"--policy", &args.policy}};
  std::string timeout = "30";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help" || a == "help") {
      std::cout << kUsageText;
      return 0;
    }
    if (a.size() < 2 || a[0] != '-') {
      args.words.push_back(a);
      continue;
    }
    if (a == "--all") {
      args.all = true;
      continue;
    }
    std::string name = a, value;
    bool has_value = false;
    if (size_t eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    std::string* target = nullptr;
    if (auto it = valued.find(name); it != valued.end()) target = it->second;
    if (name == "--timeout") target = &timeout;
    if (target == nullptr) {
      std::vector<std::string> valid = {"--all", "--help", "--timeout"};
      for (const auto& [flag, unused] : valued) valid.push_back(flag);
      std::sort(valid.begin(), valid.end());
      return Usage(absl::StrCat("unknown flag ", name,
                                " (valid: ", absl::StrJoin(valid, ", "), ")"));
    }
    if (!has_value) {
      if (i + 1 >= argc) return Usage(absl::StrCat(name, " needs a value"));
      value = argv[++i];
    }
    *target = value;
  }
  if (args.output != "table" && args.output != "json" &&
      args.output != "yaml") {
    return Usage(absl::StrCat("-o must be table, json or yaml, got \"",
                              args.output, "\""));
  }
  if (timeout.empty() ||
      timeout.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(timeout) < 1) {
    return Usage(
        absl::StrCat("--timeout must be a positive number of "
                     "seconds, got \"",
                     timeout, "\""));
  }
  args.timeout = std::stoi(timeout);
  return Run(args);
}
