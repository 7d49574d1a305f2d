// Serves the admin service (shoalctl's) on a Unix socket or a TCP
// address. A Unix socket or a loopback address is served in plain text
// (the socket is made owner- and group-only); any other address only with
// TLS and verified client certificates.
#ifndef SHOAL_SCHEDULER_ADMIN_SERVER_H_
#define SHOAL_SCHEDULER_ADMIN_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/admin/backend.h"

namespace grpc {
class Server;
}

namespace shoal::admin {

// Where shoal-scheduler listens and shoalctl connects unless told.
inline constexpr char kDefaultAdminAddress[] = "unix:///tmp/shoal-admin.sock";

struct AdminOptions {
  // "unix:///path", "unix:relative/path", "127.0.0.1:PORT",
  // "localhost:PORT", "[::1]:PORT", or any other host:port (TLS required).
  // Port 0 picks a free port (AdminServer::port()).
  std::string address = kDefaultAdminAddress;
  // PEM files: the server's certificate and key, and the CA that signs
  // the clients' certificates (--admin-tls-cert, --admin-tls-key,
  // --admin-client-ca).
  std::string tls_cert;
  std::string tls_key;
  std::string client_ca;
  // --admin-allow-whatif: WhatIf runs another policy's cycle on request.
  bool allow_whatif = false;
};

// True for unix: addresses and 127.0.0.0/8, localhost and [::1].
bool IsLocalAddress(const std::string& address);

class AdminService;

class AdminServer {
 public:
  ~AdminServer();  // shuts down, waiting for calls in flight
  const std::string& address() const { return address_; }
  // The TCP port bound (0 for a Unix socket).
  int port() const { return port_; }
  void Shutdown();

 private:
  friend absl::StatusOr<std::unique_ptr<AdminServer>> StartAdminServer(
      const AdminOptions&, const AdminBackend&);
  AdminServer() = default;
  std::string address_;
  int port_ = 0;
  std::unique_ptr<AdminService> service_;
  std::unique_ptr<grpc::Server> server_;
};

// The refusals StartAdminServer makes before touching the network: an
// empty address, some but not all TLS files, a non-local address without
// them. For checking flags at startup.
absl::Status CheckAdminOptions(const AdminOptions& options);

// Starts serving; the backend must outlive the server. Refuses a
// non-local address without all three TLS files (naming the flags), an
// unreadable file, and an address it cannot listen on.
absl::StatusOr<std::unique_ptr<AdminServer>> StartAdminServer(
    const AdminOptions& options, const AdminBackend& backend);

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_SERVER_H_
