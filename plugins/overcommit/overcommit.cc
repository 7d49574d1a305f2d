#include "plugins/overcommit/overcommit.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "scheduler/framework/session.h"

namespace shoal::plugins::overcommit {
namespace {

using framework::Session;

constexpr double kDefaultFactor = 1.2;

// What admission may still promise this session.
class OvercommitSession : public framework::PluginSession {
 public:
  // Room admission may promise: idle capacity stretched by the factor,
  // less the gang minimums already admitted but not yet placed.
  OvercommitSession(const api::ClusterInfo& c, double factor)
      : factor_(factor) {
    api::Resource used;
    for (const auto& n : c.nodes) {
      if (n.spec().ready) used += n.used();
    }
    room_ = c.total_allocatable.Scaled(factor_) - used;
    // Devices are not stretched by a factor, and what a claim takes is
    // known only once the allocator picks (a firstAvailable alternative,
    // an allocated claim's devices): admission leaves them to it, and to
    // the queues' quotas.
    for (api::ResourceId id : c.device_resources) {
      room_.Set(id, api::kUnlimited);
    }
    for (const api::JobInfo& job : c.jobs) {
      if (job.phase != api::PodGroupPhase::kInqueue) continue;
      room_ -= c.UnheldMinimum(job);
    }
  }

  int Enqueueable(const Session& s, const api::JobInfo& job, std::string* why) {
    // What it already holds is in `used`; only the rest is promised.
    api::Resource minimum = s.cluster().UnheldMinimum(job);
    if (!minimum.LessEqualWhere(room_, minimum)) {
      std::vector<std::string> short_of;
      minimum.ForEachShortage(room_, [&](api::ResourceId id) {
        api::QuantityScale scale = api::ScaleOf(id);
        short_of.push_back(absl::StrCat(
            api::ResourceName(id), " needs ",
            api::FormatQuantity(minimum.Get(id), scale), ", ",
            api::FormatQuantity(std::max<int64_t>(room_.Get(id), 0), scale),
            " left"));
      });
      *why = absl::StrFormat(
          "the gang's minimum does not fit what the cluster can still "
          "promise "
          "(%s; idle x overcommit-factor %g, less gangs already admitted)",
          absl::StrJoin(short_of, ", "), factor_);
      return -1;
    }
    return 1;
  }

  // Admitted: its minimum is promised.
  void Admitted(const Session& s, const api::JobInfo& job) {
    room_ -= s.cluster().UnheldMinimum(job);
  }

 private:
  const double factor_;
  api::Resource room_;
};

class Overcommit : public framework::Plugin {
 public:
  explicit Overcommit(double factor) : factor_(factor) {}

  std::unique_ptr<framework::PluginSession> OnSessionOpen(Session& s) override {
    auto state = std::make_unique<OvercommitSession>(s.cluster(), factor_);
    OvercommitSession* o = state.get();
    s.Register<framework::JobEnqueueable>(
        [o, &s](const api::JobInfo& job, std::string* why) {
          return o->Enqueueable(s, job, why);
        });
    s.AddAdmissionHandler(
        [o, &s](const api::JobInfo& job) { o->Admitted(s, job); });
    return state;
  }

 private:
  const double factor_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args) {
  auto factor = args.GetDouble("overcommit-factor", kDefaultFactor);
  if (!factor.ok()) return factor.status();
  if (*factor < 1) {
    // Volcano falls back to its default here; so does Shoal, but says so.
    args.Warn(
        absl::StrFormat("arguments.overcommit-factor: must be >= 1, got %g; "
                        "using the default %g instead",
                        *factor, kDefaultFactor));
    return std::make_unique<Overcommit>(kDefaultFactor);
  }
  return std::make_unique<Overcommit>(*factor);
}

}  // namespace shoal::plugins::overcommit
