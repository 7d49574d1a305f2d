// HTTP(S) to the API server over libcurl: TLS verified against the
// configured CA (or the system store), client certificates, a bearer
// token (a token file is re-read when it changes, so rotated service
// account tokens keep working), connection reuse, gzip (offered on every
// request, inflated transparently), and streamed responses for watches.
// One client per thread.
#ifndef SHOAL_SCHEDULER_KUBE_CLIENT_HTTP_CLIENT_H_
#define SHOAL_SCHEDULER_KUBE_CLIENT_HTTP_CLIENT_H_

#include <atomic>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/kube/client/connection_config.h"

namespace shoal::kube {

struct HttpResponse {
  long status = 0;  // HTTP status code
  std::string body;
};

class HttpClient {
 public:
  explicit HttpClient(ConnectionConfig config);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Every request and stream is observed in
  // shoal_api_request_duration_seconds{verb,code} (streams as verb WATCH).
  //
  // `path` starts with "/" (e.g. "/api/v1/nodes"). A non-2xx answer is
  // returned as a response, not an error: callers read Kubernetes' Status
  // body. Errors are transport failures, naming the method and URL.
  absl::StatusOr<HttpResponse> Request(
      const std::string& method, const std::string& path,
      const std::string& body = "",
      const std::string& content_type = "application/json",
      absl::Duration timeout = absl::Seconds(30));

  // Streams the body to `on_line` one line at a time (a watch sends one
  // JSON event per line); `on_line` returns false to stop. Returns when
  // the server ends the stream, `on_line` stops it, or nothing arrives
  // for `idle_timeout`.
  // `cancel`, when given and set, ends the stream within about a second
  // even while nothing arrives (a quiet watch at shutdown).
  absl::StatusOr<long> Stream(
      const std::string& path,
      const std::function<bool(const std::string&)>& on_line,
      absl::Duration idle_timeout = absl::Minutes(5),
      const std::atomic<bool>* cancel = nullptr);

  const ConnectionConfig& config() const { return config_; }

 private:
  // The bearer token now: inline, or the token file's current contents.
  std::string Token();
  void* Prepare(const std::string& method, const std::string& url,
                absl::Duration timeout);
  // What went wrong, in libcurl's most specific words, with a hint for
  // the errors an operator can fix in the kubeconfig.
  std::string Describe(int curl_code) const;

  ConnectionConfig config_;
  void* curl_ = nullptr;      // CURL*, reused for keep-alive
  std::string error_buffer_;  // CURLOPT_ERRORBUFFER
  std::string file_token_;
  int64_t file_token_mtime_ = -1;
};

// The `message` of a Kubernetes Status body, or the body itself.
std::string StatusMessage(const std::string& body);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_CLIENT_HTTP_CLIENT_H_
