// Keeps one kind of object in step with the API server: list, then watch
// from the list's resourceVersion; bookmarks move the resourceVersion on.
// The list comes in pages of kListPageSize, each applied as it arrives
// while the next is already asked for (when the server writes the continue
// token before the items, as kube-apiserver does);
// a continue token the server has compacted (410 Expired) restarts the
// list from its first page, and deletions are inferred only from a
// complete list;
// 410 Gone (the server no longer has that version) means list again, and
// objects the new list lacks are removed; a failed connection is retried
// with jittered exponential backoff. A kind whose CRD is not installed
// (404 on list) is reported once and retried slowly, never fatal.
// Metrics: each LIST sent counts in shoal_informer_relists_total{kind}
// (not the 404s of a missing kind), each watch that ends in an error
// (410 Gone included) in shoal_informer_watch_restarts_total{kind}, each
// list restarted after an expired continue token in
// shoal_informer_list_expired_total{kind}.
#ifndef SHOAL_SCHEDULER_KUBE_CLIENT_INFORMER_H_
#define SHOAL_SCHEDULER_KUBE_CLIENT_INFORMER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/client/http_client.h"

namespace shoal::kube {

struct WatchedKind {
  std::string name;       // "pods", for messages
  std::string list_path;  // "/api/v1/pods"
  bool optional = false;  // a CRD that may be missing
  // Applies an added or modified object; a refusal (a malformed object) is
  // logged and the object skipped.
  std::function<absl::Status(const nlohmann::json&)> upsert;
  // Removes the object with this "namespace/name" (or "name") key.
  std::function<void(const std::string& key)> remove;
};

// Items per LIST page. client-go's reflector pages its initial list with
// this same size: an answer of 500 pods is a few hundred KiB, so neither
// the API server nor Shoal holds a whole large cluster in one document,
// while 10,000 pods still take only 20 round trips.
inline constexpr int kListPageSize = 500;

// One page of a LIST answer, its items already handed on.
struct ListPageInfo {
  std::string resource_version;  // metadata.resourceVersion
  std::string continue_token;    // metadata.continue; empty on the last page
};

// Decodes one LIST answer, handing each item of `items` to `on_item` in
// order. The only place that parses a list's JSON, so that a streaming
// parser can replace it without touching the paging around it.
absl::StatusOr<ListPageInfo> DecodeListPage(
    const std::string& body,
    const std::function<void(const nlohmann::json& item)>& on_item);

struct Backoff {
  absl::Duration initial = absl::Milliseconds(500);
  absl::Duration max = absl::Seconds(30);
};

class Informer {
 public:
  Informer(HttpClient& client, WatchedKind kind, Backoff backoff = {});

  // Lists everything, page by page, applying each page as it arrives;
  // returns the list's resourceVersion (the snapshot every page of it
  // shows, so the watch from it misses nothing). Objects it has applied
  // and the complete list lacks are removed. NotFound when the kind does
  // not exist on the server.
  absl::StatusOr<std::string> List();

  // One watch connection from `version` until the server ends it or `stop`
  // is set; returns the newest resourceVersion seen. FailedPrecondition
  // ("gone") when the version is too old and a new list is needed.
  absl::StatusOr<std::string> Watch(const std::string& version,
                                    const std::atomic<bool>& stop);

  // List and watch until `stop`.
  void Run(const std::atomic<bool>& stop);

  // What List() and Watch() do with the bytes the server sent, apart from
  // the HTTP around them, so that tools/fuzz can feed them any bytes.
  // ApplyList: a LIST response body; returns its resourceVersion.
  // ApplyEvent: one line of a watch stream; moves *newest on, sets *gone
  // on a 410 ERROR event; false when the watch should end.
  absl::StatusOr<std::string> ApplyList(const std::string& body);
  bool ApplyEvent(const std::string& line, std::string* newest, bool* gone);

  bool synced() const { return synced_.load(); }

 private:
  void Apply(const nlohmann::json& object);
  // A list is complete: what it lacks was deleted meanwhile.
  void Complete(const std::set<std::string>& present);

  // The LIST request for the page after `continue_token` ("": the first).
  std::string PagePath(const std::string& continue_token) const;

  HttpClient& client_;
  // Fetches the next page of a list while this one is applied (a client
  // serves one thread at a time).
  std::unique_ptr<HttpClient> prefetch_client_;
  WatchedKind kind_;
  Backoff backoff_;
  std::set<std::string> known_;  // keys applied and not removed
  std::atomic<bool> synced_{false};
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_CLIENT_INFORMER_H_
