#include "plugins/las/las.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "glog/logging.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::las {
namespace {

using framework::Session;

struct Settings {
  api::ResourceId resource = api::kCpu;
  std::vector<double> thresholds;  // ascending, unit-seconds
};

// What the plugin keeps across cycles: read when a session opens, written
// when it closes, so a session that never closes (an explanation) leaves
// it as it was.
struct Memory {
  std::mutex mu;  // sessions on one policy may open side by side
  absl::flat_hash_map<std::string, Standing> jobs;  // by job key
};

// Pods that are given their room and count as running for the service
// they attain (Tiresias counts a job from when it has its GPUs).
bool Attaining(api::TaskStatus s) {
  return s == api::TaskStatus::kBinding || s == api::TaskStatus::kBound ||
         s == api::TaskStatus::kRunning;
}

template <typename T>
int Compare(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

class LasSession : public framework::PluginSession {
 public:
  LasSession(Memory& memory, const Settings& settings)
      : memory_(memory), settings_(settings) {}

  // Brings every job's attained service up to the session's clock, then
  // registers the callbacks, which point into this object.
  void Register(Session& s) {
    const api::ClusterInfo& c = s.cluster();
    standing_.resize(c.jobs.size());
    {
      std::lock_guard<std::mutex> lock(memory_.mu);
      for (const api::JobInfo& job : c.jobs) {
        Standing& st = standing_[job.index];
        auto it = memory_.jobs.find(job.Key());
        if (it != memory_.jobs.end() && it->second.uid == job.uid) {
          st = it->second;
        } else {
          st = Standing{job.uid, 0, 0, job.created, c.now};
        }
      }
    }
    for (const api::JobInfo& job : c.jobs) {
      Standing& st = standing_[job.index];
      const double elapsed =
          std::max(0.0, absl::ToDoubleSeconds(c.now - st.last_seen));
      st.attained += Units(c, job) * elapsed;
      st.last_seen = std::max(st.last_seen, c.now);
      const int band = BandOf(st.attained);
      if (band > st.band) {
        st.band = band;
        st.entered_band = c.now;
      }
      VLOG(2) << "las: job " << job.Key() << " attained " << st.attained
              << " unit-seconds, band " << st.band;
    }

    s.Register<framework::JobOrder>(
        [this](const api::JobInfo& a, const api::JobInfo& b) {
          return Order(a, b);
        });
    // Another job's pod only for a job earlier in the order (higher
    // priority, or equal priority and less service); inside one job, a
    // pod of lower pod priority.
    s.Register<framework::Preemptable>(
        [this, &s](const api::TaskInfo& taker,
                   const std::vector<api::TaskIndex>& candidates) {
          const api::JobInfo& tj = s.cluster().jobs[taker.job];
          std::vector<api::TaskIndex> victims;
          for (api::TaskIndex c : candidates) {
            const api::TaskInfo& v = s.cluster().tasks[c];
            const bool ok = v.job == taker.job
                                ? v.pod->priority < taker.pod->priority
                                : Order(tj, s.cluster().jobs[v.job]) < 0;
            if (ok) victims.push_back(c);
          }
          return framework::Victims(std::move(victims));
        });
  }

  // Remembers every job the cluster still has; forgets the others.
  void OnSessionClose(Session& s) override {
    absl::flat_hash_map<std::string, Standing> jobs;
    for (const api::JobInfo& job : s.cluster().jobs) {
      jobs[job.Key()] = standing_[job.index];
    }
    std::lock_guard<std::mutex> lock(memory_.mu);
    memory_.jobs = std::move(jobs);
  }

 private:
  // Units of the resource the job's running pods hold; cpu cores when
  // they hold none of it.
  double Units(const api::ClusterInfo& c, const api::JobInfo& job) const {
    int64_t units = 0;
    int64_t milli_cpu = 0;
    for (api::TaskIndex t : job.tasks) {
      const api::TaskInfo& task = c.tasks[t];
      if (!Attaining(task.status)) continue;
      units += task.request().Get(settings_.resource);
      milli_cpu += task.request().Get(api::kCpu);
    }
    if (settings_.resource == api::kCpu || units == 0) {
      return static_cast<double>(milli_cpu) / 1000.0;
    }
    return static_cast<double>(units);
  }

  int BandOf(double attained) const {
    return static_cast<int>(std::upper_bound(settings_.thresholds.begin(),
                                             settings_.thresholds.end(),
                                             attained) -
                            settings_.thresholds.begin());
  }

  // Negative when `a` goes first: priority, band, entry into the band,
  // creation, name. A total order, so preemption never goes both ways.
  int Order(const api::JobInfo& a, const api::JobInfo& b) const {
    if (a.index == b.index) return 0;
    if (a.priority != b.priority) return a.priority > b.priority ? -1 : 1;
    if (a.index < 0 || b.index < 0 ||
        static_cast<size_t>(a.index) >= standing_.size() ||
        static_cast<size_t>(b.index) >= standing_.size()) {
      return 0;
    }
    const Standing& sa = standing_[a.index];
    const Standing& sb = standing_[b.index];
    if (int o = Compare(sa.band, sb.band)) return o;
    if (int o = Compare(sa.entered_band, sb.entered_band)) return o;
    if (int o = Compare(a.created, b.created)) return o;
    if (int o = Compare(a.ns, b.ns)) return o;
    return Compare(a.name, b.name);
  }

  Memory& memory_;  // the plugin's, read at open and written at close
  const Settings& settings_;
  std::vector<Standing> standing_;  // by job index
};

class Las : public framework::Plugin {
 public:
  explicit Las(Settings settings) : settings_(std::move(settings)) {}

  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<LasSession>(memory_, settings_);
    state->Register(s);
    return state;
  }

  std::optional<Standing> Find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(memory_.mu);
    auto it = memory_.jobs.find(key);
    if (it == memory_.jobs.end()) return std::nullopt;
    return it->second;
  }

 private:
  const Settings settings_;
  mutable Memory memory_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args) {
  Settings settings;
  const std::string resource = args.GetString("resource", "nvidia.com/gpu");
  if (!api::IsNodeResourceName(resource)) {
    return absl::InvalidArgumentError(absl::StrCat(
        args.owner(),
        ": arguments.resource: must name a resource nodes have (cpu, "
        "nvidia.com/gpu, ...), got \"",
        resource, "\""));
  }
  auto id = api::InternResourceName(resource);
  if (!id.ok()) return id.status();
  settings.resource = *id;

  const std::string thresholds = args.GetString("thresholds", "57600");
  for (absl::string_view part : absl::StrSplit(thresholds, ',')) {
    part = absl::StripAsciiWhitespace(part);
    double v = 0;
    if (!absl::SimpleAtod(part, &v) || !std::isfinite(v) || v <= 0 ||
        (!settings.thresholds.empty() && v <= settings.thresholds.back())) {
      return absl::InvalidArgumentError(absl::StrCat(
          args.owner(),
          ": arguments.thresholds: must be ascending positive unit-seconds "
          "separated by commas (\"57600\", \"3600,57600\"), got \"",
          thresholds, "\""));
    }
    settings.thresholds.push_back(v);
  }
  return std::make_unique<Las>(std::move(settings));
}

std::optional<Standing> Remembered(const framework::Plugin& plugin,
                                   const std::string& key) {
  const auto* las = dynamic_cast<const Las*>(&plugin);
  if (las == nullptr) return std::nullopt;
  return las->Find(key);
}

}  // namespace shoal::plugins::las
