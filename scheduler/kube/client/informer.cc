#include "scheduler/kube/client/informer.h"

#include <cctype>
#include <future>
#include <memory>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "scheduler/kube/client/object_meta.h"
#include "scheduler/kube/stream/json_stream.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

// A list whose continue token keeps expiring (the server compacts faster
// than the pages arrive) is given up after this many fresh starts and
// retried with backoff, not spun on.
constexpr int kMaxListRestarts = 5;

// `token` safe inside a query string. A token is opaque: kube-apiserver
// makes URL-safe base64, but nothing promises it stays so.
std::string QueryEscape(const std::string& token) {
  std::string out;
  for (unsigned char c : token) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      absl::StrAppend(&out, "%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

// The continue token of a LIST page whose metadata comes before its
// items (as kube-apiserver writes it), or "".
std::string ContinueTokenBeforeItems(const std::string& body) {
  auto head = ReadListHead(body);
  if (!head.ok() || !head->is_object()) return "";
  auto meta = head->find("metadata");
  if (meta == head->end() || !meta->is_object()) return "";
  auto token = meta->find("continue");
  return token != meta->end() && token->is_string() ? token->get<std::string>()
                                                    : "";
}

}  // namespace

absl::StatusOr<ListPageInfo> DecodeListPage(
    const std::string& body,
    const std::function<void(const nlohmann::json& item)>& on_item) {
  // Streamed: the page's items are decoded one at a time, without the
  // fields no decoder reads (json_stream.h).
  JsonSource source = JsonSource::Text(body);
  auto read = ReadJsonList(source, [&on_item](json item, int) {
    on_item(item);
    return absl::OkStatus();
  });
  if (!read.ok()) return read.status();
  const json& list = read->fields;
  if (!read->had_items && !(list.is_object() && list.contains("items") &&
                            list["items"].is_null())) {
    return absl::InvalidArgumentError("not a list (no items array)");
  }
  ListPageInfo page;
  page.resource_version = ResourceVersionOf(list);
  const json& meta = list.value("metadata", json::object());
  if (meta.is_object() && meta.contains("continue") &&
      meta["continue"].is_string()) {
    page.continue_token = meta["continue"].get<std::string>();
  }
  return page;
}

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

std::string Informer::PagePath(const std::string& continue_token) const {
  std::string path = absl::StrCat(kind_.list_path, "?limit=", kListPageSize);
  if (!continue_token.empty())
    absl::StrAppend(&path, "&continue=", QueryEscape(continue_token));
  return path;
}

absl::StatusOr<std::string> Informer::List() {
  std::set<std::string> present;  // keys of the list being read
  std::string continue_token, version;
  int restarts = 0;
  // The next page, asked for while this one is decoded: the server
  // writes a page's continue token before its items, so the server's
  // work on the next page and ours on this one overlap.
  std::future<absl::StatusOr<HttpResponse>> next;
  for (;;) {
    bool first_page = continue_token.empty();
    auto r = next.valid() ? next.get()
                          : client_.Request("GET", PagePath(continue_token));
    // Looking for a kind the server does not serve is not a relist; the
    // later pages of one are part of it.
    if (first_page && (!r.ok() || (r->status != 404 && r->status != 403))) {
      metrics::Shoal().informer_relists.With({kind_.name}).Inc();
    }
    if (!r.ok()) return r.status();
    if (first_page && r->status == 404) {
      return absl::NotFoundError(
          absl::StrCat("list ", kind_.name, ": not served by this API server (",
                       kind_.list_path, ")"));
    }
    if (first_page && r->status == 403) {
      return absl::PermissionDeniedError(absl::StrCat(
          "list ", kind_.name, ": forbidden (", StatusMessage(r->body),
          "); the ClusterRole in conf/rbac.yaml grants it"));
    }
    if (!first_page && r->status == 410) {
      // The snapshot the earlier pages came from was compacted. What they
      // applied stays (each object was current at that snapshot, and the
      // new list upserts over it); only the new, complete list may say
      // what is gone, so `present` starts again with it.
      metrics::Shoal().informer_list_expired.With({kind_.name}).Inc();
      if (++restarts > kMaxListRestarts) {
        return absl::UnavailableError(absl::StrCat(
            "list ", kind_.name, ": continue token expired ", restarts,
            " times in a row (", StatusMessage(r->body), ")"));
      }
      LOG(INFO) << "list " << kind_.name << ": continue token expired after "
                << present.size() << " objects (" << StatusMessage(r->body)
                << "); listing again from the start";
      present.clear();
      continue_token.clear();
      continue;
    }
    if (r->status != 200) {
      return absl::UnavailableError(absl::StrCat("list ", kind_.name, ": HTTP ",
                                                 r->status, ": ",
                                                 StatusMessage(r->body)));
    }
    std::string ahead = ContinueTokenBeforeItems(r->body);
    if (!ahead.empty()) {
      if (prefetch_client_ == nullptr) {
        prefetch_client_ = std::make_unique<HttpClient>(client_.config());
      }
      next = std::async(std::launch::async, [this, path = PagePath(ahead)] {
        return prefetch_client_->Request("GET", path);
      });
    }
    auto page = DecodeListPage(r->body, [&](const json& item) {
      present.insert(ObjectKey(item));
      Apply(item);
    });
    if (!page.ok()) {
      // A page asked for ahead is not wanted any more; it is waited for
      // (its client is this informer's) and dropped.
      if (next.valid()) next.wait();
      return absl::UnavailableError(
          absl::StrCat("list ", kind_.name, ": ", page.status().message()));
    }
    // Every page of one list carries the first page's resourceVersion;
    // the last page's is taken, which is that one.
    version = page->resource_version;
    if (page->continue_token.empty()) break;
    continue_token = page->continue_token;
    // A page asked for ahead asked for this token (the same document's);
    // a server that writes its metadata after the items gets the request
    // now.
    if (next.valid() && ahead != continue_token) {
      next.wait();
      next = {};
    }
  }
  Complete(present);
  return version;
}

absl::StatusOr<std::string> Informer::ApplyList(const std::string& body) {
  std::set<std::string> present;
  auto page = DecodeListPage(body, [&](const json& item) {
    present.insert(ObjectKey(item));
    Apply(item);
  });
  if (!page.ok()) {
    return absl::UnavailableError(
        absl::StrCat("list ", kind_.name, ": ", page.status().message()));
  }
  Complete(present);
  return page->resource_version;
}

void Informer::Complete(const std::set<std::string>& present) {
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
  // Streamed, without the fields no decoder reads (json_stream.h).
  auto event = ReadWatchEvent(line);
  if (!event.ok()) return true;  // not JSON: skip the line
  // Whatever the line holds, the informer goes on: json::value() would
  // throw on a member of another type than its default's.
  const std::string& type = event->type;
  static const json kNoObject = json::object();
  const json& object = event->object.is_object() ? event->object : kNoObject;
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
      // An optional kind the server does not serve, or that RBAC does not
      // let Shoal read, is looked for again now and then, said once.
      if ((listed.status().code() == absl::StatusCode::kNotFound ||
           listed.status().code() == absl::StatusCode::kPermissionDenied) &&
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
