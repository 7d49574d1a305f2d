// The rule for gangs left half-bound, run at the end of every cycle in
// every mode (live, replay, simulator), whatever plugins the policy lists:
// it is mechanism, like the rule that a gang commits whole.
//
// Binds go out together, but some can fail (the API server errs, a node
// goes away, the scheduler restarts mid-way). Later cycles try to complete
// the gang. If it has stayed below its minMember with members bound for
// more than `limit` consecutive cycles, its bound members are released
// (evicted through a Statement, reason "gang-incomplete", so every plugin's
// shares see the room come back) and stop holding room the rest of the
// gang cannot get; their controller recreates them and the gang is placed
// whole later.
//
// How many cycles a gang has ended partial so far comes with the snapshot
// (JobInfo::cycles_below_minimum): the cache keeps that count between
// cycles, as it keeps every other verdict (Cache::KeepDecisions).
#ifndef SHOAL_SCHEDULER_FRAMEWORK_PARTIAL_GANG_RELEASE_H_
#define SHOAL_SCHEDULER_FRAMEWORK_PARTIAL_GANG_RELEASE_H_

#include "scheduler/api/job_info.h"
#include "scheduler/framework/session.h"

namespace shoal::framework {

// Releases the bound members of every gang that has now been partial for
// more than `limit` consecutive cycles (this one included).
void ReleasePartialGangs(Session& session, int limit);

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_PARTIAL_GANG_RELEASE_H_
