// A Kubernetes API server for tests, over plain HTTP: the REST paths,
// verbs, subresources, watch stream and errors that Shoal and the
// official clients rely on, with nothing behind it but an ObjectStore.
// It is not a cluster: no kubelet, no controllers, no authentication.
#ifndef SHOAL_E2E_EMULATOR_API_SERVER_H_
#define SHOAL_E2E_EMULATOR_API_SERVER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "e2e/emulator/object_store.h"
#include "e2e/emulator/pod_rules.h"
#include "e2e/emulator/resource_table.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace shoal::emulator {

struct ApiServerOptions {
  // How many changes a watch can resume from before it is told 410.
  size_t history = 100000;
  // > 0: a LIST's continue token is answered 410 Expired once the store
  // is more than this many revisions past the token's first page, as if
  // etcd had compacted that revision (see ObjectStore).
  uint64_t continue_expiry_revisions = 0;
  // How often a watch that asked for bookmarks gets one.
  absl::Duration bookmark_interval = absl::Seconds(5);
  // API groups not served, as when their CRDs are not installed.
  std::vector<std::string> without_groups;
  // Shoal's custom resources served from the start, as permissive CRDs
  // would (status subresources, no schema). false: a bare API server,
  // serving a custom resource only once its CRD is created.
  bool custom_kinds = true;
  size_t threads = 64;
  // For tests: sees every request with the answer about to be sent (a
  // watch's before its stream starts), from the serving thread.
  std::function<void(const httplib::Request&, const httplib::Response&)>
      observe;
  // A slow API server, for tests of the scheduler's write pacing:
  // every write of an Event (core/v1 or events.k8s.io) answers this much
  // later, and
  absl::Duration event_delay = absl::ZeroDuration();
  // mutating requests (POST, PUT, PATCH, DELETE) are admitted at most
  // this many a second, one after another, as a kube-apiserver's
  // priority and fairness would hold a client; 0: unlimited. Requests
  // beyond the rate wait, holding their connection, rather than fail.
  double write_qps = 0;
};

class ApiServer {
 public:
  explicit ApiServer(ApiServerOptions options);
  ~ApiServer();

  // Listens on `host`:`port` (0: any free port) and serves from a thread
  // of its own; returns the port once it accepts connections, or -1.
  int Start(const std::string& host, int port);
  // Ends open watches within half a second and stops serving. Idempotent.
  void Stop();

  ObjectStore& store() { return store_; }

 private:
  struct Target;  // a parsed request path
  bool Parse(const std::string& path, Target* target) const;
  void Handle(const httplib::Request& req, httplib::Response& res);
  // Handle's work; `gzip`: the client offered gzip.
  void Answer(const httplib::Request& req, httplib::Response& res, bool gzip);
  // Holds a write until event_delay and write_qps let it through; false
  // when the server stops meanwhile.
  bool Pace(const Target& t);
  Reply Dispatch(const httplib::Request& req, const Target& t);
  void Watch(const httplib::Request& req, httplib::Response& res,
             const Target& t);
  Reply Create(const Target& t, nlohmann::json object);
  Reply Update(const Target& t, nlohmann::json object, bool status);
  Reply Patch(const Target& t, const std::string& content_type,
              const std::string& body, bool status);
  Reply Delete(const httplib::Request& req, const Target& t);
  // Puts `proposed` (a PUT body, or the object as patched) in place of
  // `current`: the status only, or all but the status.
  std::optional<ApiError> Replace(const Target& t, nlohmann::json& current,
                                  nlohmann::json proposed, bool status) const;
  void Seed();
  // GET /api, /api/v1, /apis, /apis/GROUP/VERSION; false for other paths.
  bool Discovery(const std::string& path, Reply* reply) const;
  // A CRD was written or deleted: serve what it now says.
  void CrdChanged(const Target& t, const Reply& reply, bool deleted);
  ApiServerOptions options_;
  ResourceTable resources_;
  PodResources pod_resources_;
  const ResourceType* namespaces_ = nullptr;
  ObjectStore store_;
  std::unique_ptr<httplib::Server> http_;
  std::thread serving_;
  std::atomic<bool> stopping_{false};
  // The next time a write may be admitted (write_qps).
  std::mutex pace_mu_;
  absl::Time next_write_ = absl::InfinitePast();
};

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_API_SERVER_H_
