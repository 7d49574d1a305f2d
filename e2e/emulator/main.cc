// kube-emulator: a test-only Kubernetes API server (see api_server.h).
// Prints "listening on http://HOST:PORT" once it accepts connections, so
// a test harness can start it on port 0 and read where it went.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "e2e/emulator/api_server.h"

ABSL_FLAG(std::string, host, "127.0.0.1", "Address to listen on.");
ABSL_FLAG(int, port, 0, "Port to listen on (0: any free port).");
ABSL_FLAG(int, history, 100000,
          "Changes a watch can resume from before it is told 410 Gone.");
ABSL_FLAG(int, continue_expiry_revisions, 0,
          "A LIST continue token is answered 410 Expired once the store is "
          "more than this many revisions past its first page, as after an "
          "etcd compaction (0: only when the history no longer reaches it).");
ABSL_FLAG(int, bookmark_seconds, 5,
          "Seconds between bookmarks on watches that ask for them.");
ABSL_FLAG(bool, custom_kinds, true,
          "Serve Shoal's custom resources before their CRDs are created "
          "(false: only once a "
          "CustomResourceDefinition is created, as a bare kube-apiserver).");
ABSL_FLAG(std::string, without_groups, "",
          "Comma-separated API groups not to serve, like a cluster without "
          "those CRDs.");

ABSL_FLAG(absl::Duration, event_delay, absl::ZeroDuration(),
          "Answer every write of an Event this much later (e.g. 200ms), like "
          "an API server slow on events.");
ABSL_FLAG(double, write_qps, 0,
          "Admit at most this many writes (POST, PUT, PATCH, DELETE) a "
          "second, one after another; the rest wait. 0: unlimited.");

namespace {
std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }
}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  shoal::emulator::ApiServerOptions options;
  options.history = absl::GetFlag(FLAGS_history);
  options.continue_expiry_revisions =
      absl::GetFlag(FLAGS_continue_expiry_revisions);
  options.bookmark_interval =
      absl::Seconds(absl::GetFlag(FLAGS_bookmark_seconds));
  options.without_groups = absl::StrSplit(absl::GetFlag(FLAGS_without_groups),
                                          ',', absl::SkipEmpty());
  options.custom_kinds = absl::GetFlag(FLAGS_custom_kinds);
  options.event_delay = absl::GetFlag(FLAGS_event_delay);
  options.write_qps = absl::GetFlag(FLAGS_write_qps);
  if (options.event_delay < absl::ZeroDuration() || options.write_qps < 0) {
    std::fprintf(stderr,
                 "kube-emulator: --event-delay and --write-qps must not be "
                 "negative, got %s and %g\n",
                 absl::FormatDuration(options.event_delay).c_str(),
                 options.write_qps);
    return 2;
  }
  shoal::emulator::ApiServer server(options);
  std::string host = absl::GetFlag(FLAGS_host);
  int port = server.Start(host, absl::GetFlag(FLAGS_port));
  if (port < 0) {
    std::fprintf(stderr, "kube-emulator: cannot listen on %s:%d\n",
                 host.c_str(), absl::GetFlag(FLAGS_port));
    return 1;
  }
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  std::printf("listening on http://%s:%d\n", host.c_str(), port);
  std::fflush(stdout);
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server.Stop();  // open watches end within half a second
  return 0;
}
