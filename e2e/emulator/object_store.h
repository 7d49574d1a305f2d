// The emulator's etcd: every object by resource, namespace and name, one
// global resourceVersion counter, and a bounded history of changes that
// watches replay from. A watch asking for a version older than the
// history is told 410 Gone, as after an etcd compaction.
#ifndef SHOAL_E2E_EMULATOR_OBJECT_STORE_H_
#define SHOAL_E2E_EMULATOR_OBJECT_STORE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "e2e/emulator/api_error.h"
#include "e2e/emulator/resource_table.h"
#include "e2e/emulator/selectors.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {

// What a request gets back: an HTTP code and an object, list or Status.
struct Reply {
  int code = 200;
  nlohmann::json body;
  // The body already serialized (a LIST answer, written without building
  // its tree): sent as it is, and `body` is unused.
  std::string text;
  static Reply Error(const ApiError& e) { return {e.code, e.ToStatus()}; }
  bool ok() const { return code < 300; }
};

struct WatchEvent {
  uint64_t version = 0;
  const ResourceType* type = nullptr;
  std::string ns;
  std::string kind;  // ADDED, MODIFIED, DELETED
  std::shared_ptr<const nlohmann::json> object;
  // The object before this change (null for ADDED): a paged list reads
  // the store as it was at its first page by undoing newer changes.
  std::shared_ptr<const nlohmann::json> previous;
  // The watch line, serialized once for every watcher.
  std::shared_ptr<const std::string> line;
};

// A LIST in pages, as ?limit=N&continue=TOKEN asks.
struct ListPage {
  int64_t limit = 0;          // at most this many items; 0: all of them
  std::string continue_from;  // the previous page's metadata.continue
};

class ObjectStore {
 public:
  // `history`: how many changes watches can resume from (and paged lists
  // can read back to). `continue_expiry_revisions` > 0: a continue token
  // is answered 410 Expired once the store is more than that many
  // revisions past the token's resourceVersion, as if etcd had compacted
  // it (tests provoke the restart a real cluster sees after ~5 minutes).
  explicit ObjectStore(size_t history, uint64_t continue_expiry_revisions = 0);

  // Assigns uid, creationTimestamp and resourceVersion; a generateName
  // gets a random suffix. The namespace must exist and not be
  // terminating.
  Reply Create(const ResourceType& type, const std::string& ns,
               nlohmann::json object);
  Reply Get(const ResourceType& type, const std::string& ns,
            const std::string& name) const;
  // `ns` empty: across all namespaces. Items are ordered by their
  // "namespace/name" key, as etcd orders them. With a limit the answer
  // carries metadata.continue while more remain (and remainingItemCount
  // when no selector hides how many); every page of one list shows the
  // store at the first page's resourceVersion and carries that version.
  Reply List(const ResourceType& type, const std::string& ns,
             const Selector& labels, const Selector& fields,
             const ListPage& page = {}) const;
  // The same answer with its body serialized (Reply::text), for the HTTP
  // path: a page of large objects is written from the store directly.
  Reply ListText(const ResourceType& type, const std::string& ns,
                 const Selector& labels, const Selector& fields,
                 const ListPage& page = {}) const;

  // Read-modify-write under the store's lock. `change` edits the object
  // or refuses with an error. A change that alters nothing keeps the
  // resourceVersion and sends no event, like the real API server.
  using Change = std::function<std::optional<ApiError>(nlohmann::json& object)>;
  Reply Mutate(const ResourceType& type, const std::string& ns,
               const std::string& name, const Change& change);
  Reply Remove(const ResourceType& type, const std::string& ns,
               const std::string& name);

  // For a watch starting now: the objects that exist (sent as ADDED) and
  // the version they are current at.
  std::vector<std::shared_ptr<const nlohmann::json>> Current(
      const ResourceType& type, const std::string& ns, uint64_t* version) const;
  // Changes after `after`, waiting up to `timeout` for the first. False
  // when `after` is older than the history (410 Gone).
  bool ChangesAfter(uint64_t after, absl::Duration timeout,
                    std::vector<WatchEvent>* out) const;
  uint64_t version() const;
  uint64_t oldest_resumable() const;

 private:
  using StoredObject = std::shared_ptr<const nlohmann::json>;
  using Objects = std::map<std::string, StoredObject>;
  void Record(const ResourceType& type, const std::string& ns,
              const std::string& kind,
              std::shared_ptr<const nlohmann::json> object,
              std::shared_ptr<const nlohmann::json> previous)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<ApiError> CheckNamespace(const std::string& ns) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  // Every object of `qualified_name` as it was at `version`: the current
  // ones (null when there are none), or, when some changed since, a copy
  // in `scratch` with the changes after `version` undone.
  const Objects* At(const std::string& qualified_name, uint64_t version,
                    Objects* scratch) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // One page of a LIST: hands each item to `emit` in key order and sets
  // the list's metadata, or returns the error answer.
  std::optional<Reply> WalkPage(
      const ResourceType& type, const std::string& ns, const Selector& labels,
      const Selector& fields, const ListPage& page,
      const std::function<void(const std::string& key,
                               const StoredObject& object)>& emit,
      nlohmann::json* meta) const;
  // How many items of `ns` (all when empty) follow `from`, the first item
  // not sent on a page of `sent` items.
  int64_t Remaining(const ListPage& page, const std::string& ns, int64_t sent,
                    const Objects* objects, Objects::const_iterator from) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void RememberRemaining(const std::string& ns, const std::string& token,
                         int64_t remaining) const;

  const size_t history_;
  const uint64_t continue_expiry_revisions_;
  mutable absl::Mutex mu_;
  uint64_t version_ ABSL_GUARDED_BY(mu_) = 1;
  // Watches may resume from any version >= this: the newest change that
  // has fallen out of the history.
  uint64_t oldest_resumable_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, Objects> objects_
      ABSL_GUARDED_BY(mu_);  // by QualifiedName()
  std::deque<WatchEvent> changes_ ABSL_GUARDED_BY(mu_);
  // Each current object as a LIST item, serialized when it was written
  // (by QualifiedName() and key): a page is then a concatenation. The
  // object it was made from tells whether it is still current.
  struct ItemText {
    StoredObject object;
    std::string text;
  };
  absl::flat_hash_map<std::string, ItemText> item_texts_ ABSL_GUARDED_BY(mu_);
  // remainingItemCount after each continue token handed out (by
  // namespace and token): the next page subtracts what it sends.
  mutable absl::Mutex remaining_mu_;
  mutable std::map<std::string, int64_t> remaining_after_
      ABSL_GUARDED_BY(remaining_mu_);
};

// One line of a watch stream: {"type": ..., "object": ...} and a newline.
std::string WatchLine(const std::string& type, const nlohmann::json& object);
std::string Rfc3339(absl::Time t);
std::string NewUid();
// The opaque continue token of a page that ends before `start_key` at
// `version`, encoded as kube-apiserver encodes it: unpadded URL-safe
// base64 of {"v":"meta.k8s.io/v1","rv":VERSION,"start":KEY}.
std::string EncodeContinue(const std::string& start_key, int64_t version);
// False (and why in `error`) for a token this server did not make.
bool DecodeContinue(const std::string& token, std::string* start_key,
                    int64_t* version, std::string* error);

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_OBJECT_STORE_H_
