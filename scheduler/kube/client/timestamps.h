// Times as the Kubernetes API writes them: RFC 3339 in UTC to the second
// (metav1.Time) or to the microsecond (metav1.MicroTime).
#ifndef SHOAL_SCHEDULER_KUBE_CLIENT_TIMESTAMPS_H_
#define SHOAL_SCHEDULER_KUBE_CLIENT_TIMESTAMPS_H_

#include <string>

#include "absl/time/time.h"

namespace shoal::kube {

std::string Rfc3339(absl::Time t);
std::string MicroTime(absl::Time t);

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_CLIENT_TIMESTAMPS_H_
