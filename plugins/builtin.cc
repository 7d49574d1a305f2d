#include "plugins/builtin.h"

#include "plugins/conformance/conformance.h"
#include "plugins/gang/gang.h"
#include "plugins/nodeorder/nodeorder.h"
#include "plugins/predicates/predicates.h"
#include "plugins/priority/priority.h"

namespace shoal::plugins {

framework::PluginRegistry BuiltinPlugins() {
  framework::PluginRegistry r;
  r.Add("binpack", nodeorder::NewBinpack);
  r.Add("conformance", conformance::New);
  r.Add("gang", gang::New);
  r.Add("nodeorder", nodeorder::New);
  r.Add("predicates", predicates::New);
  r.Add("priority", priority::New);
  return r;
}

}  // namespace shoal::plugins
