#include "e2e/emulator/api_server.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "e2e/emulator/device_rules.h"
#include "e2e/emulator/gzip.h"
#include "e2e/emulator/patches.h"
#include "e2e/emulator/scheduling_rules.h"

namespace shoal::emulator {

using nlohmann::json;

struct ApiServer::Target {
  const ResourceType* type = nullptr;
  std::string ns;
  std::string name;         // empty: the collection
  std::string subresource;  // status, binding, eviction
};

namespace {

const ResourceType* Find(const ResourceTable& resources,
                         const std::string& group, const std::string& version,
                         const std::string& resource) {
  return resources.Find(group, version, resource);
}

// One entry of an APIResourceList, as discovery lists it.
json DiscoveryEntry(const ResourceType& r, bool status) {
  std::string singular = r.kind;
  for (char& c : singular)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (status) {
    return {{"name", r.resource + "/status"},
            {"singularName", ""},
            {"namespaced", r.namespaced},
            {"kind", r.kind},
            {"verbs", {"get", "patch", "update"}}};
  }
  return {{"name", r.resource},
          {"singularName", singular},
          {"namespaced", r.namespaced},
          {"kind", r.kind},
          {"verbs",
           {"create", "delete", "deletecollection", "get", "list", "patch",
            "update", "watch"}}};
}

Reply NotServed() {
  return Reply::Error(
      {404, "NotFound", "the server could not find the requested resource"});
}

std::optional<Selector> QuerySelector(const httplib::Request& req,
                                      const char* param, bool labels,
                                      std::string* error) {
  std::string text = req.has_param(param) ? req.get_param_value(param) : "";
  return labels ? Selector::ParseLabels(text, error)
                : Selector::ParseFields(text, error);
}

// kube-apiserver compresses an answer only past this size: below it gzip
// costs more CPU than the bytes it saves (responsewriters/writers.go,
// defaultGzipThresholdBytes).
constexpr size_t kGzipThresholdBytes = 128 * 1024;

// Whether Accept-Encoding offers gzip: one of its comma-separated codings,
// parameters (";q=...") ignored, as the API server reads it.
bool AcceptsGzip(const std::string& accept_encoding) {
  for (absl::string_view coding : absl::StrSplit(accept_encoding, ',')) {
    coding = coding.substr(0, coding.find(';'));
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(coding), "gzip"))
      return true;
  }
  return false;
}

}  // namespace

ApiServer::ApiServer(ApiServerOptions options)
    : options_(std::move(options)),
      resources_(
          DefaultResources(options_.without_groups, options_.custom_kinds)),
      store_(options_.history, options_.continue_expiry_revisions),
      http_(std::make_unique<httplib::Server>()) {
  pod_resources_ = {
      Find(resources_, "", "v1", "pods"),
      Find(resources_, "scheduling.k8s.io", "v1", "priorityclasses"),
      Find(resources_, "policy", "v1", "poddisruptionbudgets")};
  namespaces_ = Find(resources_, "", "v1", "namespaces");
  size_t threads = options_.threads;
  http_->new_task_queue = [threads] {
    return new httplib::ThreadPool(threads);
  };
  http_->set_tcp_nodelay(true);  // small JSON answers must not wait for Nagle
  http_->set_keep_alive_max_count(1u << 30);
  http_->set_keep_alive_timeout(5);  // also bounds how long Stop() waits
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    Handle(req, res);
  };
  http_->Get(".*", handler);
  http_->Post(".*", handler);
  http_->Put(".*", handler);
  http_->Patch(".*", handler);
  http_->Delete(".*", handler);
  Seed();
}

ApiServer::~ApiServer() { Stop(); }

void ApiServer::Seed() {
  for (const char* ns : {"default", "kube-system", "kube-public"}) {
    store_.Create(
        *namespaces_, "",
        {{"metadata", {{"name", ns}}}, {"status", {{"phase", "Active"}}}});
  }
  const ResourceType* classes = pod_resources_.priority_classes;
  store_.Create(*classes, "",
                {{"metadata", {{"name", "system-cluster-critical"}}},
                 {"value", 2000000000}});
  store_.Create(*classes, "",
                {{"metadata", {{"name", "system-node-critical"}}},
                 {"value", 2000001000}});
}

int ApiServer::Start(const std::string& host, int port) {
  int bound = port == 0 ? http_->bind_to_any_port(host)
                        : (http_->bind_to_port(host, port) ? port : -1);
  if (bound < 0) return -1;
  serving_ = std::thread([this] { http_->listen_after_bind(); });
  // Stop() before the loop runs would be lost: wait until it does.
  while (!http_->is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return bound;
}

void ApiServer::Stop() {
  stopping_ = true;
  http_->stop();
  if (serving_.joinable()) serving_.join();
}

bool ApiServer::Parse(const std::string& path, Target* t) const {
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  std::string group, version;
  size_t i;
  if (parts.size() >= 3 && parts[0] == "api") {
    version = parts[1];
    i = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    group = parts[1];
    version = parts[2];
    i = 3;
  } else {
    return false;
  }
  std::vector<std::string> rest(parts.begin() + i, parts.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    const ResourceType* r = Find(resources_, group, version, rest[2]);
    if (r != nullptr && r->namespaced) {
      t->type = r;
      t->ns = rest[1];
      if (rest.size() > 3) t->name = rest[3];
      if (rest.size() > 4) t->subresource = rest[4];
      return rest.size() <= 5;
    }
  }
  t->type = Find(resources_, group, version, rest[0]);
  if (t->type == nullptr) return false;
  if (rest.size() > 1) t->name = rest[1];
  if (rest.size() > 2) t->subresource = rest[2];
  // A namespaced kind is named only inside its namespace.
  return rest.size() <= 3 && (!t->type->namespaced || t->name.empty());
}

void ApiServer::Handle(const httplib::Request& req, httplib::Response& res) {
  // The emulator decides what to compress, as kube-apiserver does (large
  // non-watch answers only). cpp-httplib, built with zlib, would otherwise
  // gzip every answer to a client offering gzip, watches included, and
  // its deflate holds a watch's events back until ~32 KiB accumulate: a
  // quiet watch would deliver nothing. It reads the request's
  // Accept-Encoding after this handler returns, so the header is taken
  // out here. (The request is the server's own non-const object, handed
  // over const.)
  Answer(req, res, AcceptsGzip(req.get_header_value("Accept-Encoding")));
  if (options_.observe) options_.observe(req, res);
  const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
}

void ApiServer::Answer(const httplib::Request& req, httplib::Response& res,
                       bool gzip) {
  Reply reply;
  Target t;
  if (req.path == "/healthz" || req.path == "/readyz" || req.path == "/livez") {
    res.set_content("ok", "text/plain");
    return;
  }
  if (req.path == "/version") {
    reply = {200,
             {{"major", "1"},
              {"minor", "28"},
              {"gitVersion", "v1.28.0-shoal-emulator"}}};
  } else if (req.method == "GET" && Discovery(req.path, &reply)) {
    // reply is set
  } else if (!Parse(req.path, &t)) {
    reply = NotServed();
  } else if (req.method != "GET" && !Pace(t)) {
    reply = Reply::Error(
        {503, "ServiceUnavailable", "the server is shutting down"});
  } else if (req.method == "GET" && t.name.empty() && req.has_param("watch") &&
             req.get_param_value("watch") != "false" &&
             req.get_param_value("watch") != "0") {
    Watch(req, res, t);
    return;
  } else {
    reply = Dispatch(req, t);
  }
  res.status = reply.code;
  std::string body =
      reply.text.empty() ? reply.body.dump() : std::move(reply.text);
  if (gzip && body.size() > kGzipThresholdBytes) {
    res.set_header("Content-Encoding", "gzip");
    res.set_header("Vary", "Accept-Encoding");
    body = Gzip(body);
  }
  res.set_content(std::move(body), "application/json");
}

bool ApiServer::Pace(const Target& t) {
  absl::Time admit = absl::Now();
  if (options_.write_qps > 0) {
    // Each write takes the next slot of a fixed rate: a queue, no burst.
    std::lock_guard<std::mutex> lock(pace_mu_);
    admit = std::max(admit, next_write_);
    next_write_ = admit + absl::Seconds(1 / options_.write_qps);
  }
  if (t.type->resource == "events") admit += options_.event_delay;
  while (absl::Now() < admit) {
    if (stopping_) return false;
    absl::SleepFor(std::min(admit - absl::Now(), absl::Milliseconds(50)));
  }
  return true;
}

Reply ApiServer::Dispatch(const httplib::Request& req, const Target& t) {
  const std::string& m = req.method;
  const std::string& sub = t.subresource;
  json body;
  if (m == "POST" || m == "PUT") {
    body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    if (!body.is_object()) {
      return Reply::Error(BadRequest("the request body is not a JSON object"));
    }
  }
  if (t.name.empty()) {
    if (m == "GET") {
      std::string error;
      auto labels = QuerySelector(req, "labelSelector", true, &error);
      auto fields = QuerySelector(req, "fieldSelector", false, &error);
      if (!labels || !fields) return Reply::Error(BadRequest(error));
      ListPage page;
      if (req.has_param("limit") &&
          !absl::SimpleAtoi(req.get_param_value("limit"), &page.limit)) {
        return Reply::Error(BadRequest("invalid limit \"" +
                                       req.get_param_value("limit") + "\""));
      }
      page.continue_from =
          req.has_param("continue") ? req.get_param_value("continue") : "";
      return store_.ListText(*t.type, t.ns, *labels, *fields, page);
    }
    if (m == "POST" && t.type->resource == "bindings" &&
        t.type->group.empty()) {
      std::string pod =
          body.value("metadata", json::object()).value("name", "");
      return BindPod(store_, pod_resources_, t.ns, pod, body);
    }
    if (m == "POST" && (!t.type->namespaced || !t.ns.empty())) {
      Reply created = Create(t, std::move(body));
      CrdChanged(t, created, false);
      return created;
    }
    return Reply::Error(
        {405, "MethodNotAllowed",
         "the server does not allow this method on the requested resource"});
  }
  bool is_pods = t.type == pod_resources_.pods;
  if (sub.empty() || (sub == "status" && t.type->has_status)) {
    bool status = !sub.empty();
    if (m == "GET") return store_.Get(*t.type, t.ns, t.name);
    Reply written;
    if (m == "PUT") {
      written = Update(t, std::move(body), status);
    } else if (m == "PATCH") {
      written =
          Patch(t, req.get_header_value("Content-Type"), req.body, status);
    } else if (m == "DELETE" && !status) {
      written = Delete(req, t);
    } else {
      return Reply::Error(
          {405, "MethodNotAllowed",
           "the server does not allow this method on the requested resource"});
    }
    CrdChanged(t, written, m == "DELETE");
    return written;
  } else if (is_pods && sub == "binding" && m == "POST") {
    return BindPod(store_, pod_resources_, t.ns, t.name, body);
  } else if (is_pods && sub == "eviction" && m == "POST") {
    return EvictPod(store_, pod_resources_, t.ns, t.name, body);
  } else if (t.type->custom) {
    // The CRD handler answers a subresource its CRD does not declare as
    // if the object did not exist.
    return Reply::Error(NotFound(t.type->QualifiedName(), t.name));
  } else {
    return NotServed();
  }
  return Reply::Error(
      {405, "MethodNotAllowed",
       "the server does not allow this method on the requested resource"});
}

bool ApiServer::Discovery(const std::string& path, Reply* reply) const {
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  if (parts.size() == 1 && parts[0] == "api") {
    *reply = {200, {{"kind", "APIVersions"}, {"versions", {"v1"}}}};
    return true;
  }
  if (parts.size() == 1 && parts[0] == "apis") {
    json groups = json::array();
    for (const auto& [group, version] : resources_.GroupVersions()) {
      json gv = {{"groupVersion", group + "/" + version}, {"version", version}};
      auto same =
          std::find_if(groups.begin(), groups.end(),
                       [&](const json& g) { return g["name"] == group; });
      if (same == groups.end()) {
        groups.push_back(
            {{"name", group}, {"versions", {gv}}, {"preferredVersion", gv}});
      } else {
        (*same)["versions"].push_back(gv);
      }
    }
    *reply = {
        200,
        {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}}};
    return true;
  }
  if (parts.size() == 2 && parts[0] == "apis") {
    // One group, as kube-apiserver serves /apis/GROUP: its versions,
    // 404 when it serves none.
    json versions = json::array();
    for (const auto& [group, version] : resources_.GroupVersions()) {
      if (group == parts[1])
        versions.push_back(
            {{"groupVersion", group + "/" + version}, {"version", version}});
    }
    if (versions.empty()) {
      *reply = NotServed();
    } else {
      *reply = {200,
                {{"kind", "APIGroup"},
                 {"apiVersion", "v1"},
                 {"name", parts[1]},
                 {"versions", versions},
                 {"preferredVersion", versions[0]}}};
    }
    return true;
  }
  std::string group, version;
  if (parts.size() == 2 && parts[0] == "api") {
    version = parts[1];
  } else if (parts.size() == 3 && parts[0] == "apis") {
    group = parts[1];
    version = parts[2];
  } else {
    return false;
  }
  json resources = json::array();
  for (const ResourceType* r : resources_.OfGroupVersion(group, version)) {
    resources.push_back(DiscoveryEntry(*r, false));
    // A custom resource's /status is listed only when its CRD declares it.
    if (r->has_status) resources.push_back(DiscoveryEntry(*r, true));
  }
  if (resources.empty()) {
    *reply = NotServed();
  } else {
    *reply = {
        200,
        {{"kind", "APIResourceList"},
         {"apiVersion", "v1"},
         {"groupVersion", group.empty() ? version : group + "/" + version},
         {"resources", resources}}};
  }
  return true;
}

void ApiServer::CrdChanged(const Target& t, const Reply& reply, bool deleted) {
  if (t.type->kind != "CustomResourceDefinition" || !reply.ok()) return;
  if (deleted) {
    resources_.Uninstall(reply.body);
  } else {
    resources_.Install(reply.body);
  }
}

Reply ApiServer::Create(const Target& t, json object) {
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (t.type->namespaced && meta.contains("namespace") &&
      meta["namespace"] != t.ns) {
    return Reply::Error(
        BadRequest("the namespace of the provided object does not match the "
                   "namespace sent on the request"));
  }
  if (t.type == pod_resources_.pods) {
    if (auto e = AdmitPod(store_, pod_resources_, object))
      return Reply::Error(*e);
  } else if (t.type == namespaces_) {
    object["status"] = {{"phase", "Active"}};
  } else if (t.type->kind == "CustomResourceDefinition") {
    // Its kinds are served from the start (the emulator knows them):
    // established at once, as the API server reports when it is ready.
    object["status"] = {
        {"conditions",
         {{{"type", "NamesAccepted"}, {"status", "True"}},
          {{"type", "Established"}, {"status", "True"}}}},
        {"acceptedNames", object["spec"].value("names", json::object())}};
  } else if (auto e = CheckDeviceSelectors(*t.type, object, nullptr)) {
    return Reply::Error(*e);
  } else if (auto e = CheckSchedulingGroups(*t.type, object)) {
    return Reply::Error(*e);
  } else if (t.type->custom) {
    // status is written through /status only, when the CRD serves it.
    if (t.type->has_status) object.erase("status");
    PruneToSchema(object, t.type->schema);
  }
  return store_.Create(*t.type, t.ns, std::move(object));
}

Reply ApiServer::Update(const Target& t, json object, bool status) {
  std::string version =
      object.value("metadata", json::object()).value("resourceVersion", "");
  if (version.empty()) {
    return Reply::Error(
        Invalid(t.type->kind, t.name, "metadata.resourceVersion",
                "Invalid value: 0x0: must be specified for an update"));
  }
  return store_.Mutate(*t.type, t.ns, t.name, [&](json& current) {
    return Replace(t, current, std::move(object), status);
  });
}

Reply ApiServer::Patch(const Target& t, const std::string& content_type,
                       const std::string& body, bool status) {
  return store_.Mutate(
      *t.type, t.ns, t.name, [&](json& current) -> std::optional<ApiError> {
        json patched = current;
        if (auto e = ApplyPatch(content_type, body, t.type->custom, patched))
          return e;
        return Replace(t, current, std::move(patched), status);
      });
}

std::optional<ApiError> ApiServer::Replace(const Target& t, json& current,
                                           json proposed, bool status) const {
  // A write naming a resourceVersion applies only to that version.
  if (proposed["metadata"].value("resourceVersion", "") !=
      current["metadata"].value("resourceVersion", "")) {
    return Conflict(
        t.type->QualifiedName(), t.name,
        "the object has been modified; please apply your changes to the latest "
        "version and try again");
  }
  if (t.type->custom) PruneToSchema(proposed, t.type->schema);
  if (status) {
    current["status"] = proposed.value("status", json::object());
    return std::nullopt;
  }
  if (t.type == pod_resources_.pods) {
    if (auto e = CheckPodUpdate(current, proposed)) return e;
  }
  if (auto e = CheckDeviceSelectors(*t.type, proposed, &current)) return e;
  if (auto e = CheckSchedulingGroups(*t.type, proposed)) return e;
  // The main resource does not write status, nor the server's metadata.
  if (t.type->has_status) proposed["status"] = current.value("status", json());
  for (const char* field :
       {"deletionTimestamp", "deletionGracePeriodSeconds", "generation"}) {
    if (current["metadata"].contains(field))
      proposed["metadata"][field] = current["metadata"][field];
  }
  current = std::move(proposed);
  return std::nullopt;
}

Reply ApiServer::Delete(const httplib::Request& req, const Target& t) {
  std::optional<int64_t> grace;
  int64_t seconds;
  if (req.has_param("gracePeriodSeconds") &&
      absl::SimpleAtoi(req.get_param_value("gracePeriodSeconds"), &seconds)) {
    grace = seconds;
  }
  json options = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (options.is_object() && options.contains("gracePeriodSeconds") &&
      options["gracePeriodSeconds"].is_number_integer()) {
    grace = options["gracePeriodSeconds"].get<int64_t>();
  }
  if (t.type == pod_resources_.pods)
    return DeletePod(store_, pod_resources_, t.ns, t.name, grace);
  if (t.type == namespaces_) {
    // Without a namespace controller a namespace only ever starts
    // terminating; nothing new may be created in it.
    return store_.Mutate(
        *t.type, "", t.name, [](json& n) -> std::optional<ApiError> {
          if (!n["metadata"].contains("deletionTimestamp")) {
            n["metadata"]["deletionTimestamp"] = Rfc3339(absl::Now());
          }
          n["status"]["phase"] = "Terminating";
          return std::nullopt;
        });
  }
  return store_.Remove(*t.type, t.ns, t.name);
}

void ApiServer::Watch(const httplib::Request& req, httplib::Response& res,
                      const Target& t) {
  std::string error;
  auto labels = QuerySelector(req, "labelSelector", true, &error);
  auto fields = QuerySelector(req, "fieldSelector", false, &error);
  if (!labels || !fields) {
    res.status = 400;
    res.set_content(BadRequest(error).ToStatus().dump(), "application/json");
    return;
  }
  struct State {
    uint64_t cursor = 0;
    std::string pending;  // lines not yet written
    absl::Time deadline;
    absl::Time last_bookmark;
    bool gone = false;
  };
  auto state = std::make_shared<State>();
  std::string from = req.has_param("resourceVersion")
                         ? req.get_param_value("resourceVersion")
                         : "";
  int64_t timeout = 1800;
  if (req.has_param("timeoutSeconds")) {
    (void)absl::SimpleAtoi(req.get_param_value("timeoutSeconds"), &timeout);
  }
  state->deadline = absl::Now() + absl::Seconds(timeout);
  state->last_bookmark = absl::Now();
  bool bookmarks = req.has_param("allowWatchBookmarks") &&
                   req.get_param_value("allowWatchBookmarks") == "true";
  const ResourceType* type = t.type;
  std::string ns = t.ns;
  if (from.empty() || from == "0") {
    // No version: the current state first, as ADDED events.
    for (const auto& object : store_.Current(*type, ns, &state->cursor)) {
      if (labels->Matches(*object) && fields->Matches(*object)) {
        state->pending += WatchLine("ADDED", *object);
      }
    }
  } else if (!absl::SimpleAtoi(from, &state->cursor)) {
    res.status = 400;
    res.set_content(BadRequest("invalid resourceVersion \"" + from + "\"")
                        .ToStatus()
                        .dump(),
                    "application/json");
    return;
  } else if (state->cursor < store_.oldest_resumable()) {
    state->gone = true;
  }
  absl::Duration bookmark_interval = options_.bookmark_interval;
  res.set_chunked_content_provider(
      "application/json",
      [this, state, type, ns, labels = *labels, fields = *fields, bookmarks,
       bookmark_interval](size_t, httplib::DataSink& sink) {
        auto flush = [&] {
          bool ok = state->pending.empty() ||
                    sink.write(state->pending.data(), state->pending.size());
          state->pending.clear();
          return ok;
        };
        if (state->gone) {
          ApiError e{410, "Expired",
                     absl::StrCat("too old resource version: ", state->cursor,
                                  " (", store_.oldest_resumable(), ")")};
          state->pending = WatchLine("ERROR", e.ToStatus());
          flush();
          sink.done();
          return true;
        }
        if (!flush()) return false;
        if (stopping_ || absl::Now() >= state->deadline) {
          sink.done();
          return true;
        }
        std::vector<WatchEvent> changes;
        absl::Duration wait =
            std::min(absl::Milliseconds(500), state->deadline - absl::Now());
        if (!store_.ChangesAfter(state->cursor, wait, &changes)) {
          state->gone = true;
          return true;
        }
        for (const WatchEvent& e : changes) {
          state->cursor = e.version;
          if (!e.type->SameResource(*type) || (!ns.empty() && e.ns != ns))
            continue;
          if (!labels.Matches(*e.object) || !fields.Matches(*e.object))
            continue;
          state->pending += *e.line;
        }
        if (bookmarks &&
            absl::Now() - state->last_bookmark >= bookmark_interval) {
          state->last_bookmark = absl::Now();
          state->pending +=
              WatchLine("BOOKMARK",
                        {{"kind", type->kind},
                         {"apiVersion", type->ApiVersion()},
                         {"metadata",
                          {{"resourceVersion", absl::StrCat(state->cursor)}}}});
        }
        return flush();
      });
}

}  // namespace shoal::emulator
