// The built-in policy plugins, listed explicitly: adding a plugin is one
// directory and one line in builtin.cc.
#ifndef SHOAL_PLUGINS_BUILTIN_H_
#define SHOAL_PLUGINS_BUILTIN_H_

#include "scheduler/framework/registry.h"

namespace shoal::plugins {

framework::PluginRegistry BuiltinPlugins();

}  // namespace shoal::plugins

#endif  // SHOAL_PLUGINS_BUILTIN_H_
