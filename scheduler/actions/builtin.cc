#include "scheduler/actions/builtin.h"

#include "scheduler/actions/allocate.h"
#include "scheduler/actions/backfill.h"
#include "scheduler/actions/consolidate.h"
#include "scheduler/actions/enqueue.h"
#include "scheduler/actions/preempt.h"
#include "scheduler/actions/reclaim.h"

namespace shoal::actions {

framework::ActionRegistry BuiltinActions() {
  framework::ActionRegistry r;
  r.Add("allocate", NewAllocate);
  r.Add("backfill", NewBackfill);
  r.Add("consolidate", NewConsolidate);
  r.Add("enqueue", NewEnqueue);
  r.Add("preempt", NewPreempt);
  r.Add("reclaim", NewReclaim);
  return r;
}

}  // namespace shoal::actions
