// How to reach an API server: from a kubeconfig file (its current context,
// or a named one) or from inside a pod (the service account). The
// Kubernetes client (issue 5) builds its TLS and auth from this.
#ifndef SHOAL_SCHEDULER_KUBE_CLIENT_CONNECTION_CONFIG_H_
#define SHOAL_SCHEDULER_KUBE_CLIENT_CONNECTION_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"

namespace shoal::kube {

struct ConnectionConfig {
  std::string server;  // https://host:port
  // PEM text (inline data, base64-decoded, or read from the file). Empty
  // means the system's trust store.
  std::string ca_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;       // bearer token, when given inline
  std::string token_file;  // re-read when it changes (rotated tokens)
  bool insecure_skip_tls_verify = false;
  std::string context;  // which context it came from, for messages
};

// `context` empty: the file's current-context. Refusals name the file and
// the field: "kubeconfig ~/.kube/config: users[admin].client-key-data: not
// valid base64".
absl::StatusOr<ConnectionConfig> LoadKubeconfig(const std::string& path,
                                                const std::string& context);
absl::StatusOr<ConnectionConfig> ParseKubeconfig(const std::string& yaml,
                                                 const std::string& path,
                                                 const std::string& context);

// The in-cluster config: KUBERNETES_SERVICE_HOST/PORT and the service
// account's token and CA under `sa_dir` (normally
// /var/run/secrets/kubernetes.io/serviceaccount).
absl::StatusOr<ConnectionConfig> InClusterConfig(const std::string& sa_dir);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_CLIENT_CONNECTION_CONFIG_H_
