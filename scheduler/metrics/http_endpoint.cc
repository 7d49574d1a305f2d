#include "scheduler/metrics/http_endpoint.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "httplib.h"

namespace shoal::metrics {
namespace {

// "45s", "2m30s": whole seconds are enough to read.
std::string Seconds(absl::Duration d) {
  return absl::FormatDuration(absl::Trunc(d, absl::Seconds(1)));
}

}  // namespace

Health::Health(Options options, absl::Time start)
    : options_(options), running_since_(start) {}

void Health::CycleFinished(absl::Time at) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!last_cycle_ || at > *last_cycle_) last_cycle_ = at;
}

void Health::SetSynced(bool synced) {
  std::lock_guard<std::mutex> lock(mu_);
  synced_ = synced;
  unsynced_.clear();
  UpdateRunningLocked(absl::Now());
}

void Health::SetUnsynced(std::vector<std::string> kinds) {
  std::lock_guard<std::mutex> lock(mu_);
  synced_ = kinds.empty();
  unsynced_ = std::move(kinds);
  UpdateRunningLocked(absl::Now());
}

void Health::SetLeadership(Leadership leadership, absl::Time at) {
  std::lock_guard<std::mutex> lock(mu_);
  leadership_ = leadership;
  UpdateRunningLocked(at);
}

void Health::SetPeriod(absl::Duration period) {
  std::lock_guard<std::mutex> lock(mu_);
  options_.period = period;
}

bool Health::RunningLocked() const {
  return synced_ && (leadership_ == Leadership::kLeader ||
                     leadership_ == Leadership::kNotElecting);
}

void Health::UpdateRunningLocked(absl::Time at) {
  bool running = RunningLocked();
  if (running && !running_) running_since_ = at;
  running_ = running;
}

absl::Duration Health::StuckAfter() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::max(options_.period * options_.stuck_periods, options_.min_stuck);
}

Health::Verdict Health::Liveness(absl::Time now) const {
  absl::Duration limit = StuckAfter();
  std::lock_guard<std::mutex> lock(mu_);
  if (!running_) return {200, "ok\n"};
  bool cycled = last_cycle_ && *last_cycle_ >= running_since_;
  absl::Duration idle = now - (cycled ? *last_cycle_ : running_since_);
  if (idle <= limit) return {200, "ok\n"};
  if (cycled) {
    return {500,
            absl::StrCat("stuck: the last scheduling cycle finished ",
                         Seconds(idle), " ago (limit ", Seconds(limit), ")\n")};
  }
  return {500, absl::StrCat("stuck: no scheduling cycle finished in the ",
                            Seconds(idle), " since scheduling began (limit ",
                            Seconds(limit), ")\n")};
}

Health::Verdict Health::Readiness() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> missing;
  if (!synced_) {
    missing.push_back(unsynced_.empty()
                          ? "caches not synced"
                          : absl::StrCat("caches not synced: ",
                                         absl::StrJoin(unsynced_, ", ")));
  }
  if (leadership_ == Leadership::kUnknown)
    missing.push_back("leadership not yet known");
  if (!missing.empty()) {
    return {503,
            absl::StrCat("not ready: ", absl::StrJoin(missing, "; "), "\n")};
  }
  switch (leadership_) {
    case Leadership::kLeader:
      return {200, "leader\n"};
    case Leadership::kStandby:
      return {200, "standby\n"};
    default:
      return {200, "leader (not electing)\n"};
  }
}

HttpEndpoint::HttpEndpoint(const Registry& registry, const Health& health)
    : registry_(registry), health_(health) {}

HttpEndpoint::~HttpEndpoint() { Stop(); }

absl::Status HttpEndpoint::Start(const std::string& address) {
  if (server_ != nullptr)
    return absl::FailedPreconditionError("metrics endpoint already started");
  size_t colon = address.rfind(':');
  std::string host = colon == std::string::npos ? "" : address.substr(0, colon);
  int port = -1;
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics address ", address, ": want HOST:PORT or :PORT, e.g. :8080"));
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";

  auto server = std::make_unique<httplib::Server>();
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which would let
  // a second scheduler on this machine share the port without an error.
  server->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server->Get("/metrics",
              [this](const httplib::Request&, httplib::Response& res) {
                res.set_content(registry_.Render(), kContentType);
              });
  server->Get("/healthz",
              [this](const httplib::Request&, httplib::Response& res) {
                Health::Verdict v = health_.Liveness();
                res.status = v.code;
                res.set_content(v.body, "text/plain; charset=utf-8");
              });
  server->Get("/readyz",
              [this](const httplib::Request&, httplib::Response& res) {
                Health::Verdict v = health_.Readiness();
                res.status = v.code;
                res.set_content(v.body, "text/plain; charset=utf-8");
              });
  int bound = port == 0 ? server->bind_to_any_port(host)
                        : (server->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    return absl::UnavailableError(
        absl::StrCat("metrics address ", address, ": cannot listen there"));
  }
  port_ = bound;
  server_ = std::move(server);
  thread_ = std::thread([s = server_.get()] { s->listen_after_bind(); });
  // Stop() only stops a server that is already listening.
  while (!server_->is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return absl::OkStatus();
}

void HttpEndpoint::Stop() {
  if (server_ == nullptr) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace shoal::metrics
