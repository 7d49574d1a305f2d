#include "e2e/emulator/object_store.h"

#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace shoal::emulator {
namespace {

using nlohmann::json;

std::string Key(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

std::mt19937_64& Rng() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  return rng;
}

std::string RandomSuffix() {
  static const char kChars[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string s;
  for (int i = 0; i < 5; ++i) s += kChars[Rng()() % (sizeof(kChars) - 1)];
  return s;
}

// What kube-apiserver says when a continue token's revision was compacted
// (apiserver/pkg/storage/etcd3: a 410 Expired Status); clients match on
// the reason, people read the message.
constexpr char kContinueExpired[] =
    "The provided continue parameter is too old to display a consistent list "
    "result. You can start a new list without the continue parameter, or use "
    "the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent "
    "list - objects that were created, modified, or deleted between the time "
    "the first chunk was returned and now may show up in the list.";

// An object as a list's item (`text` is its dump): a custom resource
// whole, a built-in kind without kind and apiVersion, which its list
// carries once.
std::string ListItemText(const ResourceType& type, const json& object,
                         std::string text) {
  if (type.custom) return text;
  // nlohmann writes keys in order: apiVersion and kind lead the dump of
  // any Kubernetes object (no key of one sorts before "apiVersion").
  std::string lead = absl::StrCat(
      "{\"apiVersion\":", object.value("apiVersion", json()).dump(),
      ",\"kind\":", object.value("kind", json()).dump(), ",");
  if (absl::StartsWith(text, lead)) return "{" + text.substr(lead.size());
  std::string item = "{";
  for (const auto& [key, value] : object.items()) {
    if (key == "kind" || key == "apiVersion") continue;
    if (item.size() > 1) item += ',';
    absl::StrAppend(&item, json(key).dump(), ":", value.dump());
  }
  return item + "}";
}

}  // namespace

std::string EncodeContinue(const std::string& start_key, int64_t version) {
  json token = {{"v", "meta.k8s.io/v1"}, {"rv", version}, {"start", start_key}};
  return absl::WebSafeBase64Escape(token.dump());
}

bool DecodeContinue(const std::string& token, std::string* start_key,
                    int64_t* version, std::string* error) {
  std::string text;
  if (!absl::WebSafeBase64Unescape(token, &text)) {
    *error = "continue key is not valid: not base64";
    return false;
  }
  json t = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!t.is_object() || t.value("v", "") != "meta.k8s.io/v1") {
    *error =
        "continue key is not valid: server does not recognize this "
        "encoded version";
    return false;
  }
  if (!t.contains("rv") || !t["rv"].is_number_integer() || t["rv"] == 0) {
    *error =
        "continue key is not valid: incorrect encoded start "
        "resourceVersion (version meta.k8s.io/v1)";
    return false;
  }
  if (!t.contains("start") || !t["start"].is_string() ||
      t["start"].get<std::string>().empty()) {
    *error =
        "continue key is not valid: encoded start key empty (version "
        "meta.k8s.io/v1)";
    return false;
  }
  *start_key = t["start"].get<std::string>();
  *version = t["rv"].get<int64_t>();
  return true;
}

std::string WatchLine(const std::string& type, const json& object) {
  return json{{"type", type}, {"object", object}}.dump() + "\n";
}

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string NewUid() {
  uint64_t a = Rng()(), b = Rng()();
  return absl::StrFormat("%08x-%04x-4%03x-%04x-%012x", a >> 32,
                         (a >> 16) & 0xffff, a & 0xfff,
                         0x8000 | ((b >> 48) & 0x3fff), b & 0xffffffffffffULL);
}

ObjectStore::ObjectStore(size_t history, uint64_t continue_expiry_revisions)
    : history_(history),
      continue_expiry_revisions_(continue_expiry_revisions) {}

std::optional<ApiError> ObjectStore::CheckNamespace(
    const std::string& ns) const {
  auto all = objects_.find("namespaces");
  const json* found = nullptr;
  if (all != objects_.end()) {
    auto it = all->second.find(ns);
    if (it != all->second.end()) found = it->second.get();
  }
  if (found == nullptr) return NotFound("namespaces", ns);
  if ((*found)["metadata"].contains("deletionTimestamp")) {
    return ApiError{403, "Forbidden",
                    "unable to create new content in namespace " + ns +
                        " because it is being terminated"};
  }
  return std::nullopt;
}

void ObjectStore::Record(const ResourceType& type, const std::string& ns,
                         const std::string& kind,
                         std::shared_ptr<const json> object,
                         std::shared_ptr<const json> previous) {
  // Serialized once: for every watcher, and for every LIST page until the
  // object changes again. (The bytes WatchLine() gives.)
  std::string text = object->dump();
  auto line = std::make_shared<const std::string>(absl::StrCat(
      "{\"object\":", text, ",\"type\":", json(kind).dump(), "}\n"));
  std::string key =
      absl::StrCat(type.QualifiedName(), "\n",
                   Key(ns, (*object)["metadata"].value("name", std::string())));
  if (kind == "DELETED") {
    item_texts_.erase(key);
  } else {
    item_texts_[key] = {object, ListItemText(type, *object, std::move(text))};
  }
  changes_.push_back({version_, &type, ns, kind, std::move(object),
                      std::move(previous), std::move(line)});
  while (changes_.size() > history_) {
    oldest_resumable_ = changes_.front().version;
    changes_.pop_front();
  }
}

Reply ObjectStore::Create(const ResourceType& type, const std::string& ns,
                          json object) {
  json& meta = object["metadata"];
  if (!meta.is_object())
    return Reply::Error(BadRequest("metadata must be an object"));
  absl::MutexLock lock(&mu_);
  if (type.namespaced) {
    if (auto e = CheckNamespace(ns)) return Reply::Error(*e);
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  Objects& objects = objects_[type.QualifiedName()];
  std::string name = meta.value("name", "");
  if (name.empty()) {
    std::string prefix = meta.value("generateName", "");
    if (prefix.empty()) {
      return Reply::Error(
          Invalid(type.kind, "", "metadata.name",
                  "Required value: name or generateName is required"));
    }
    do {
      name = prefix + RandomSuffix();
    } while (objects.count(Key(ns, name)) > 0);
    meta["name"] = name;
  }
  if (objects.count(Key(ns, name)) > 0) {
    return Reply::Error(AlreadyExists(type.QualifiedName(), name));
  }
  ++version_;
  meta["uid"] = NewUid();
  meta["creationTimestamp"] = Rfc3339(absl::Now());
  meta["resourceVersion"] = absl::StrCat(version_);
  if (type.custom)
    meta["generation"] = 1;  // spec changes count for custom resources
  object["apiVersion"] = type.ApiVersion();
  object["kind"] = type.kind;
  auto stored = std::make_shared<const json>(std::move(object));
  objects[Key(ns, name)] = stored;
  Record(type, ns, "ADDED", stored, nullptr);
  return {201, *stored};
}

Reply ObjectStore::Get(const ResourceType& type, const std::string& ns,
                       const std::string& name) const {
  absl::ReaderMutexLock lock(&mu_);
  auto all = objects_.find(type.QualifiedName());
  if (all != objects_.end()) {
    auto it = all->second.find(Key(ns, name));
    if (it != all->second.end()) return {200, *it->second};
  }
  return Reply::Error(NotFound(type.QualifiedName(), name));
}

const ObjectStore::Objects* ObjectStore::At(const std::string& qualified_name,
                                            uint64_t version,
                                            Objects* scratch) const {
  auto all = objects_.find(qualified_name);
  const Objects* current = all == objects_.end() ? nullptr : &all->second;
  // Most pages are read while nothing of their kind changed: the store as
  // it is now, without a copy.
  auto changed = [&](const WatchEvent& e) {
    return e.type->QualifiedName() == qualified_name;
  };
  auto newer_end = changes_.rend();
  bool any = false;
  for (auto e = changes_.rbegin(); e != changes_.rend() && e->version > version;
       ++e) {
    any = any || changed(*e);
    newer_end = e + 1;
  }
  if (!any) return current;
  if (current != nullptr) *scratch = *current;
  for (auto e = changes_.rbegin(); e != newer_end; ++e) {
    if (!changed(*e)) continue;
    std::string key =
        Key(e->ns, (*e->object)["metadata"].value("name", std::string()));
    if (e->previous == nullptr) {
      scratch->erase(key);
    } else {
      (*scratch)[key] = e->previous;
    }
  }
  return scratch;
}

std::optional<Reply> ObjectStore::WalkPage(
    const ResourceType& type, const std::string& ns, const Selector& labels,
    const Selector& fields, const ListPage& page,
    const std::function<void(const std::string& key,
                             const StoredObject& object)>& emit,
    json* meta) const {
  if (page.limit < 0) {
    return Reply::Error(BadRequest("limit must be a non-negative integer"));
  }
  absl::ReaderMutexLock lock(&mu_);
  uint64_t at = version_;
  std::string start;
  if (!page.continue_from.empty()) {
    int64_t token_version;
    std::string error;
    if (!DecodeContinue(page.continue_from, &start, &token_version, &error)) {
      return Reply::Error(BadRequest("invalid continue token: " + error));
    }
    // A negative version is the "inconsistent" token an Expired answer
    // offers: continue from the key, at the newest version.
    if (token_version > 0) {
      at = static_cast<uint64_t>(token_version);
      bool compacted = at < oldest_resumable_ ||
                       (continue_expiry_revisions_ > 0 && version_ > at &&
                        version_ - at > continue_expiry_revisions_);
      if (compacted) {
        ApiError expired{410, "Expired", kContinueExpired};
        json status = expired.ToStatus();
        status["metadata"]["continue"] = EncodeContinue(start, -1);
        return Reply{410, status};
      }
    }
  }
  Objects snapshot;
  const Objects* objects = At(type.QualifiedName(), at, &snapshot);
  std::string next, last_key;
  int64_t sent = 0;
  int64_t remaining = 0;
  bool filtered = !labels.Empty() || !fields.Empty();
  if (objects != nullptr) {
    for (auto it = objects->lower_bound(start); it != objects->end(); ++it) {
      const json& object = *it->second;
      if (!ns.empty() && object["metadata"].value("namespace", "") != ns)
        continue;
      if (!labels.Matches(object) || !fields.Matches(object)) continue;
      if (page.limit > 0 && sent == page.limit) {
        // The next page starts just after the last key sent, as etcd's
        // range does (the key with a zero byte appended).
        next = EncodeContinue(last_key + std::string(1, '\0'), at);
        // The real server only reports what is left when no selector
        // filters it.
        if (!filtered) {
          remaining = Remaining(page, ns, sent, objects, it);
          RememberRemaining(ns, next, remaining);
        }
        break;
      }
      emit(it->first, it->second);
      ++sent;
      last_key = it->first;
    }
  }
  *meta = {{"resourceVersion", absl::StrCat(at)}};
  if (!next.empty()) {
    (*meta)["continue"] = next;
    if (!filtered) (*meta)["remainingItemCount"] = remaining;
  }
  return std::nullopt;
}

int64_t ObjectStore::Remaining(const ListPage& page, const std::string& ns,
                               int64_t sent, const Objects* objects,
                               Objects::const_iterator from) const {
  // A page that follows one of ours knows how many were left after the
  // previous page: counting again would walk the rest of the store on
  // every page (quadratic over a long list).
  {
    absl::MutexLock lock(&remaining_mu_);
    auto known = remaining_after_.find(ns + '\n' + page.continue_from);
    if (!page.continue_from.empty() && known != remaining_after_.end()) {
      return known->second - sent;
    }
  }
  int64_t remaining = 0;
  for (auto it = from; it != objects->end(); ++it) {
    if (ns.empty() || (*it->second)["metadata"].value("namespace", "") == ns)
      ++remaining;
  }
  return remaining;
}

void ObjectStore::RememberRemaining(const std::string& ns,
                                    const std::string& token,
                                    int64_t remaining) const {
  absl::MutexLock lock(&remaining_mu_);
  // Tokens of abandoned lists are never asked for again: a bound keeps
  // them from piling up.
  if (remaining_after_.size() >= 1024) remaining_after_.clear();
  remaining_after_[ns + '\n' + token] = remaining;
}

Reply ObjectStore::List(const ResourceType& type, const std::string& ns,
                        const Selector& labels, const Selector& fields,
                        const ListPage& page) const {
  json items = json::array();
  json meta;
  auto error = WalkPage(
      type, ns, labels, fields, page,
      [&](const std::string&, const StoredObject& object) {
        json item = *object;
        // Built-in lists carry kind and apiVersion once,
        // on the list.
        if (!type.custom) {
          item.erase("kind");
          item.erase("apiVersion");
        }
        items.push_back(std::move(item));
      },
      &meta);
  if (error) return *error;
  return {200,
          {{"kind", type.kind + "List"},
           {"apiVersion", type.ApiVersion()},
           {"metadata", std::move(meta)},
           {"items", std::move(items)}}};
}

Reply ObjectStore::ListText(const ResourceType& type, const std::string& ns,
                            const Selector& labels, const Selector& fields,
                            const ListPage& page) const {
  // The answer List() gives, written straight from the stored objects (a
  // page of large pods is not copied into a second tree first), and in
  // kube-apiserver's order: kind, apiVersion, metadata, then the items, so
  // that a client knows the continue token before it reads them.
  std::string items, text_key;
  json meta;
  auto error = WalkPage(
      type, ns, labels, fields, page,
      [&](const std::string& key, const StoredObject& object) {
        if (!items.empty()) items += ',';
        text_key.assign(type.QualifiedName()).append("\n").append(key);
        auto text = item_texts_.find(text_key);
        // An object as it was before a newer change (a page read at an
        // older version) has no text kept: it is serialized now.
        if (text != item_texts_.end() && text->second.object == object) {
          items += text->second.text;
        } else {
          items += ListItemText(type, *object, object->dump());
        }
      },
      &meta);
  if (error) return *error;
  Reply reply;
  reply.text =
      absl::StrCat("{\"kind\":", json(type.kind + "List").dump(),
                   ",\"apiVersion\":", json(type.ApiVersion()).dump(),
                   ",\"metadata\":", meta.dump(), ",\"items\":[", items, "]}");
  return reply;
}

Reply ObjectStore::Mutate(const ResourceType& type, const std::string& ns,
                          const std::string& name, const Change& change) {
  absl::MutexLock lock(&mu_);
  Objects& objects = objects_[type.QualifiedName()];
  auto it = objects.find(Key(ns, name));
  if (it == objects.end())
    return Reply::Error(NotFound(type.QualifiedName(), name));
  json object = *it->second;
  if (auto e = change(object)) return Reply::Error(*e);
  // Identity fields are the server's, whatever the change did.
  for (const char* field : {"name", "namespace", "uid", "creationTimestamp"}) {
    if ((*it->second)["metadata"].contains(field)) {
      object["metadata"][field] = (*it->second)["metadata"][field];
    }
  }
  object["metadata"]["resourceVersion"] =
      (*it->second)["metadata"]["resourceVersion"];
  object["apiVersion"] = type.ApiVersion();
  object["kind"] = type.kind;
  if (object == *it->second) return {200, object};
  if (type.custom) {
    // Any change but to metadata counts as a new generation of a custom
    // resource, status included unless a status subresource serves it.
    auto content = [&type](json o) {
      o.erase("metadata");
      if (type.has_status) o.erase("status");
      return o;
    };
    if (content(object) != content(*it->second)) {
      object["metadata"]["generation"] =
          (*it->second)["metadata"].value("generation", 0) + 1;
    }
  }
  ++version_;
  object["metadata"]["resourceVersion"] = absl::StrCat(version_);
  auto stored = std::make_shared<const json>(std::move(object));
  std::shared_ptr<const json> previous = std::move(it->second);
  it->second = stored;
  Record(type, ns, "MODIFIED", stored, std::move(previous));
  return {200, *stored};
}

Reply ObjectStore::Remove(const ResourceType& type, const std::string& ns,
                          const std::string& name) {
  absl::MutexLock lock(&mu_);
  Objects& objects = objects_[type.QualifiedName()];
  auto it = objects.find(Key(ns, name));
  if (it == objects.end())
    return Reply::Error(NotFound(type.QualifiedName(), name));
  std::shared_ptr<const json> previous = it->second;
  json object = *previous;
  objects.erase(it);
  ++version_;
  object["metadata"]["resourceVersion"] = absl::StrCat(version_);
  auto gone = std::make_shared<const json>(std::move(object));
  Record(type, ns, "DELETED", gone, std::move(previous));
  return {200, *gone};
}

std::vector<std::shared_ptr<const json>> ObjectStore::Current(
    const ResourceType& type, const std::string& ns, uint64_t* version) const {
  std::vector<std::shared_ptr<const json>> out;
  absl::ReaderMutexLock lock(&mu_);
  *version = version_;
  auto all = objects_.find(type.QualifiedName());
  if (all == objects_.end()) return out;
  for (const auto& [key, object] : all->second) {
    if (ns.empty() || (*object)["metadata"].value("namespace", "") == ns)
      out.push_back(object);
  }
  return out;
}

bool ObjectStore::ChangesAfter(uint64_t after, absl::Duration timeout,
                               std::vector<WatchEvent>* out) const {
  absl::ReaderMutexLock lock(&mu_);
  if (after < oldest_resumable_) return false;
  auto newer = [this, after]()
                   ABSL_SHARED_LOCKS_REQUIRED(mu_) { return version_ > after; };
  mu_.AwaitWithTimeout(absl::Condition(&newer), timeout);
  if (after < oldest_resumable_) return false;
  // Versions grow along the deque: binary-search the first newer change.
  auto first = std::upper_bound(
      changes_.begin(), changes_.end(), after,
      [](uint64_t v, const WatchEvent& e) { return v < e.version; });
  out->assign(first, changes_.end());
  return true;
}

uint64_t ObjectStore::version() const {
  absl::ReaderMutexLock lock(&mu_);
  return version_;
}

uint64_t ObjectStore::oldest_resumable() const {
  absl::ReaderMutexLock lock(&mu_);
  return oldest_resumable_;
}

}  // namespace shoal::emulator
