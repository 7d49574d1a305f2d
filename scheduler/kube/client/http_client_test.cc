// Real HTTP over loopback against a cpp-httplib server.
#include "scheduler/kube/client/http_client.h"

#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e/emulator/gzip.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::kube {
namespace {

// A list large enough that kube-apiserver would gzip it.
std::string LargeList() {
  std::string items;
  for (int i = 0; i < 3000; ++i) {
    if (i > 0) items += ",";
    items += R"({"metadata":{"name":"cm-)" + std::to_string(i) + R"("}})";
  }
  return R"({"kind":"ConfigMapList","items":[)" + items + "]}";
}

// Requests observed so far with this verb and code.
uint64_t Observed(const std::string& verb, const std::string& code) {
  return metrics::Shoal().api_request_duration.With({verb, code}).Count();
}

class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/api/v1/nodes", [this](const httplib::Request& req,
                                        httplib::Response& res) {
      last_auth_ = req.get_header_value("Authorization");
      res.set_content(R"({"kind":"NodeList","items":[]})", "application/json");
    });
    server_.Post("/api/v1/namespaces/ns/pods/p/binding",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   last_body_ = req.body;
                   last_type_ = req.get_header_value("Content-Type");
                   res.status = 201;
                   res.set_content("{}", "application/json");
                 });
    server_.Get(
        "/api/v1/pods", [](const httplib::Request&, httplib::Response& res) {
          res.status = 500;
          res.set_content(
              R"({"kind":"Status","code":500,"message":"etcd unavailable"})",
              "application/json");
        });
    server_.Get("/api/v1/watch", [](const httplib::Request&,
                                    httplib::Response& res) {
      res.set_chunked_content_provider(
          "application/json", [](size_t, httplib::DataSink& sink) {
            std::string events =
                "{\"type\":\"ADDED\",\"n\":1}\n{\"type\":\"MOD";
            sink.write(events.data(), events.size());
            std::string rest = "IFIED\",\"n\":2}\n{\"type\":\"BOOKMARK\"}\n";
            sink.write(rest.data(), rest.size());
            sink.done();
            return true;
          });
    });
    server_.Get("/api/v1/configmaps", [this](const httplib::Request& req,
                                             httplib::Response& res) {
      last_accept_encoding_ = req.get_header_value("Accept-Encoding");
      if (last_accept_encoding_.find("gzip") == std::string::npos) {
        res.set_content(LargeList(), "application/json");
        return;
      }
      res.set_header("Content-Encoding", "gzip");
      // A type cpp-httplib does not compress again on its own.
      res.set_content(emulator::Gzip(LargeList()), "application/octet-stream");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
  }
  ConnectionConfig Config() {
    ConnectionConfig c;
    c.server = "http://127.0.0.1:" + std::to_string(port_);
    return c;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string last_auth_, last_body_, last_type_, last_accept_encoding_;
};

TEST_F(HttpClientTest, OffersGzipAndInflatesWhatComesBackCompressed) {
  HttpClient client(Config());
  auto list = client.Request("GET", "/api/v1/configmaps");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(last_accept_encoding_, "gzip");
  EXPECT_EQ(list->status, 200);
  EXPECT_EQ(list->body, LargeList());
}

TEST_F(HttpClientTest, GetPostAndKubernetesErrorsAsResponses) {
  ConnectionConfig c = Config();
  c.token = "abc";
  HttpClient client(c);
  uint64_t get_200 = Observed("GET", "200"), post_201 = Observed("POST", "201"),
           get_500 = Observed("GET", "500");
  auto nodes = client.Request("GET", "/api/v1/nodes");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ(nodes->status, 200);
  EXPECT_EQ(nodes->body, R"({"kind":"NodeList","items":[]})");
  EXPECT_EQ(last_auth_, "Bearer abc");
  auto bind = client.Request("POST", "/api/v1/namespaces/ns/pods/p/binding",
                             R"({"target":{}})");
  ASSERT_TRUE(bind.ok());
  EXPECT_EQ(bind->status, 201);
  EXPECT_EQ(last_body_, R"({"target":{}})");
  EXPECT_EQ(last_type_, "application/json");
  auto failing = client.Request("GET", "/api/v1/pods");
  ASSERT_TRUE(failing.ok());
  EXPECT_EQ(failing->status, 500);
  EXPECT_NE(failing->body.find("etcd unavailable"), std::string::npos);
  EXPECT_EQ(Observed("GET", "200"), get_200 + 1);
  EXPECT_EQ(Observed("POST", "201"), post_201 + 1);
  EXPECT_EQ(Observed("GET", "500"), get_500 + 1);
}

TEST_F(HttpClientTest, TokenFileIsReadAndReReadWhenItRotates) {
  std::string dir =
      std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  std::string file = dir + "/token";
  std::ofstream(file) << "first\n";
  ConnectionConfig c = Config();
  c.token_file = file;
  HttpClient client(c);
  ASSERT_TRUE(client.Request("GET", "/api/v1/nodes").ok());
  EXPECT_EQ(last_auth_, "Bearer first");
  std::ofstream(file) << "second\n";
  // A new mtime: file systems with 1 s resolution need the clock to move.
  std::filesystem::last_write_time(
      file, std::filesystem::last_write_time(file) + std::chrono::seconds(2));
  ASSERT_TRUE(client.Request("GET", "/api/v1/nodes").ok());
  EXPECT_EQ(last_auth_, "Bearer second");
}

TEST_F(HttpClientTest, StreamsLinesAcrossChunks) {
  HttpClient client(Config());
  uint64_t watches = Observed("WATCH", "200");
  std::vector<std::string> lines;
  auto status = client.Stream("/api/v1/watch", [&](const std::string& line) {
    lines.push_back(line);
    return true;
  });
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(*status, 200);
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"type":"ADDED","n":1})",
                                             R"({"type":"MODIFIED","n":2})",
                                             R"({"type":"BOOKMARK"})"}));
  lines.clear();
  ASSERT_TRUE(client
                  .Stream("/api/v1/watch",
                          [&](const std::string& line) {
                            lines.push_back(line);
                            return false;  // stop after the first event
                          })
                  .ok());
  EXPECT_EQ(lines.size(), 1u);
  EXPECT_EQ(Observed("WATCH", "200"), watches + 2);
}

TEST(HttpClientDownTest, TransportFailuresNameMethodAndUrl) {
  ConnectionConfig c;
  c.server = "http://127.0.0.1:1";  // nothing listens there
  HttpClient client(c);
  uint64_t errors = Observed("GET", "error");
  auto r = client.Request("GET", "/api/v1/nodes", "", "application/json",
                          absl::Seconds(2));
  EXPECT_EQ(Observed("GET", "error"), errors + 1);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(std::string(r.status().message())
                .rfind("GET http://127.0.0.1:1/api/v1/nodes: ", 0),
            0u)
      << r.status();
}

}  // namespace
}  // namespace shoal::kube
