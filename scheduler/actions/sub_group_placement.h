// How allocate places a job with sub-groups (api/sub_groups.h): inside
// each domain the job may take (network_domains.h), its sub-groups one
// after another, each whole (subGroupSize pods) inside a domain of its own
// policy's, until the job is ready (minMember, minSubGroups); then they
// are committed together. A running job takes one more sub-group (or one
// more pod of a whole one) per turn, inside the domain it runs in.
#ifndef SHOAL_SCHEDULER_ACTIONS_SUB_GROUP_PLACEMENT_H_
#define SHOAL_SCHEDULER_ACTIONS_SUB_GROUP_PLACEMENT_H_

#include "scheduler/actions/job_cursor.h"

namespace shoal::actions {

// Places some of job `j`'s sub-groups (see above); returns whether the
// job should get another turn. Why it could not is in its fit_error.
bool PlaceBySubGroups(framework::Session& s, api::JobIndex j,
                      JobCursor& cursor);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_SUB_GROUP_PLACEMENT_H_
