#include "scheduler/kube/client/connection_config.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace shoal::kube {
namespace {

namespace fs = std::filesystem;

constexpr char kConfig[] = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: Q0EgUEVN
- name: prod-cluster
  cluster:
    server: https://prod.example:6443
    certificate-authority: ca.pem
    insecure-skip-tls-verify: false
contexts:
- name: dev
  context: {cluster: dev-cluster, user: admin}
- name: prod
  context: {cluster: prod-cluster, user: robot}
users:
- name: admin
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: robot
  user:
    tokenFile: token
)";

TEST(KubeconfigTest, CurrentContextWithInlineCredentials) {
  auto c = ParseKubeconfig(kConfig, "/home/u/.kube/config", "");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->context, "dev");
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, "CA PEM");
  EXPECT_EQ(c->client_cert_pem, "CERT");
  EXPECT_EQ(c->client_key_pem, "KEY");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
}

TEST(KubeconfigTest, NamedContextWithFilesRelativeToTheKubeconfig) {
  fs::path dir =
      fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                          : "/tmp") /
      "kc";
  fs::create_directories(dir);
  std::ofstream(dir / "config") << kConfig;
  std::ofstream(dir / "ca.pem") << "PROD CA";
  std::ofstream(dir / "token") << "t0k3n";
  auto c = LoadKubeconfig((dir / "config").string(), "prod");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://prod.example:6443");
  EXPECT_EQ(c->ca_pem, "PROD CA");
  EXPECT_EQ(c->token_file, (dir / "token").string());
}

TEST(KubeconfigTest, RefusalsNameFileAndField) {
  auto err = [](const std::string& yaml, const std::string& ctx = "") {
    return std::string(ParseKubeconfig(yaml, "kc", ctx).status().message());
  };
  EXPECT_EQ(
      err(kConfig, "staging"),
      "kubeconfig kc: contexts[staging]: no such context (have: dev, prod)");
  std::string bad_b64 = kConfig;
  bad_b64.replace(bad_b64.find("S0VZ"), 4, "ab$cd");
  EXPECT_EQ(err(bad_b64),
            "kubeconfig kc: users[admin].client-key-data: not valid base64");
  std::string no_server = kConfig;
  no_server.replace(no_server.find("server: https://127.0.0.1:6443"), 30,
                    "server: 127.0.0.1:6443");
  EXPECT_EQ(err(no_server),
            "kubeconfig kc: clusters[dev-cluster].server: must be an "
            "http(s):// URL, got \"127.0.0.1:6443\"");
  EXPECT_EQ(err("apiVersion: v1\nkind: Config\n"),
            "kubeconfig kc: current-context: is not set; pass --context");
  EXPECT_EQ(err("clusters: [\n").substr(0, 32),
            "kubeconfig kc:2: malformed YAML:");
  std::string exec = kConfig;
  const std::string creds =
      "    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ";
  exec.replace(exec.find(creds), creds.size(), "    exec: {command: aws}");
  EXPECT_EQ(err(exec),
            "kubeconfig kc: users[admin]: exec and auth-provider credentials "
            "are not supported; use "
            "a token, a token file or a client certificate");
  EXPECT_EQ(LoadKubeconfig("/nonexistent/config", "").status().message(),
            "kubeconfig: cannot read /nonexistent/config");
}

// Found by tools/fuzz (kubeconfig_fuzzer): yaml-cpp throws when a scalar
// is indexed, and a list entry or a context, cluster or user that was a
// plain word ended the scheduler instead of being refused.
TEST(KubeconfigTest, ScalarsWhereMapsBelongAreRefused) {
  auto err = [](const std::string& yaml) {
    return std::string(ParseKubeconfig(yaml, "kc", "").status().message());
  };
  EXPECT_EQ(err("current-context: dev\ncontexts:\n- dev\n"),
            "kubeconfig kc: contexts[dev]: no such context (have: )");
  EXPECT_EQ(err("current-context: dev\ncontexts:\n- name: dev\n  context: x\n"),
            "kubeconfig kc: contexts[dev].context: must be a map with a "
            "cluster and a user");
  EXPECT_EQ(err("current-context: dev\ncontexts:\n- name: dev\n"
                "  context: {cluster: c}\nclusters:\n- c\n- name: c\n"
                "  cluster: https://x\n"),
            "kubeconfig kc: clusters[c].cluster: must be a map with a server");
  EXPECT_EQ(err("current-context: dev\ncontexts:\n- name: dev\n"
                "  context: {cluster: c, user: u}\nclusters:\n- name: c\n"
                "  cluster: {server: https://x}\nusers:\n- name: u\n"
                "  user: t0k3n\n"),
            "kubeconfig kc: users[u].user: must be a map of credentials");
}

TEST(InClusterTest, NeedsTheServiceEnvironment) {
  unsetenv("KUBERNETES_SERVICE_HOST");
  EXPECT_EQ(InClusterConfig("/var/run/secrets/kubernetes.io/serviceaccount")
                .status()
                .message(),
            "not running in a cluster (KUBERNETES_SERVICE_HOST/PORT are not "
            "set); pass --kubeconfig");
  fs::path sa = fs::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                                    : "/tmp") /
                "sa";
  fs::create_directories(sa);
  std::ofstream(sa / "token") << "sa-token";
  std::ofstream(sa / "ca.crt") << "SA CA";
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto c = InClusterConfig(sa.string());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://[fd00::1]:443");
  EXPECT_EQ(c->ca_pem, "SA CA");
  EXPECT_EQ(c->token_file, (sa / "token").string());
}

}  // namespace
}  // namespace shoal::kube
