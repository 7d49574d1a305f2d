// Fuzzes what the informers do with the API server's bytes. The input's
// first line names the kind ("pods", as LiveKinds names them), the second
// is a LIST response body (Informer::ApplyList), every further line a watch
// event (Informer::ApplyEvent); they are applied through that kind of
// live mode (LiveKinds: decode, upsert into the cache, show to the status
// writer) to a fresh cache. Naming the kind keeps each input to one kind's
// work, a tenth of what feeding every kind would cost.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "glog/logging.h"
#include "scheduler/cache/cache.h"
#include "scheduler/kube/client/http_client.h"
#include "scheduler/kube/client/informer.h"
#include "scheduler/kube/write/event_recorder.h"
#include "scheduler/kube/write/request_pool.h"
#include "scheduler/kube/write/status_writer.h"
#include "scheduler/live_kinds.h"

// The informer logs every object it skips; at fuzzing speed that is most
// of the time spent.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  FLAGS_minloglevel = google::GLOG_ERROR;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace kube = shoal::kube;
  // Never contacted: ApplyList and ApplyEvent make no requests, and the
  // status writer only writes when a cycle publishes.
  static kube::ConnectionConfig* const nowhere = [] {
    auto* c = new kube::ConnectionConfig;
    c->server = "http://127.0.0.1:9";
    return c;
  }();
  static kube::HttpClient* const client = new kube::HttpClient(*nowhere);
  static kube::RequestPool* const pool = new kube::RequestPool(*nowhere, 0);
  static kube::EventRecorder* const events =
      new kube::EventRecorder(*pool, "shoal", "fuzz");

  std::vector<std::string> lines = absl::StrSplit(
      absl::string_view(reinterpret_cast<const char*>(data), size), '\n');
  if (lines.size() < 2) return 0;
  shoal::cache::Cache cache("shoal");
  kube::StatusWriter status(*pool, *events);
  kube::WarningLog warnings;  // logged; no Events without a server
  for (kube::WatchedKind& kind : shoal::LiveKinds(cache, status, warnings)) {
    if (kind.name != lines[0]) continue;
    kube::Informer informer(*client, std::move(kind));
    // The list's result (a version, or "not a list") is what List()
    // returns to Run(); the watch goes on regardless, as if it had.
    informer.ApplyList(lines[1]).IgnoreError();
    std::string newest;
    bool gone = false;
    for (size_t i = 2; i < lines.size(); ++i) {
      if (!informer.ApplyEvent(lines[i], &newest, &gone)) break;
    }
  }
  return 0;
}
