// shoal-scheduler's admin flags: --admin-address, --admin-tls-cert,
// --admin-tls-key, --admin-client-ca, --admin-allow-whatif. Link this
// library only into the binary that serves the admin service.
#ifndef SHOAL_SCHEDULER_ADMIN_FLAGS_H_
#define SHOAL_SCHEDULER_ADMIN_FLAGS_H_

#include "scheduler/admin/server.h"

namespace shoal::admin {

// The options the flags give. An empty --admin-address turns the admin
// service off (address() empty).
AdminOptions AdminOptionsFromFlags();

}  // namespace shoal::admin

#endif  // SHOAL_SCHEDULER_ADMIN_FLAGS_H_
