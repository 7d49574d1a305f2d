#include "scheduler/replay.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "scheduler/cache/sinks.h"
#include "scheduler/scheduler.h"

namespace shoal {
namespace {

// The replay's API server: a bind always succeeds and the pod stays on
// its node (assumed, as the loop left it); an evicted pod is gone at
// once, its claims still allocated and reserved for it until the
// resourceclaim controller's turn (ReplayOptions::claim_controller_lag);
// a PodGroup's status write shows at once.
class InMemoryCluster : public cache::DecisionSink, public cache::StatusSink {
 public:
  InMemoryCluster(cache::Cache& cache, int claim_controller_lag,
                  bool recreate_evicted)
      : cache_(cache),
        lag_(claim_controller_lag),
        recreate_evicted_(recreate_evicted) {}
  // The claims keep what was written: the cache assumed it already, and
  // the replay's source is the snapshot, which never shows it.
  void Bind(std::shared_ptr<const api::PodInfo>, const std::string&,
            const std::vector<api::ClaimWrite>&, cache::Done done) override {
    done(absl::OkStatus());
  }
  void Reserve(std::shared_ptr<const api::PodInfo>,
               const std::vector<api::ClaimWrite>&, cache::Done done) override {
    done(absl::OkStatus());
  }
  // The claim shows deallocated at once.
  void Deallocate(const api::ResourceClaim& after, const std::string&,
                  const std::vector<std::string>&, cache::Done done) override {
    cache_.UpsertResourceClaim(after);
    done(absl::OkStatus());
  }
  void Evict(std::shared_ptr<const api::PodInfo> pod, const std::string&,
             const std::string&, cache::Done done) override {
    cache_.DeletePod(pod->Key());
    if (lag_ > 0 && !pod->resource_claims.empty())
      evicted_.push_back({pod->ns, pod->uid, cycle_ + lag_});
    if (recreate_evicted_ && !pod->group.empty()) replacements_.push_back(pod);
    done(absl::OkStatus());
  }
  // Before cycle `c`: the controller's turn for the pods evicted `lag_`
  // cycles ago. Only it frees their claims' devices: the scheduler never
  // assumes it did.
  void BeforeCycle(int c, absl::Time now) {
    cycle_ = c;
    // The job controllers' turn: each evicted pod of a job comes back,
    // pending, as a new object (a new uid) with the same spec.
    for (const auto& gone : replacements_) {
      auto pod = std::make_shared<api::PodInfo>(*gone);
      pod->uid = absl::StrCat(gone->uid, "-", c);
      pod->node_name.clear();
      pod->status = api::TaskStatus::kPending;
      pod->created = now;
      cache_.UpsertPod(std::move(pod), /*has_priority=*/true);
    }
    replacements_.clear();
    std::vector<Evicted> due;
    for (auto it = evicted_.begin(); it != evicted_.end();) {
      if (it->due > c) {
        ++it;
        continue;
      }
      due.push_back(std::move(*it));
      it = evicted_.erase(it);
    }
    if (due.empty()) return;
    for (api::ResourceClaim claim : cache_.Export().resource_claims) {
      bool changed = false, owner_gone = false;
      for (const Evicted& e : due) {
        if (claim.ns != e.ns) continue;
        auto& r = claim.reserved_for;
        const size_t before = r.size();
        r.erase(std::remove_if(r.begin(), r.end(),
                               [&e](const api::ClaimConsumer& u) {
                                 return u.resource == "pods" && u.uid == e.uid;
                               }),
                r.end());
        changed |= r.size() != before;
        owner_gone |= !claim.owner_uid.empty() && claim.owner_uid == e.uid;
      }
      if (!changed && !owner_gone) continue;
      // Written as the API server now has it: what the cache assumed of
      // Shoal's own writes is part of it already.
      cache_.DeleteResourceClaim(claim.Key());
      if (owner_gone) continue;  // garbage-collected with its pod
      if (claim.reserved_for.empty()) claim.allocation.reset();
      cache_.UpsertResourceClaim(std::move(claim));
    }
  }
  void Publish(const api::ClusterInfo& cluster) override {
    for (const auto& job : cluster.jobs)
      cache_.SetPodGroupPhase(job.Key(), job.phase);
  }

 private:
  struct Evicted {
    std::string ns;
    std::string uid;
    int due;  // the cycle before which the controller has cleared it
  };
  cache::Cache& cache_;
  const int lag_;
  const bool recreate_evicted_;
  std::vector<std::shared_ptr<const api::PodInfo>> replacements_;
  int cycle_ = 0;
  std::vector<Evicted> evicted_;
};

}  // namespace

v1::ReplayReport Replay(cache::Cache& cache, framework::Policy& policy,
                        const ReplayOptions& options, absl::Time* clock) {
  InMemoryCluster cluster(cache, options.claim_controller_lag,
                          options.recreate_evicted);
  SchedulerOptions scheduler_options;
  scheduler_options.period = options.period;
  scheduler_options.cycle = options.cycle;
  scheduler_options.log_cycles = false;  // stdout and stderr are the report's
  Scheduler scheduler(cache, policy, cluster, cluster, scheduler_options);
  v1::ReplayReport report;
  *clock = cache.LatestCreation();
  for (int c = 0; c < options.cycles; ++c, *clock += options.period) {
    cluster.BeforeCycle(c, *clock);
    std::shared_ptr<const AppliedCycle> applied = scheduler.RunOnce();
    v1::CycleReport* cycle = report.add_cycles();
    for (const auto& b : applied->binds) {
      if (!b.reserve_only) {
        v1::Bind* bind = cycle->add_binds();
        bind->set_pod(b.pod);
        bind->set_node(b.node);
      }
      if (!b.outcome.ok()) continue;
      for (const api::ClaimWrite& w : b.claims) {
        if (!w.newly_allocated) continue;
        v1::ClaimAllocation* c = cycle->add_claims();
        c->set_claim(w.Key());
        c->set_pod(b.pod);
        c->set_node(w.allocation.PinnedNode());
        c->set_created(w.create != nullptr);
        for (const api::ClaimConsumer& r : w.reserved_for)
          c->add_reserved_for(absl::StrCat(r.resource, "/", r.name));
        for (const api::ContainerRequestMapping& m : w.mappings) {
          v1::RequestMapping* out = c->add_mappings();
          out->set_container(m.container);
          out->set_resource(m.resource);
          out->set_request(m.request);
        }
        for (const api::DeviceResult& r : w.allocation.results) {
          v1::DeviceResult* d = c->add_devices();
          d->set_request(r.request);
          d->set_driver(r.driver);
          d->set_pool(r.pool);
          d->set_device(r.device);
          d->set_admin_access(r.admin_access);
          for (const api::DeviceToleration& t : r.tolerations) {
            google::protobuf::Struct* s = d->add_tolerations();
            auto& f = *s->mutable_fields();
            f["operator"].set_string_value(t.op);
            if (!t.key.empty()) f["key"].set_string_value(t.key);
            if (!t.value.empty()) f["value"].set_string_value(t.value);
            if (!t.effect.empty()) f["effect"].set_string_value(t.effect);
            if (t.toleration_seconds.has_value()) {
              f["tolerationSeconds"].set_number_value(
                  static_cast<double>(*t.toleration_seconds));
            }
          }
          for (const std::string& c : r.binding_conditions)
            d->add_binding_conditions(c);
          for (const std::string& c : r.binding_failure_conditions)
            d->add_binding_failure_conditions(c);
          d->set_share_id(r.share_id);
          for (const auto& [name, q] : r.consumed_capacity)
            (*d->mutable_consumed_capacity())[name] = q;
        }
        for (const std::string& text : w.allocation.config) {
          (void)google::protobuf::util::JsonStringToMessage(text,
                                                            c->add_config());
        }
      }
    }
    for (const auto& d : applied->deallocations) {
      v1::Deallocation* out = cycle->add_deallocations();
      out->set_claim(d.claim);
      out->set_reason(d.reason);
    }
    for (const auto& e : applied->evictions) {
      v1::Eviction* ev = cycle->add_evictions();
      ev->set_pod(e.pod);
      ev->set_reason(e.reason);
      ev->set_moved_to(e.moved_to);
    }
    for (const auto& job : applied->cluster.jobs) {
      // A lone pod is listed only while it waits (pending or pipelined).
      if (job.source == api::GroupSource::kSinglePod &&
          job.PendingCount() == 0 &&
          job.Count(api::TaskStatus::kPipelined) == 0) {
        continue;
      }
      v1::PodGroupStatus* pg = cycle->add_pod_groups();
      pg->set_name(job.Key());
      pg->set_phase(api::PodGroupPhaseName(job.phase));
      pg->set_scheduled(job.ScheduledCount());
      pg->set_min_member(job.min_member);
      pg->set_message(job.message);
      pg->set_queue(job.queue);
      pg->set_priority(job.priority);
    }
  }
  return report;
}

std::string ReportJson(const v1::ReplayReport& report) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(report, &out, options);
  // Struct fields and maps (a result's tolerations, consumedCapacity)
  // come out in hash order: those are written again with sorted keys,
  // the rest as the message orders it, so the same replay prints the
  // same bytes every time.
  nlohmann::ordered_json doc =
      nlohmann::ordered_json::parse(out, nullptr, false);
  if (doc.is_discarded() || !doc.contains("cycles")) return out;
  auto sorted = [](const nlohmann::ordered_json& o) {
    return nlohmann::ordered_json(nlohmann::json(o));  // std::map: by key
  };
  for (auto& cycle : doc["cycles"]) {
    if (!cycle.contains("claims")) continue;
    for (auto& claim : cycle["claims"]) {
      if (!claim.contains("devices")) continue;
      for (auto& d : claim["devices"]) {
        if (d.contains("consumedCapacity"))
          d["consumedCapacity"] = sorted(d["consumedCapacity"]);
        if (!d.contains("tolerations")) continue;
        for (auto& t : d["tolerations"]) t = sorted(t);
      }
    }
  }
  return doc.dump();
}

namespace {

// Left-aligned columns, three spaces apart, like kubectl get.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size())
        line += std::string(width[i] - row[i].size() + 3, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string ReportText(const v1::ReplayReport& report) {
  std::string out;
  for (int c = 0; c < report.cycles_size(); ++c) {
    const v1::CycleReport& cycle = report.cycles(c);
    absl::StrAppend(&out, "Cycle ", c + 1, ": ", cycle.binds_size(), " bound, ",
                    cycle.evictions_size(), " evicted\n\n");
    if (cycle.binds_size() > 0) {
      std::vector<std::vector<std::string>> rows = {{"POD", "NODE"}};
      for (const auto& b : cycle.binds()) rows.push_back({b.pod(), b.node()});
      out += Table(rows) + "\n";
    }
    if (cycle.evictions_size() > 0) {
      bool moved = false;
      for (const auto& e : cycle.evictions()) moved |= !e.moved_to().empty();
      std::vector<std::vector<std::string>> rows = {{"EVICTED POD", "REASON"}};
      if (moved) rows[0].push_back("MOVED TO");
      for (const auto& e : cycle.evictions()) {
        rows.push_back({e.pod(), e.reason()});
        if (moved)
          rows.back().push_back(e.moved_to().empty() ? "-" : e.moved_to());
      }
      out += Table(rows) + "\n";
    }
    if (cycle.pod_groups_size() > 0) {
      std::vector<std::vector<std::string>> rows = {
          {"PODGROUP", "QUEUE", "PHASE", "SCHEDULED", "MINMEMBER", "MESSAGE"}};
      for (const auto& pg : cycle.pod_groups()) {
        rows.push_back({pg.name(), pg.queue(), pg.phase(),
                        absl::StrCat(pg.scheduled()),
                        absl::StrCat(pg.min_member()),
                        pg.message().empty() ? "-" : pg.message()});
      }
      out += Table(rows) + "\n";
    }
  }
  return out;
}

}  // namespace shoal
