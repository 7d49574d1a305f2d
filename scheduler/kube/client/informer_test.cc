// List and watch against a loopback server speaking the API server's
// list/watch protocol.
#include "scheduler/kube/client/informer.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "e2e/emulator/api_server.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

double Relists(const std::string& kind) {
  return metrics::Shoal().informer_relists.With({kind}).Value();
}
double WatchRestarts(const std::string& kind) {
  return metrics::Shoal().informer_watch_restarts.With({kind}).Value();
}

json Node(const std::string& name, const std::string& version) {
  return {{"kind", "Node"},
          {"metadata", {{"name", name}, {"resourceVersion", version}}}};
}

std::string Event(const std::string& type, const json& object) {
  return json{{"type", type}, {"object", object}}.dump() + "\n";
}

class InformerTest : public ::testing::Test {
 protected:
  void Serve(std::function<void(const httplib::Request&, httplib::Response&)>
                 handler) {
    server_.Get("/api/v1/nodes", std::move(handler));
    server_.Get("/apis/scheduling.x-k8s.io/v1alpha1/podgroups", [](const httplib::
                                                                       Request&,
                                                                   httplib::
                                                                       Response&
                                                                           res) {
      res.status = 404;
      res.set_content(
          R"({"kind":"Status","code":404,"message":"the server could not find the requested resource"})",
          "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ConnectionConfig c;
    c.server = "http://127.0.0.1:" + std::to_string(port_);
    client_ = std::make_unique<HttpClient>(c);
  }
  void TearDown() override {
    client_.reset();
    server_.stop();
    thread_.join();
  }
  WatchedKind Nodes() {
    WatchedKind kind;
    kind.name = "nodes";
    kind.list_path = "/api/v1/nodes";
    kind.upsert = [this](const json& o) {
      std::lock_guard<std::mutex> lock(mu_);
      if (o.value("bad", false))
        return absl::InvalidArgumentError("node bad: malformed");
      have_[o["metadata"]["name"]] = o["metadata"].value("resourceVersion", "");
      if (o["metadata"]["name"] == stop_after_) stop_ = true;
      return absl::OkStatus();
    };
    kind.remove = [this](const std::string& key) {
      std::lock_guard<std::mutex> lock(mu_);
      have_.erase(key);
    };
    return kind;
  }
  std::map<std::string, std::string> Have() {
    std::lock_guard<std::mutex> lock(mu_);
    return have_;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<HttpClient> client_;
  std::mutex mu_;
  std::map<std::string, std::string> have_;  // name -> resourceVersion
  std::string stop_after_;  // stop Run once this object is applied
  std::atomic<bool> stop_{false};
};

TEST_F(InformerTest, ListThenWatchAppliesEveryEventAndFollowsBookmarks) {
  std::string watched_from;
  Serve([&](const httplib::Request& req, httplib::Response& res) {
    if (!req.has_param("watch")) {
      json list = {{"kind", "NodeList"},
                   {"metadata", {{"resourceVersion", "10"}}},
                   {"items", {Node("n1", "3"), Node("n2", "4")}}};
      res.set_content(list.dump(), "application/json");
      return;
    }
    watched_from = req.get_param_value("resourceVersion");
    std::string body =
        Event("MODIFIED", Node("n1", "11")) +
        Event("DELETED", Node("n2", "12")) +
        Event("ADDED", json{{"bad", true}, {"metadata", {{"name", "x"}}}}) +
        Event("BOOKMARK", Node("", "15"));
    res.set_content(body, "application/json");
  });
  Informer informer(*client_, Nodes());
  auto version = informer.List();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, "10");
  EXPECT_TRUE(informer.synced());
  std::atomic<bool> stop{false};
  auto newest = informer.Watch(*version, stop);
  ASSERT_TRUE(newest.ok()) << newest.status();
  EXPECT_EQ(watched_from, "10");
  EXPECT_EQ(*newest, "15");  // the bookmark's version
  EXPECT_EQ(
      Have(),
      (std::map<std::string, std::string>{{"n1", "11"}}));  // bad one skipped
}

TEST_F(InformerTest, GoneMeansListAgainAndDropWhatTheListLacks) {
  std::atomic<int> lists{0};
  stop_after_ = "c";
  Serve([&](const httplib::Request& req, httplib::Response& res) {
    if (!req.has_param("watch")) {
      json list = ++lists == 1 ? json{{"metadata", {{"resourceVersion", "1"}}},
                                      {"items", {Node("a", "1")}}}
                               : json{{"metadata", {{"resourceVersion", "5"}}},
                                      {"items", {Node("b", "5")}}};
      res.set_content(list.dump(), "application/json");
      return;
    }
    if (req.get_param_value("resourceVersion") == "1") {
      res.set_content(
          Event("ERROR",
                json{{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}}),
          "application/json");
      return;
    }
    res.set_content(Event("ADDED", Node("c", "6")), "application/json");
  });
  Informer informer(*client_, Nodes(),
                    Backoff{absl::Milliseconds(10), absl::Milliseconds(50)});
  double relists = Relists("nodes"), restarts = WatchRestarts("nodes");
  std::thread run([&] { informer.Run(stop_); });
  run.join();
  EXPECT_EQ(lists.load(), 2);
  EXPECT_EQ(Relists("nodes"), relists + 2);         // the first and after 410
  EXPECT_EQ(WatchRestarts("nodes"), restarts + 1);  // the 410
  EXPECT_EQ(Have(),
            (std::map<std::string, std::string>{{"b", "5"}, {"c", "6"}}));
}

TEST_F(InformerTest, AMissingOptionalKindIsNotFatal) {
  Serve([](const httplib::Request&, httplib::Response& res) {
    res.set_content("{}", "application/json");
  });
  WatchedKind kind = Nodes();
  kind.name = "podgroups.scheduling.x-k8s.io";
  kind.list_path = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";
  kind.optional = true;
  Informer informer(*client_, kind,
                    Backoff{absl::Milliseconds(10), absl::Milliseconds(20)});
  double relists = Relists(kind.name);
  EXPECT_EQ(informer.List().status().message(),
            "list podgroups.scheduling.x-k8s.io: not served by this API server "
            "(/apis/scheduling.x-k8s.io/v1alpha1/podgroups)");
  std::atomic<bool> stop{false};
  std::thread run([&] { informer.Run(stop); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop = true;
  run.join();
  EXPECT_FALSE(informer.synced());
  EXPECT_EQ(Relists(kind.name), relists);  // looking for it is no relist
}

TEST_F(InformerTest, ServerErrorsAreRetried) {
  std::atomic<int> calls{0};
  std::atomic<bool> stop{false};
  Serve([&](const httplib::Request& req, httplib::Response& res) {
    if (++calls <= 2) {
      res.status = 500;
      res.set_content(
          R"({"kind":"Status","code":500,"message":"etcd unavailable"})",
          "application/json");
      return;
    }
    if (!req.has_param("watch")) {
      res.set_content(json{{"metadata", {{"resourceVersion", "7"}}},
                           {"items", {Node("n", "7")}}}
                          .dump(),
                      "application/json");
      return;
    }
    stop = true;
    res.set_content("", "application/json");
  });
  Informer informer(*client_, Nodes(),
                    Backoff{absl::Milliseconds(10), absl::Milliseconds(20)});
  double relists = Relists("nodes"), restarts = WatchRestarts("nodes");
  std::thread run([&] { informer.Run(stop); });
  run.join();
  EXPECT_TRUE(informer.synced());
  EXPECT_EQ(Relists("nodes"), relists + 3);  // two failed lists, then one
  EXPECT_EQ(WatchRestarts("nodes"), restarts);
  EXPECT_EQ(Have().count("n"), 1u);
}

TEST(DecodeListPageTest, ItemsInOrderThenVersionAndContinue) {
  std::vector<std::string> names;
  auto page = DecodeListPage(
      R"({"metadata":{"resourceVersion":"42","continue":"abc",)"
      R"("remainingItemCount":7},"items":[{"metadata":{"name":"a"}},)"
      R"({"metadata":{"name":"b"}}]})",
      [&](const json& item) { names.push_back(item["metadata"]["name"]); });
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(page->resource_version, "42");
  EXPECT_EQ(page->continue_token, "abc");
  auto last =
      DecodeListPage(R"({"metadata":{"resourceVersion":"42"},"items":[]})",
                     [](const json&) {});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->continue_token, "");
  EXPECT_EQ(DecodeListPage(R"({"kind":"Status"})", [](const json&) {})
                .status()
                .message(),
            "not a list (no items array)");
}

// The informer against the in-tree API server emulator: paging, expired
// continue tokens and gzip as kube-apiserver does them.
class EmulatorInformerTest : public ::testing::Test {
 protected:
  struct Seen {
    std::string target;            // path and query
    std::string accept_encoding;   // what the client offered
    std::string content_encoding;  // what the emulator answered with
    int status;
  };

  void Start(emulator::ApiServerOptions options = {}) {
    options.observe = [this](const httplib::Request& req,
                             const httplib::Response& res) {
      std::function<void()> hook;
      {
        std::lock_guard<std::mutex> lock(mu_);
        seen_.push_back({req.target, req.get_header_value("Accept-Encoding"),
                         res.get_header_value("Content-Encoding"), res.status});
        seen_changed_.notify_all();
        if (req.target == "/api/v1/pods?limit=500") {
          std::swap(hook, on_first_page_);  // runs once
        }
      }
      // Before the first page is sent: whatever the informer asks next
      // (ahead or not) is asked after these writes.
      if (hook) hook();
    };
    server_ = std::make_unique<emulator::ApiServer>(std::move(options));
    ConnectionConfig c;
    c.server =
        "http://127.0.0.1:" + std::to_string(server_->Start("127.0.0.1", 0));
    client_ = std::make_unique<HttpClient>(c);
    admin_ = std::make_unique<HttpClient>(c);
  }
  void TearDown() override {
    client_.reset();
    admin_.reset();
    if (server_) server_->Stop();
  }

  static std::string PodName(int i) { return absl::StrFormat("pod-%04d", i); }
  // `count` pods of ~370 bytes each: a page of 500 is past the 128 KiB the
  // API server gzips from, one of 234 is not.
  void CreatePods(int count) {
    for (int i = 0; i < count; ++i) CreatePod(PodName(i));
  }
  void CreatePod(const std::string& name) {
    json pod = {{"metadata", {{"name", name}}},
                {"spec",
                 {{"schedulerName", "shoal"},
                  {"containers", {{{"name", "c"}, {"image", "pause"}}}}}}};
    auto r =
        admin_->Request("POST", "/api/v1/namespaces/default/pods", pod.dump());
    ASSERT_TRUE(r.ok() && r->status == 201)
        << name << ": " << (r.ok() ? r->body : r.status().ToString());
  }
  void DeletePod(const std::string& name) {
    auto r = admin_->Request("DELETE", "/api/v1/namespaces/default/pods/" +
                                           name + "?gracePeriodSeconds=0");
    ASSERT_TRUE(r.ok() && r->status == 200)
        << name << ": " << (r.ok() ? r->body : r.status().ToString());
  }
  // Every pod the emulator holds, by "namespace/name".
  std::set<std::string> StoredPods() {
    auto r = admin_->Request("GET", "/api/v1/pods");
    std::set<std::string> keys;
    EXPECT_TRUE(r.ok() && r->status == 200)
        << (r.ok() ? r->body.substr(0, 300) : r.status().ToString());
    if (!r.ok()) return keys;
    json list = json::parse(r->body);
    for (const json& item : list["items"]) {
      keys.insert(item["metadata"]["namespace"].get<std::string>() + "/" +
                  item["metadata"]["name"].get<std::string>());
    }
    return keys;
  }

  WatchedKind Pods() {
    WatchedKind kind;
    kind.name = "pods";
    kind.list_path = "/api/v1/pods";
    kind.upsert = [this](const json& o) {
      std::string key = o["metadata"]["namespace"].get<std::string>() + "/" +
                        o["metadata"]["name"].get<std::string>();
      std::function<void()> hook;
      {
        std::lock_guard<std::mutex> lock(mu_);
        have_.insert(key);
        ++upserts_;
        std::swap(hook, on_upsert_);  // runs once
      }
      if (hook) hook();
      return absl::OkStatus();
    };
    kind.remove = [this](const std::string& key) {
      std::lock_guard<std::mutex> lock(mu_);
      have_.erase(key);
      removed_.insert(key);
      if (stop_when_removed_.count(key) > 0) {
        stop_when_removed_.erase(key);
        if (stop_when_removed_.empty()) stop_ = true;
      }
    };
    return kind;
  }
  std::set<std::string> Have() {
    std::lock_guard<std::mutex> lock(mu_);
    return have_;
  }
  // The LIST requests for pods the emulator answered, in order.
  std::vector<Seen> PodLists() {
    std::lock_guard<std::mutex> lock(mu_);
    return PodListsLocked();
  }
  std::vector<Seen> PodListsLocked() {
    std::vector<Seen> lists;
    for (const Seen& s : seen_) {
      if (s.target.rfind("/api/v1/pods?limit=", 0) == 0) lists.push_back(s);
    }
    return lists;
  }
  void ForgetRequests() {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.clear();
  }

  std::unique_ptr<emulator::ApiServer> server_;
  std::unique_ptr<HttpClient> client_;  // the informer's
  std::unique_ptr<HttpClient> admin_;   // the test's own writes
  std::mutex mu_;
  std::vector<Seen> seen_;
  std::set<std::string> have_, removed_;
  int upserts_ = 0;
  std::condition_variable seen_changed_;
  std::function<void()> on_upsert_;  // once, at the next upsert
  // Once, when the first page of a pod list has been answered, before it
  // is sent.
  std::function<void()> on_first_page_;
  std::set<std::string> stop_when_removed_;
  std::atomic<bool> stop_{false};
};

TEST_F(EmulatorInformerTest, ALargeListArrivesInGzippedPagesOf500) {
  Start();
  CreatePods(1234);
  uint64_t version = server_->store().version();
  double relists = Relists("pods");
  ForgetRequests();
  Informer informer(*client_, Pods());
  auto listed = informer.List();
  ASSERT_TRUE(listed.ok()) << listed.status();
  // The watch resumes from the snapshot the pages showed.
  EXPECT_EQ(*listed, std::to_string(version));
  EXPECT_EQ(Have().size(), 1234u);
  EXPECT_EQ(Relists("pods"), relists + 1);  // one list, three pages
  std::vector<Seen> lists = PodLists();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[0].target, "/api/v1/pods?limit=500");
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(lists[i].target.rfind("/api/v1/pods?limit=500&continue=", 0), 0u)
        << lists[i].target;
  }
  for (const Seen& page : lists) {
    EXPECT_EQ(page.accept_encoding, "gzip") << page.target;
    EXPECT_EQ(page.status, 200) << page.target;
  }
  // 500 pods are past 128 KiB and were sent compressed; the last 234 not.
  EXPECT_EQ(lists[0].content_encoding, "gzip");
  EXPECT_EQ(lists[1].content_encoding, "gzip");
  EXPECT_EQ(lists[2].content_encoding, "");
}

TEST_F(EmulatorInformerTest, TheNextPageIsAskedForWhileOneIsApplied) {
  Start();
  CreatePods(1234);
  // At the first pod applied, the request for the second page must come
  // (the emulator writes the continue token before the items, as
  // kube-apiserver does); an informer that asks only after applying the
  // page would keep this waiting for its 5 seconds.
  bool second_page_asked = false;
  on_upsert_ = [&] {
    std::unique_lock<std::mutex> lock(mu_);
    second_page_asked =
        seen_changed_.wait_for(lock, std::chrono::seconds(5),
                               [&] { return PodListsLocked().size() >= 2; });
  };
  ForgetRequests();
  Informer informer(*client_, Pods());
  auto listed = informer.List();
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_TRUE(second_page_asked);
  EXPECT_EQ(PodLists().size(), 3u);
  EXPECT_EQ(Have(), StoredPods());
}

TEST_F(EmulatorInformerTest, AnExpiredContinueTokenRestartsTheList) {
  emulator::ApiServerOptions options;
  options.continue_expiry_revisions = 1;
  Start(options);
  CreatePods(1234);
  double relists = Relists("pods");
  double expired =
      metrics::Shoal().informer_list_expired.With({"pods"}).Value();
  // Once the first page is answered, two writes move the store two
  // revisions on: the token for the second page has expired. One pod of
  // that first page is gone, one pod is new.
  on_first_page_ = [this] {
    DeletePod(PodName(1));
    CreatePod("pod-late");
  };
  ForgetRequests();
  Informer informer(*client_, Pods());
  auto listed = informer.List();
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_TRUE(informer.synced());
  std::vector<Seen> lists = PodLists();
  ASSERT_EQ(lists.size(), 5u);  // 1, 2 (410), then 1, 2, 3 again
  EXPECT_EQ(lists[1].status, 410);
  EXPECT_EQ(lists[2].target, "/api/v1/pods?limit=500");
  EXPECT_EQ(metrics::Shoal().informer_list_expired.With({"pods"}).Value(),
            expired + 1);
  EXPECT_EQ(Relists("pods"), relists + 2);  // the list and its restart
  // Synced with every object: the pod the aborted attempt applied and the
  // complete list lacks is removed, the new one is there.
  EXPECT_EQ(Have(), StoredPods());
  EXPECT_EQ(Have().count("default/" + PodName(1)), 0u);
  EXPECT_EQ(Have().count("default/pod-late"), 1u);
  EXPECT_EQ(Have().size(), 1234u);
  EXPECT_EQ(*listed, std::to_string(server_->store().version()));
}

TEST_F(EmulatorInformerTest, ContinueTokensThatNeverStopExpiringAreAnError) {
  emulator::ApiServerOptions options;
  options.continue_expiry_revisions = 1;
  Start(options);
  CreatePods(600);
  // Every first page is followed by two writes.
  int created = 0;
  std::function<void()> churn = [&] {
    CreatePod("churn-" + std::to_string(created++));
    CreatePod("churn-" + std::to_string(created++));
    std::lock_guard<std::mutex> lock(mu_);
    on_first_page_ = churn;
  };
  on_first_page_ = churn;
  Informer informer(*client_, Pods());
  auto listed = informer.List();
  EXPECT_EQ(listed.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(listed.status().message().find("continue token expired 6 times"),
            std::string::npos)
      << listed.status();
  EXPECT_FALSE(informer.synced());
  std::lock_guard<std::mutex> lock(mu_);
  on_first_page_ = nullptr;
}

TEST_F(EmulatorInformerTest, DeletionsAroundAPagedRelistAreNoticed) {
  Start();
  CreatePods(1234);
  Informer informer(*client_, Pods());
  ASSERT_TRUE(informer.List().ok());
  // Deleted while not watching, from the first and the last page: the
  // relist must notice both.
  DeletePod(PodName(3));
  DeletePod(PodName(1200));
  // Deleted while the relist reads its first page, from that page and
  // from a later one: the pages still show both (one snapshot), and the
  // watch from the list's version reports their deletion.
  on_upsert_ = [this] {
    DeletePod(PodName(5));
    DeletePod(PodName(1100));
  };
  ForgetRequests();
  auto listed = informer.List();
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(PodLists().size(), 3u);
  EXPECT_EQ(removed_, (std::set<std::string>{"default/" + PodName(3),
                                             "default/" + PodName(1200)}));
  EXPECT_EQ(Have().count("default/" + PodName(5)), 1u);
  EXPECT_EQ(Have().count("default/" + PodName(1100)), 1u);
  // The watch (gzip offered, as on every request) replays the two
  // deletions and then a new pod arrives on it.
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_when_removed_ = {"default/" + PodName(5), "default/" + PodName(1100)};
  }
  auto watched = informer.Watch(*listed, stop_);
  EXPECT_TRUE(watched.ok()) << watched.status();
  EXPECT_EQ(Have(), StoredPods());
  EXPECT_EQ(Have().size(), 1230u);
  std::vector<Seen> watches;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Seen& s : seen_) {
      if (s.target.find("watch=1") != std::string::npos) watches.push_back(s);
    }
  }
  ASSERT_EQ(watches.size(), 1u);
  EXPECT_EQ(watches[0].accept_encoding, "gzip");
  EXPECT_EQ(watches[0].content_encoding, "");  // watches are never gzipped
}

TEST_F(EmulatorInformerTest, AWatchWithGzipOfferedDeliversEachEventAtOnce) {
  Start();
  CreatePods(3);
  Informer informer(*client_, Pods());
  auto listed = informer.List();
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::thread writer([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CreatePod("late");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_when_removed_ = {"default/late"};
    }
    DeletePod("late");
    // Events held back would never end the watch: give up after 3 s.
    for (int i = 0; i < 30 && !stop_; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop_ = true;
  });
  auto start = std::chrono::steady_clock::now();
  auto watched = informer.Watch(*listed, stop_);
  writer.join();
  EXPECT_TRUE(watched.ok()) << watched.status();
  // One small event each, not held back by a compressor: the watch ends
  // (on the deletion) well before any timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(removed_, std::set<std::string>{"default/late"});
}

// Found by tools/fuzz (informer_fuzzer): json::value() threw on a member of
// an unexpected type ("type": {}, "metadata": "x", "code": "410", an item
// that is not an object), and the exception ended the scheduler. Whatever
// the server sends, malformed objects are skipped and the rest applied.
TEST_F(InformerTest, MalformedListItemsAndEventsAreSkipped) {
  Serve([](const httplib::Request&, httplib::Response&) {});
  WatchedKind kind = Nodes();
  kind.upsert = [this](const json& o) {
    // As a decoder does: what is not a named object is refused.
    if (!o.is_object() || !o.contains("metadata") ||
        !o["metadata"].is_object() || !o["metadata"].contains("name") ||
        !o["metadata"]["name"].is_string()) {
      return absl::InvalidArgumentError("node: metadata.name: is required");
    }
    std::lock_guard<std::mutex> lock(mu_);
    have_[o["metadata"]["name"].get<std::string>()] = "";
    return absl::OkStatus();
  };
  Informer informer(*client_, std::move(kind));
  auto version = informer.ApplyList(
      R"({"metadata":{"resourceVersion":"7"},"items":[1,{"metadata":"x"},)"
      R"({"metadata":{"name":5}},{"metadata":{"name":"n1"}}]})");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, "7");
  std::string newest = "7";
  bool gone = false;
  EXPECT_TRUE(
      informer.ApplyEvent(R"({"type":{},"object":{}})", &newest, &gone));
  EXPECT_TRUE(informer.ApplyEvent(
      R"({"type":"ADDED","object":{"metadata":{"name":"n2","resourceVersion":8}}})",
      &newest, &gone));
  EXPECT_EQ(newest, "7");  // a resourceVersion that is not a string
  EXPECT_TRUE(
      informer.ApplyEvent(R"({"type":"DELETED","object":[]})", &newest, &gone));
  EXPECT_FALSE(informer.ApplyEvent(
      R"({"type":"ERROR","object":{"code":"410"}})", &newest, &gone));
  EXPECT_FALSE(gone);
  EXPECT_FALSE(
      informer.ApplyEvent(R"({"type":"ERROR","object":7})", &newest, &gone));
  EXPECT_FALSE(gone);
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(have_.size(), 2u);
  EXPECT_EQ(have_.count("n1"), 1u);
  EXPECT_EQ(have_.count("n2"), 1u);
}

}  // namespace
}  // namespace shoal::kube
