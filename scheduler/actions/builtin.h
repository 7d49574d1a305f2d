// The built-in actions, listed explicitly: adding an action is one file and
// one line in builtin.cc.
#ifndef SHOAL_SCHEDULER_ACTIONS_BUILTIN_H_
#define SHOAL_SCHEDULER_ACTIONS_BUILTIN_H_

#include "scheduler/framework/registry.h"

namespace shoal::actions {

framework::ActionRegistry BuiltinActions();

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_BUILTIN_H_
