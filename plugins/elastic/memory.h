// What the elastic plugin remembers from one cycle to the next: when each
// running pod was placed (no flapping; how long lent room stays), and for
// each job its running size, its resizes and when it last changed. The
// plugin owns it; a session copies what it needs when it opens and
// records what it decided when it closes, so a session that never closes
// (an explanation) leaves it as it was.
#ifndef SHOAL_PLUGINS_ELASTIC_MEMORY_H_
#define SHOAL_PLUGINS_ELASTIC_MEMORY_H_

#include <cstdint>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "plugins/elastic/learned_curve.h"
#include "scheduler/api/cluster_info.h"

namespace shoal::plugins::elastic {

struct PodMemory {
  uint64_t cycle = 0;  // the session that placed it (0: first seen running)
  absl::Time placed = absl::InfinitePast();
  // Placed beyond its job's minimum: room lent to growth.
  bool beyond_minimum = false;
  uint64_t job = 0;  // JobId of its job's uid
};

// A job's uid as a number, for the many PodMemory records that name it.
uint64_t JobId(const std::string& uid);

struct JobMemory {
  std::string uid;
  // Pods placed when the last session closed, if its minimum was; else 0.
  int32_t size = 0;
  bool started = false;      // its minimum has run
  bool interrupted = false;  // then fell below it (a restart when it runs)
  absl::Time started_at = absl::InfinitePast();
  absl::Time changed = absl::InfinitePast();  // last change, or its start
  // Since when it has run at exactly its minimum with pods pending.
  absl::Time at_minimum_since = absl::InfiniteFuture();
  int32_t resizes = 0;
};

class Memory {
 public:
  explicit Memory(double expected_room_seconds)
      : expected_room_seconds_(expected_room_seconds) {}

  std::mutex mu;       // sessions on one policy may open side by side
  uint64_t cycle = 0;  // sessions closed so far
  absl::flat_hash_map<std::string, PodMemory> pods;  // by pod uid
  absl::flat_hash_map<std::string, JobMemory> jobs;  // by job key
  // What each job that reports its progress has measured (by job uid).
  absl::flat_hash_map<std::string, ScalingLog> scaling;

  // How long lent room is expected to stay, learned from `c`: pods lent
  // to growth that stopped running while their job still runs were taken
  // back, and how long they ran moves the estimate (a moving average).
  // Pods of a job that is gone (done) say nothing about that. The caller
  // stores it when its session closes.
  double ExpectedRoomAfter(const api::ClusterInfo& c) const;
  double expected_room_seconds() const { return expected_room_seconds_; }
  void set_expected_room_seconds(double s) { expected_room_seconds_ = s; }

  // At a session's close: each job's running size after the cycle's
  // decisions; a change while it ran (or a restart after it fell below
  // its minimum) is a resize.
  void RecordSizes(const api::ClusterInfo& c);

 private:
  double expected_room_seconds_;
};

// Pods that count as the job's running members: placed, or promised room
// (pipelined).
int32_t Placed(const api::JobInfo& job);
// Whether the job runs: its minimum (at least one pod) is placed.
bool Runs(const api::JobInfo& job);

}  // namespace shoal::plugins::elastic

#endif  // SHOAL_PLUGINS_ELASTIC_MEMORY_H_
