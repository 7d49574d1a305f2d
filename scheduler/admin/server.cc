#include "scheduler/admin/server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/security/server_credentials.h"
#include "scheduler/admin/service.h"

namespace shoal::admin {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot read ", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The socket path of a unix: address, or "".
std::string UnixPath(const std::string& address) {
  if (absl::StartsWith(address, "unix://")) return address.substr(7);
  if (absl::StartsWith(address, "unix:")) return address.substr(5);
  return "";
}

// Whether a process accepts connections on the Unix socket.
bool Listening(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) return false;
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.data(), path.size());
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

}  // namespace

bool IsLocalAddress(const std::string& address) {
  if (absl::StartsWith(address, "unix:")) return true;
  std::string host = address;
  if (absl::StartsWith(host, "dns:///")) host = host.substr(7);
  if (absl::StartsWith(host, "ipv4:")) host = host.substr(5);
  if (absl::StartsWith(host, "ipv6:")) host = host.substr(5);
  if (absl::StartsWith(host, "[::1]:")) return true;
  size_t colon = host.rfind(':');
  if (colon != std::string::npos) host = host.substr(0, colon);
  return host == "localhost" || absl::StartsWith(host, "127.");
}

AdminServer::~AdminServer() { Shutdown(); }

void AdminServer::Shutdown() {
  if (server_ != nullptr) {
    server_->Shutdown();
    server_->Wait();
    server_.reset();
  }
}

absl::Status CheckAdminOptions(const AdminOptions& options) {
  const std::string& address = options.address;
  if (address.empty()) {
    return absl::InvalidArgumentError("--admin-address must not be empty");
  }
  const bool any_tls = !options.tls_cert.empty() || !options.tls_key.empty() ||
                       !options.client_ca.empty();
  const bool all_tls = !options.tls_cert.empty() && !options.tls_key.empty() &&
                       !options.client_ca.empty();
  if (any_tls && !all_tls) {
    return absl::InvalidArgumentError(
        "admin TLS needs all of --admin-tls-cert, --admin-tls-key and "
        "--admin-client-ca");
  }
  if (!IsLocalAddress(address) && !all_tls) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--admin-address=", address,
        " is not a Unix socket or loopback address, so the admin service "
        "needs TLS with client certificates: pass --admin-tls-cert, "
        "--admin-tls-key and --admin-client-ca"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<AdminServer>> StartAdminServer(
    const AdminOptions& options, const AdminBackend& backend) {
  if (auto s = CheckAdminOptions(options); !s.ok()) return s;
  const std::string& address = options.address;
  const bool all_tls = !options.tls_cert.empty() && !options.tls_key.empty() &&
                       !options.client_ca.empty();
  std::shared_ptr<grpc::ServerCredentials> credentials;
  if (all_tls) {
    auto cert = ReadPem(options.tls_cert, "--admin-tls-cert");
    if (!cert.ok()) return cert.status();
    auto key = ReadPem(options.tls_key, "--admin-tls-key");
    if (!key.ok()) return key.status();
    auto ca = ReadPem(options.client_ca, "--admin-client-ca");
    if (!ca.ok()) return ca.status();
    grpc::SslServerCredentialsOptions ssl(
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    ssl.pem_root_certs = *ca;
    ssl.pem_key_cert_pairs.push_back({*key, *cert});
    credentials = grpc::SslServerCredentials(ssl);
  } else {
    credentials = grpc::InsecureServerCredentials();
  }
  const std::string socket = UnixPath(address);
  if (!socket.empty()) {
    struct stat st;
    if (lstat(socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {
      if (Listening(socket)) {
        return absl::AlreadyExistsError(absl::StrCat(
            "--admin-address=", address,
            ": another process (a second shoal-scheduler?) serves that "
            "socket; pick another --admin-address"));
      }
      // Left by an earlier run: nothing listens on it any more.
      unlink(socket.c_str());
    }
  }
  std::unique_ptr<AdminServer> server(new AdminServer());
  server->address_ = address;
  server->service_ =
      std::make_unique<AdminService>(backend, options.allow_whatif);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, credentials,
                           socket.empty() ? &server->port_ : nullptr);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || (socket.empty() && server->port_ == 0)) {
    server->server_.reset();
    return absl::UnavailableError(absl::StrCat(
        "--admin-address=", address,
        ": cannot listen there (in use, bad address, or no permission)"));
  }
  if (!socket.empty()) chmod(socket.c_str(), 0660);
  return server;
}

}  // namespace shoal::admin
