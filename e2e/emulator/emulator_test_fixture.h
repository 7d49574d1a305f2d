// A test fixture: one emulator on a free port and an HTTP client to it,
// for the tests of what the emulator answers on the wire.
#ifndef SHOAL_E2E_EMULATOR_EMULATOR_TEST_FIXTURE_H_
#define SHOAL_E2E_EMULATOR_EMULATOR_TEST_FIXTURE_H_

#include <memory>
#include <string>

#include "e2e/emulator/api_server.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {

class EmulatorTest : public ::testing::Test {
 protected:
  void SetUp() override { Start({}); }
  void TearDown() override { Shutdown(); }

  // A new server with `options`; a test that needs other options stops
  // the first one (Shutdown) and starts again.
  void Start(ApiServerOptions options) {
    // Short, so that a watch test sees a bookmark without waiting long.
    options.bookmark_interval = absl::Milliseconds(200);
    server_ = std::make_unique<ApiServer>(options);
    port_ = server_->Start("127.0.0.1", 0);
    ASSERT_GT(port_, 0);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
  }
  void Shutdown() {
    client_.reset();
    server_->Stop();
  }

  // `method` on `path` with `body` (none when null) of content `type`:
  // the answer's body, and its status code in `code`.
  nlohmann::json Call(const std::string& method, const std::string& path,
                      const nlohmann::json& body = nullptr, int* code = nullptr,
                      const std::string& type = "application/json") {
    std::string payload = body.is_null() ? "" : body.dump();
    httplib::Result r =
        method == "GET"    ? client_->Get(path.c_str())
        : method == "POST" ? client_->Post(path.c_str(), payload, type.c_str())
        : method == "PUT"  ? client_->Put(path.c_str(), payload, type.c_str())
        : method == "PATCH"
            ? client_->Patch(path.c_str(), payload, type.c_str())
            : client_->Delete(path.c_str());
    EXPECT_TRUE(r) << method << " " << path;
    if (!r) return nullptr;
    if (code != nullptr) *code = r->status;
    return nlohmann::json::parse(r->body);
  }

  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<httplib::Client> client_;
  int port_ = 0;
};

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_EMULATOR_TEST_FIXTURE_H_
