#include "e2e/emulator/object_store.h"

#include <random>

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

}  // namespace

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

ObjectStore::ObjectStore(size_t history) : history_(history) {}

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
                         std::shared_ptr<const json> object) {
  auto line = std::make_shared<const std::string>(WatchLine(kind, *object));
  changes_.push_back(
      {version_, &type, ns, kind, std::move(object), std::move(line)});
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
  Record(type, ns, "ADDED", stored);
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

Reply ObjectStore::List(const ResourceType& type, const std::string& ns,
                        const Selector& labels, const Selector& fields) const {
  json items = json::array();
  absl::ReaderMutexLock lock(&mu_);
  auto all = objects_.find(type.QualifiedName());
  if (all != objects_.end()) {
    for (const auto& [key, object] : all->second) {
      if (!ns.empty() && (*object)["metadata"].value("namespace", "") != ns)
        continue;
      if (!labels.Matches(*object) || !fields.Matches(*object)) continue;
      json item = *object;
      // Built-in lists carry kind and apiVersion once, on the list.
      if (!type.custom) {
        item.erase("kind");
        item.erase("apiVersion");
      }
      items.push_back(std::move(item));
    }
  }
  return {200,
          {{"kind", type.kind + "List"},
           {"apiVersion", type.ApiVersion()},
           {"metadata", {{"resourceVersion", absl::StrCat(version_)}}},
           {"items", std::move(items)}}};
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
  it->second = stored;
  Record(type, ns, "MODIFIED", stored);
  return {200, *stored};
}

Reply ObjectStore::Remove(const ResourceType& type, const std::string& ns,
                          const std::string& name) {
  absl::MutexLock lock(&mu_);
  Objects& objects = objects_[type.QualifiedName()];
  auto it = objects.find(Key(ns, name));
  if (it == objects.end())
    return Reply::Error(NotFound(type.QualifiedName(), name));
  json object = *it->second;
  objects.erase(it);
  ++version_;
  object["metadata"]["resourceVersion"] = absl::StrCat(version_);
  auto gone = std::make_shared<const json>(std::move(object));
  Record(type, ns, "DELETED", gone);
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
