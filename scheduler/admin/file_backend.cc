#include "scheduler/admin/file_backend.h"

#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/cycle.h"
#include "scheduler/framework/policy.h"
#include "scheduler/kube/snapshot/snapshot_file.h"
#include "scheduler/kube/snapshot/snapshot_writer.h"

namespace shoal::admin {

absl::StatusOr<std::unique_ptr<FileBackend>> FileBackend::Load(
    const std::string& snapshot_path, framework::SchedulerConfig config,
    int cycles) {
  std::unique_ptr<FileBackend> b(new FileBackend());
  b->config_ = std::move(config);
  FileBackend* self = b.get();
  b->cache_ =
      std::make_unique<cache::Cache>("shoal", [self] { return self->clock_; });
  std::vector<std::string> warnings;
  if (auto s = kube::LoadSnapshotFile(snapshot_path, *b->cache_, &warnings);
      !s.ok()) {
    return s;
  }
  b->clock_ = b->cache_->LatestCreation();

  auto policy = framework::BuildPolicy(b->config_, plugins::BuiltinPlugins(),
                                       actions::BuiltinActions());
  if (!policy.ok()) return policy.status();
  for (int i = 0; i < cycles; ++i) {
    framework::CycleOutcome outcome =
        framework::RunCycle(b->cache_->Snapshot(), *policy);
    for (const auto& bind : outcome.binds) {
      if (bind.reserve_only) continue;  // devices reserved, not bound
      b->cache_->AssumeBound(outcome.cluster.tasks[bind.task].pod->Key(),
                             outcome.cluster.nodes[bind.node].name());
    }
    b->cache_->KeepDecisions(outcome.cluster);
    b->last_ = std::move(outcome.cluster);
  }
  return b;
}

std::string FileBackend::SnapshotList() const {
  return kube::WriteSnapshotList(*cache_);
}

}  // namespace shoal::admin
