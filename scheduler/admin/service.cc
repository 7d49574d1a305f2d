#include "scheduler/admin/service.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/admin/device_views.h"
#include "scheduler/admin/own_policy.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/policy.h"
#include "scheduler/framework/session.h"

namespace shoal::admin {
namespace {

grpc::Status ToGrpc(const absl::Status& s) {
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

// "cpu: 8, nvidia.com/gpu: 2", leaving out what is not limited.
std::string Limited(const api::Resource& r) {
  api::Resource shown;
  for (size_t i = 0; i < r.size(); ++i) {
    auto id = static_cast<api::ResourceId>(i);
    if (r.Get(id) < api::kUnlimited) shown.Set(id, r.Get(id));
  }
  return shown.ToString();
}

}  // namespace

absl::StatusOr<v1::QueuesResponse> Queues(const AdminBackend& backend) {
  std::optional<api::ClusterInfo> last = backend.LastCycle();
  v1::QueuesResponse out;
  api::ClusterInfo c;
  if (last.has_value()) {
    out.set_source("last cycle");
    c = std::move(*last);
  } else {
    // No cycle yet: a session of our own opened and closed on the
    // snapshot has the queue plugin state each queue's standing, the same
    // numbers a cycle would, with nothing decided.
    auto policy = OwnPolicy(backend.config());
    if (!policy.ok()) return policy.status();
    framework::Session session(backend.Snapshot(), *policy);
    session.Close();
    c = std::move(session.cluster());
    out.set_source("current snapshot");
  }
  for (size_t q = 0; q < c.queues.size(); ++q) {
    const api::QueueInfo& queue = c.queues[q];
    v1::QueueStatus* s = out.add_queues();
    s->set_name(queue.name);
    s->set_weight(queue.weight);
    s->set_priority(queue.priority);
    s->set_open(queue.open);
    s->set_reclaimable(queue.reclaimable);
    s->set_implicit(queue.implicit);
    if (queue.parent_index != api::kNone) {
      s->set_parent(c.queues[queue.parent_index].name);
    }
    s->set_depth(queue.depth);
    // Stated by the queue plugin (proportion, capacity); unknown without
    // one. A parent's amounts are its subtree's.
    if (queue.standing_known) {
      s->set_deserved(Limited(queue.deserved_now));
      s->set_allocated(queue.allocated.ToString());
      api::Resource borrowed = queue.allocated - queue.deserved_now;
      borrowed.MaxWith(api::Resource());
      s->set_borrowed(borrowed.ToString());
      api::Resource lent;
      for (size_t id = 0; id < queue.deserved_now.size(); ++id) {
        auto rid = static_cast<api::ResourceId>(id);
        int64_t deserved = queue.deserved_now.Get(rid);
        if (deserved >= api::kUnlimited) continue;
        lent.Set(rid,
                 std::max<int64_t>(0, deserved - queue.allocated.Get(rid)));
      }
      s->set_lent(lent.ToString());
      s->set_request(queue.request.ToString());
      s->set_share(queue.share);
    }
    s->set_capability(queue.capability.has_value() ? Limited(*queue.capability)
                                                   : "");
    s->set_guarantee(queue.guarantee.ToString());
  }
  for (const api::JobInfo& job : c.jobs) {
    if (job.queue_index == api::kNone) continue;
    v1::QueueStatus* s = out.mutable_queues(job.queue_index);
    (*s->mutable_podgroups())[api::PodGroupPhaseName(job.phase)]++;
    if (job.phase == api::PodGroupPhase::kPending ||
        job.phase == api::PodGroupPhase::kInqueue) {
      s->set_pending_gangs(s->pending_gangs() + 1);
    } else if (job.phase == api::PodGroupPhase::kRunning) {
      s->set_running_gangs(s->running_gangs() + 1);
    }
  }
  return out;
}

absl::StatusOr<v1::WhatIfResponse> WhatIf(const AdminBackend& backend,
                                          const v1::WhatIfRequest& request) {
  const std::string name = request.policy_name().empty()
                               ? "whatif-policy.yaml"
                               : request.policy_name();
  auto config = framework::ParseSchedulerConfig(request.policy_yaml(), name);
  if (!config.ok()) {
    return absl::InvalidArgumentError(std::string(config.status().message()));
  }
  auto policy = OwnPolicy(*config);
  if (!policy.ok()) {
    return absl::InvalidArgumentError(std::string(policy.status().message()));
  }
  framework::CycleOutcome outcome =
      framework::RunCycle(backend.Snapshot(), *policy);
  const api::ClusterInfo& c = outcome.cluster;
  v1::WhatIfResponse out;
  for (const auto& w : policy->warnings) out.add_warnings(w);
  for (const auto& b : outcome.binds) {
    if (b.reserve_only) continue;  // devices reserved, not bound
    v1::Bind* bind = out.add_binds();
    bind->set_pod(c.tasks[b.task].pod->Key());
    bind->set_node(c.nodes[b.node].name());
  }
  for (const auto& e : outcome.evictions) {
    v1::Eviction* ev = out.add_evictions();
    ev->set_pod(c.tasks[e.task].pod->Key());
    ev->set_reason(e.reason);
    ev->set_preemptor(e.preemptor);
  }
  std::vector<const api::JobInfo*> jobs;
  for (const auto& j : c.jobs) {
    if (j.source != api::GroupSource::kSinglePod) jobs.push_back(&j);
  }
  std::sort(jobs.begin(), jobs.end(),
            [](const api::JobInfo* a, const api::JobInfo* b) {
              return a->Key() < b->Key();
            });
  for (const api::JobInfo* j : jobs) {
    v1::PodGroupOutcome* pg = out.add_podgroups();
    pg->set_podgroup(j->Key());
    pg->set_phase(api::PodGroupPhaseName(j->phase));
    pg->set_message(j->message);
  }
  return out;
}

grpc::Status AdminService::Devices(grpc::ServerContext*,
                                   const v1::DevicesRequest* request,
                                   v1::DevicesResponse* response) {
  auto r = admin::Devices(backend_, *request);
  if (!r.ok()) return ToGrpc(r.status());
  *response = std::move(*r);
  return grpc::Status::OK;
}

grpc::Status AdminService::Explain(grpc::ServerContext*,
                                   const v1::ExplainRequest* request,
                                   v1::ExplainResponse* response) {
  auto r = admin::Explain(backend_, *request);
  if (!r.ok()) return ToGrpc(r.status());
  *response = std::move(*r);
  return grpc::Status::OK;
}

grpc::Status AdminService::Queues(grpc::ServerContext*,
                                  const v1::QueuesRequest*,
                                  v1::QueuesResponse* response) {
  auto r = admin::Queues(backend_);
  if (!r.ok()) return ToGrpc(r.status());
  *response = std::move(*r);
  return grpc::Status::OK;
}

grpc::Status AdminService::Crds(grpc::ServerContext*, const v1::CrdsRequest*,
                                v1::CrdsResponse* response) {
  std::optional<std::vector<CrdFinding>> found = backend_.Crds();
  response->set_checked(found.has_value());
  if (!found.has_value()) return grpc::Status::OK;
  for (const CrdFinding& f : *found) {
    v1::CrdCheck* c = response->add_crds();
    c->set_name(f.crd);
    for (const std::string& field : f.fields) c->add_pruned_fields(field);
    for (const std::string& m : f.messages) c->add_messages(m);
  }
  return grpc::Status::OK;
}

grpc::Status AdminService::Snapshot(grpc::ServerContext*,
                                    const v1::SnapshotRequest*,
                                    v1::SnapshotResponse* response) {
  response->set_list_json(backend_.SnapshotList());
  return grpc::Status::OK;
}

grpc::Status AdminService::WhatIf(grpc::ServerContext*,
                                  const v1::WhatIfRequest* request,
                                  v1::WhatIfResponse* response) {
  if (!allow_whatif_) {
    return grpc::Status(
        grpc::StatusCode::PERMISSION_DENIED,
        "whatif is disabled; start shoal-scheduler with --admin-allow-whatif");
  }
  auto r = admin::WhatIf(backend_, *request);
  if (!r.ok()) return ToGrpc(r.status());
  *response = std::move(*r);
  return grpc::Status::OK;
}

}  // namespace shoal::admin
