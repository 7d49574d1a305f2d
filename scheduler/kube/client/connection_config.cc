#include "scheduler/kube/client/connection_config.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "yaml-cpp/yaml.h"

namespace shoal::kube {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     const std::string& what) {
  std::ifstream in(path);
  if (!in)
    return absl::NotFoundError(absl::StrCat(what, ": cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// map[key] when `map` is a map, else an undefined node: yaml-cpp throws
// when a scalar is indexed, and a kubeconfig may hold a scalar anywhere.
YAML::Node Field(const YAML::Node& map, const std::string& key) {
  if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return map[key];
}

// Finds the entry named `name` in a kubeconfig list such as `clusters:`;
// entries that are not maps have no name.
YAML::Node Named(const YAML::Node& list, const std::string& name) {
  if (!list || !list.IsSequence()) return YAML::Node();
  for (const auto& entry : list) {
    YAML::Node n = Field(entry, "name");
    if (n && n.IsScalar() && n.Scalar() == name) return entry;
  }
  return YAML::Node();
}

std::vector<std::string> Names(const YAML::Node& list) {
  std::vector<std::string> names;
  if (list && list.IsSequence()) {
    for (const auto& entry : list) {
      YAML::Node n = Field(entry, "name");
      if (n && n.IsScalar()) names.push_back(n.Scalar());
    }
  }
  return names;
}

class Reader {
 public:
  Reader(std::string path)
      : path_(std::move(path)), dir_(fs::path(path_).parent_path()) {}

  absl::Status Error(const std::string& field, const std::string& why) const {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path_, ": ", field, ": ", why));
  }

  // `<key>-data` (base64) or `<key>` (a file, relative to the kubeconfig).
  absl::StatusOr<std::string> Pem(const YAML::Node& map, const std::string& key,
                                  const std::string& field) const {
    if (YAML::Node data = map[key + "-data"]) {
      std::string decoded;
      if (!absl::Base64Unescape(data.Scalar(), &decoded)) {
        return Error(field + "." + key + "-data", "not valid base64");
      }
      return decoded;
    }
    if (YAML::Node file = map[key]) {
      fs::path p = file.Scalar();
      if (p.is_relative()) p = dir_ / p;
      auto text = ReadFile(p.string(), absl::StrCat("kubeconfig ", path_, ": ",
                                                    field, ".", key));
      if (!text.ok()) return text.status();
      return *text;
    }
    return std::string();
  }

  std::string Resolve(const std::string& file) const {
    fs::path p = file;
    return (p.is_relative() ? dir_ / p : p).string();
  }

 private:
  std::string path_;
  fs::path dir_;
};

}  // namespace

absl::StatusOr<ConnectionConfig> ParseKubeconfig(const std::string& yaml,
                                                 const std::string& path,
                                                 const std::string& context) {
  Reader r(path);
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path, ":", e.mark.line + 1,
                     ": malformed YAML: ", e.msg));
  }
  if (!root.IsMap()) return r.Error("(top)", "must be a kubeconfig map");
  std::string name = context;
  if (name.empty()) {
    if (!root["current-context"] || root["current-context"].Scalar().empty()) {
      return r.Error("current-context", "is not set; pass --context");
    }
    name = root["current-context"].Scalar();
  }
  YAML::Node ctx = Named(root["contexts"], name);
  if (!ctx || !ctx["context"]) {
    return r.Error(
        absl::StrCat("contexts[", name, "]"),
        absl::StrCat("no such context (have: ",
                     absl::StrJoin(Names(root["contexts"]), ", "), ")"));
  }
  if (!ctx["context"].IsMap()) {
    return r.Error(absl::StrCat("contexts[", name, "].context"),
                   "must be a map with a cluster and a user");
  }
  YAML::Node cluster_field = ctx["context"]["cluster"];
  YAML::Node user_field = ctx["context"]["user"];
  std::string cluster_name = cluster_field ? cluster_field.Scalar() : "";
  std::string user_name = user_field ? user_field.Scalar() : "";
  YAML::Node cluster = Named(root["clusters"], cluster_name);
  if (!cluster || !cluster["cluster"]) {
    return r.Error(absl::StrCat("clusters[", cluster_name, "]"),
                   absl::StrCat("no such cluster, named by context ", name));
  }
  if (!cluster["cluster"].IsMap()) {
    return r.Error(absl::StrCat("clusters[", cluster_name, "].cluster"),
                   "must be a map with a server");
  }
  ConnectionConfig c;
  c.context = name;
  const YAML::Node& cl = cluster["cluster"];
  std::string cfield = absl::StrCat("clusters[", cluster_name, "]");
  if (!cl["server"] || cl["server"].Scalar().empty())
    return r.Error(cfield + ".server", "is required");
  c.server = cl["server"].Scalar();
  if (c.server.rfind("https://", 0) != 0 && c.server.rfind("http://", 0) != 0) {
    return r.Error(
        cfield + ".server",
        absl::StrCat("must be an http(s):// URL, got \"", c.server, "\""));
  }
  if (YAML::Node skip = cl["insecure-skip-tls-verify"])
    c.insecure_skip_tls_verify = skip.as<bool>(false);
  auto ca = r.Pem(cl, "certificate-authority", cfield);
  if (!ca.ok()) return ca.status();
  c.ca_pem = *ca;
  if (!user_name.empty()) {
    YAML::Node user = Named(root["users"], user_name);
    if (!user || !user["user"]) {
      return r.Error(absl::StrCat("users[", user_name, "]"),
                     absl::StrCat("no such user, named by context ", name));
    }
    if (!user["user"].IsMap()) {
      return r.Error(absl::StrCat("users[", user_name, "].user"),
                     "must be a map of credentials");
    }
    const YAML::Node& u = user["user"];
    std::string ufield = absl::StrCat("users[", user_name, "]");
    auto cert = r.Pem(u, "client-certificate", ufield);
    if (!cert.ok()) return cert.status();
    auto key = r.Pem(u, "client-key", ufield);
    if (!key.ok()) return key.status();
    c.client_cert_pem = *cert;
    c.client_key_pem = *key;
    if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
      return r.Error(
          ufield,
          "client-certificate and client-key go together; only one is set");
    }
    if (u["token"]) c.token = u["token"].Scalar();
    if (u["tokenFile"]) c.token_file = r.Resolve(u["tokenFile"].Scalar());
    if (u["exec"] || u["auth-provider"]) {
      return r.Error(
          ufield,
          "exec and auth-provider credentials are not supported; use a token, "
          "a token file or a client certificate");
    }
  }
  return c;
}

absl::StatusOr<ConnectionConfig> LoadKubeconfig(const std::string& path,
                                                const std::string& context) {
  auto text = ReadFile(path, "kubeconfig");
  if (!text.ok()) return text.status();
  return ParseKubeconfig(*text, path, context);
}

absl::StatusOr<ConnectionConfig> InClusterConfig(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') {
    return absl::FailedPreconditionError(
        "not running in a cluster (KUBERNETES_SERVICE_HOST/PORT are not set); "
        "pass --kubeconfig");
  }
  ConnectionConfig c;
  c.context = "in-cluster";
  std::string h = host;
  // An IPv6 service address needs brackets in a URL.
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  c.server = absl::StrCat("https://", h, ":", port);
  c.token_file = (fs::path(sa_dir) / "token").string();
  if (!fs::exists(c.token_file)) {
    return absl::NotFoundError(
        absl::StrCat("in-cluster: no service account token at ", c.token_file));
  }
  auto ca = ReadFile((fs::path(sa_dir) / "ca.crt").string(), "in-cluster");
  if (!ca.ok()) return ca.status();
  c.ca_pem = *ca;
  return c;
}

}  // namespace shoal::kube
