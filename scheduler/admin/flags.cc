#include "scheduler/admin/flags.h"

#include <string>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, admin_address, shoal::admin::kDefaultAdminAddress,
          "Where the admin service (shoalctl) listens: unix:///PATH, "
          "127.0.0.1:PORT, or any host:PORT with --admin-tls-cert, "
          "--admin-tls-key and --admin-client-ca. Empty: no admin service.");
ABSL_FLAG(std::string, admin_tls_cert, "",
          "PEM certificate the admin service presents (required for a "
          "non-loopback --admin-address).");
ABSL_FLAG(std::string, admin_tls_key, "",
          "PEM private key of --admin-tls-cert.");
ABSL_FLAG(std::string, admin_client_ca, "",
          "PEM CA bundle that must have signed every admin client's "
          "certificate.");
ABSL_FLAG(bool, admin_allow_whatif, false,
          "Let `shoalctl whatif` run one cycle of another policy on the "
          "current cluster (decided, never applied; costs a cycle's CPU).");

namespace shoal::admin {

AdminOptions AdminOptionsFromFlags() {
  AdminOptions o;
  o.address = absl::GetFlag(FLAGS_admin_address);
  o.tls_cert = absl::GetFlag(FLAGS_admin_tls_cert);
  o.tls_key = absl::GetFlag(FLAGS_admin_tls_key);
  o.client_ca = absl::GetFlag(FLAGS_admin_client_ca);
  o.allow_whatif = absl::GetFlag(FLAGS_admin_allow_whatif);
  return o;
}

}  // namespace shoal::admin
