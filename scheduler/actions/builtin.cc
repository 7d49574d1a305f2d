#include "scheduler/actions/builtin.h"

#include "scheduler/actions/allocate.h"
#include "scheduler/actions/backfill.h"
#include "scheduler/actions/enqueue.h"

namespace shoal::actions {

framework::ActionRegistry BuiltinActions() {
  framework::ActionRegistry r;
  r.Add("allocate", NewAllocate);
  r.Add("backfill", NewBackfill);
  r.Add("enqueue", NewEnqueue);
  return r;
}

}  // namespace shoal::actions
