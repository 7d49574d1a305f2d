#include "scheduler/kube/informer.h"

#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "scheduler/kube/api_binder.h"
#include "scheduler/kube/object_meta.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

}  // namespace

Informer::Informer(HttpClient& client, WatchedKind kind, Backoff backoff)
    : client_(client), kind_(std::move(kind)), backoff_(backoff) {}

void Informer::Apply(const json& object) {
  absl::Status s = kind_.upsert(object);
  if (!s.ok()) {
    LOG(WARNING) << "skipping " << kind_.name << " " << ObjectKey(object)
                 << ": " << s.message();
    return;
  }
  known_.insert(ObjectKey(object));
}

absl::StatusOr<std::string> Informer::List() {
  auto r = client_.Request("GET", kind_.list_path);
  // Looking for a kind the server does not serve is not a relist.
  if (!r.ok() || r->status != 404) {
    metrics::Shoal().informer_relists.With({kind_.name}).Inc();
  }
  if (!r.ok()) return r.status();
  if (r->status == 404) {
    return absl::NotFoundError(absl::StrCat("list ", kind_.name,
                                            ": not served by this API server (",
                                            kind_.list_path, ")"));
  }
  if (r->status != 200) {
    return absl::UnavailableError(absl::StrCat("list ", kind_.name, ": HTTP ",
                                               r->status, ": ",
                                               StatusMessage(r->body)));
  }
  return ApplyList(r->body);
}

absl::StatusOr<std::string> Informer::ApplyList(const std::string& body) {
  json list = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!list.is_object() || !list.contains("items") ||
      !list["items"].is_array()) {
    return absl::UnavailableError(
        absl::StrCat("list ", kind_.name, ": not a list"));
  }
  std::set<std::string> present;
  for (const json& item : list["items"]) {
    present.insert(ObjectKey(item));
    Apply(item);
  }
  // What the new list lacks was deleted while we were not watching.
  for (auto it = known_.begin(); it != known_.end();) {
    if (present.count(*it) == 0) {
      kind_.remove(*it);
      it = known_.erase(it);
    } else {
      ++it;
    }
  }
  synced_ = true;
  return ResourceVersionOf(list);
}

absl::StatusOr<std::string> Informer::Watch(const std::string& version,
                                            const std::atomic<bool>& stop) {
  std::string path =
      absl::StrCat(kind_.list_path, "?watch=1&allowWatchBookmarks=true",
                   "&timeoutSeconds=300&resourceVersion=", version);
  std::string newest = version;
  bool gone = false;
  auto status = client_.Stream(
      path,
      [&](const std::string& line) {
        if (stop.load()) return false;
        return ApplyEvent(line, &newest, &gone);
      },
      absl::Minutes(5), &stop);
  if (!status.ok()) return status.status();
  if (gone || *status == 410) {
    return absl::FailedPreconditionError(absl::StrCat(
        "watch ", kind_.name, ": resourceVersion ", version, " is gone"));
  }
  if (*status != 200) {
    return absl::UnavailableError(
        absl::StrCat("watch ", kind_.name, ": HTTP ", *status));
  }
  return newest;
}

bool Informer::ApplyEvent(const std::string& line, std::string* newest,
                          bool* gone) {
  json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!event.is_object()) return true;  // not JSON: skip the line
  // Whatever the line holds, the informer goes on: json::value() would
  // throw on a member of another type than its default's.
  std::string type;
  if (event.contains("type") && event["type"].is_string())
    type = event["type"].get<std::string>();
  const json& object = event.value("object", json::object());
  if (type == "ERROR") {
    *gone = object.is_object() && object.contains("code") &&
            object["code"].is_number_integer() && object["code"] == 410;
    return false;
  }
  std::string v = ResourceVersionOf(object);
  if (!v.empty()) *newest = v;
  if (type == "ADDED" || type == "MODIFIED") {
    Apply(object);
  } else if (type == "DELETED") {
    kind_.remove(ObjectKey(object));
    known_.erase(ObjectKey(object));
  }
  return true;  // BOOKMARK only moves the version
}

void Informer::Run(const std::atomic<bool>& stop) {
  std::mt19937_64 rng(std::random_device{}());
  absl::Duration delay = backoff_.initial;
  bool reported_missing = false;
  std::string version;
  auto pause = [&] {
    // Jitter: between half and all of the current delay, so that many
    // informers do not reconnect in step.
    std::uniform_real_distribution<double> jitter(0.5, 1.0);
    absl::Duration d = delay * jitter(rng);
    for (absl::Duration slept; slept < d && !stop.load();
         slept += absl::Milliseconds(50)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    delay = std::min(delay * 2, backoff_.max);
  };
  while (!stop.load()) {
    if (version.empty()) {
      auto listed = List();
      if (listed.status().code() == absl::StatusCode::kNotFound &&
          kind_.optional) {
        if (!reported_missing)
          LOG(INFO) << listed.status().message() << "; will look again";
        reported_missing = true;
        delay = backoff_.max;
        pause();
        continue;
      }
      if (!listed.ok()) {
        LOG(WARNING) << listed.status().message() << "; retrying";
        pause();
        continue;
      }
      version = *listed;
    }
    auto watched = Watch(version, stop);
    if (!watched.ok() && !stop.load()) {
      metrics::Shoal().informer_watch_restarts.With({kind_.name}).Inc();
    }
    if (watched.ok()) {
      version = *watched;
      delay = backoff_.initial;
    } else if (watched.status().code() ==
               absl::StatusCode::kFailedPrecondition) {
      LOG(INFO) << watched.status().message() << "; listing again";
      version.clear();
    } else {
      LOG(WARNING) << watched.status().message() << "; reconnecting";
      pause();
    }
  }
}

}  // namespace shoal::kube
