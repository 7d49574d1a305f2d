#include "scheduler/kube/client/http_client.h"

#include <curl/curl.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "scheduler/metrics/scheduler_metrics.h"

namespace shoal::kube {
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t Collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct LineSink {
  const std::function<bool(const std::string&)>* on_line;
  std::string partial;
  bool stopped = false;
};

size_t SplitLines(char* data, size_t size, size_t n, void* raw) {
  auto* sink = static_cast<LineSink*>(raw);
  sink->partial.append(data, size * n);
  size_t start = 0;
  for (size_t nl; (nl = sink->partial.find('\n', start)) != std::string::npos;
       start = nl + 1) {
    std::string line = sink->partial.substr(start, nl - start);
    if (!line.empty() && !(*sink->on_line)(line)) {
      sink->stopped = true;
      return 0;  // tells curl to stop
    }
  }
  sink->partial.erase(0, start);
  return size * n;
}

// curl asks about once a second, data or not: a non-zero answer aborts.
int Cancelled(void* flag, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(flag)->load() ? 1 : 0;
}

void SetBlob(CURL* c, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(c, option, &blob);
}

// Records one request in shoal_api_request_duration_seconds{verb,code}:
// the HTTP status, or "error" when no answer came.
void Observe(const std::string& verb,
             std::chrono::steady_clock::time_point start, CURLcode rc,
             long status) {
  std::chrono::duration<double> seconds =
      std::chrono::steady_clock::now() - start;
  std::string code =
      rc == CURLE_OK && status > 0 ? std::to_string(status) : "error";
  metrics::Shoal()
      .api_request_duration.With({verb, code})
      .Observe(seconds.count());
}

}  // namespace

HttpClient::HttpClient(ConnectionConfig config) : config_(std::move(config)) {
  GlobalInit();
  curl_ = curl_easy_init();
}

HttpClient::~HttpClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

std::string HttpClient::Token() {
  if (!config_.token.empty() || config_.token_file.empty())
    return config_.token;
  struct stat st;
  if (stat(config_.token_file.c_str(), &st) == 0 &&
      st.st_mtime != file_token_mtime_) {
    std::ifstream in(config_.token_file);
    std::stringstream text;
    text << in.rdbuf();
    file_token_ = std::string(absl::StripAsciiWhitespace(text.str()));
    file_token_mtime_ = st.st_mtime;
  }
  return file_token_;
}

void* HttpClient::Prepare(const std::string& method, const std::string& url,
                          absl::Duration timeout) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);  // keeps the connection cache
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  error_buffer_.assign(CURL_ERROR_SIZE + 1, '\0');
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer_.data());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  // Offers gzip, and libcurl inflates what comes back so. kube-apiserver
  // compresses only non-watch answers over 128 KiB (large LIST pages),
  // which then cross the network ~10x smaller; watches stay plain.
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "gzip");
  if (timeout > absl::ZeroDuration()) {
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  }
  if (!config_.ca_pem.empty()) SetBlob(c, CURLOPT_CAINFO_BLOB, config_.ca_pem);
  if (!config_.client_cert_pem.empty()) {
    SetBlob(c, CURLOPT_SSLCERT_BLOB, config_.client_cert_pem);
    SetBlob(c, CURLOPT_SSLKEY_BLOB, config_.client_key_pem);
  }
  if (config_.insecure_skip_tls_verify) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  return c;
}

std::string HttpClient::Describe(int curl_code) const {
  auto rc = static_cast<CURLcode>(curl_code);
  std::string detail = error_buffer_.c_str();
  if (detail.empty()) detail = curl_easy_strerror(rc);
  if (rc == CURLE_PEER_FAILED_VERIFICATION) {
    absl::StrAppend(
        &detail,
        config_.ca_pem.empty()
            ? " (the system's CA store does not trust the server; set "
              "certificate-authority in the kubeconfig)"
            : " (the kubeconfig's certificate-authority did not sign the "
              "server's certificate)");
  }
  return detail;
}

absl::StatusOr<HttpResponse> HttpClient::Request(
    const std::string& method, const std::string& path, const std::string& body,
    const std::string& content_type, absl::Duration timeout) {
  std::string url = config_.server + path;
  CURL* c = static_cast<CURL*>(Prepare(method, url, timeout));
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/json");
  std::string token = Token();
  std::string auth = "Authorization: Bearer " + token;
  if (!token.empty()) headers = curl_slist_append(headers, auth.c_str());
  std::string type = "Content-Type: " + content_type;
  if (!body.empty()) {
    headers = curl_slist_append(headers, type.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  HttpResponse response;
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  auto start = std::chrono::steady_clock::now();
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(headers);
  if (rc == CURLE_OK) {
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  }
  Observe(method, start, rc, response.status);
  if (rc != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat(method, " ", url, ": ", Describe(rc)));
  }
  return response;
}

absl::StatusOr<long> HttpClient::Stream(
    const std::string& path,
    const std::function<bool(const std::string&)>& on_line,
    absl::Duration idle_timeout, const std::atomic<bool>* cancel) {
  std::string url = config_.server + path;
  CURL* c = static_cast<CURL*>(Prepare("GET", url, absl::ZeroDuration()));
  curl_slist* headers = curl_slist_append(nullptr, "Accept: application/json");
  std::string token = Token();
  std::string auth = "Authorization: Bearer " + token;
  if (!token.empty()) headers = curl_slist_append(headers, auth.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  // Idle means: less than one byte a second for the whole idle timeout.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                   static_cast<long>(absl::ToInt64Seconds(idle_timeout)));
  LineSink sink{&on_line, "", false};
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, SplitLines);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  if (cancel != nullptr) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, Cancelled);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, cancel);
  }
  auto start = std::chrono::steady_clock::now();
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(headers);
  bool cancelled =
      rc == CURLE_ABORTED_BY_CALLBACK && cancel != nullptr && cancel->load();
  bool failed = rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && sink.stopped) &&
                !cancelled;
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  // A stream the caller or a cancel ended still had its answer.
  Observe("WATCH", start, failed ? rc : CURLE_OK, status);
  if (failed) {
    return absl::UnavailableError(
        absl::StrCat("GET ", url, " (stream): ", Describe(rc)));
  }
  if (!sink.partial.empty() && !sink.stopped) on_line(sink.partial);
  return status;
}

std::string StatusMessage(const std::string& body) {
  nlohmann::json status =
      nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status.is_object() && status.contains("message") &&
      status["message"].is_string()) {
    return status["message"].get<std::string>();
  }
  return body;
}

}  // namespace shoal::kube
