// The admin service: answers shoalctl's questions about the running
// scheduler from an AdminBackend. Every call builds its own Policy from the
// backend's configuration, so nothing here ever runs a session on the
// scheduler's Policy or holds its lock while deciding.
#ifndef SHOAL_SCHEDULER_ADMIN_SERVICE_H_
#define SHOAL_SCHEDULER_ADMIN_SERVICE_H_

#include "absl/status/statusor.h"
#include "proto/admin.grpc.pb.h"
#include "scheduler/admin/backend.h"

namespace shoal::admin {

namespace v1 = ::shoal::admin::v1;

// NotFound when the pod is not a pending pod of Shoal's (or the PodGroup is
// unknown); InvalidArgument when the name is not namespace/name.
absl::StatusOr<v1::ExplainResponse> Explain(const AdminBackend& backend,
                                            const v1::ExplainRequest& request);
absl::StatusOr<v1::QueuesResponse> Queues(const AdminBackend& backend);
// Runs one cycle of the given policy on the backend's snapshot; nothing is
// applied. InvalidArgument with the loader's message for a bad policy.
absl::StatusOr<v1::WhatIfResponse> WhatIf(const AdminBackend& backend,
                                          const v1::WhatIfRequest& request);

class AdminService final : public v1::Admin::Service {
 public:
  AdminService(const AdminBackend& backend, bool allow_whatif)
      : backend_(backend), allow_whatif_(allow_whatif) {}

  grpc::Status Explain(grpc::ServerContext*, const v1::ExplainRequest* request,
                       v1::ExplainResponse* response) override;
  grpc::Status Queues(grpc::ServerContext*, const v1::QueuesRequest*,
                      v1::QueuesResponse* response) override;
  grpc::Status Snapshot(grpc::ServerContext*, const v1::SnapshotRequest*,
                        v1::SnapshotResponse* response) override;
  grpc::Status WhatIf(grpc::ServerContext*, const v1::WhatIfRequest* request,
                      v1::WhatIfResponse* response) override;
  grpc::Status Devices(grpc::ServerContext*, const v1::DevicesRequest* request,
                       v1::DevicesResponse* response) override;
  grpc::Status Crds(grpc::ServerContext*, const v1::CrdsRequest*,
                    v1::CrdsResponse* response) override;

 private:
  const AdminBackend& backend_;
  const bool allow_whatif_;
};

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_SERVICE_H_
