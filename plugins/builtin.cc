#include "plugins/builtin.h"

#include "plugins/capacity/capacity.h"
#include "plugins/conformance/conformance.h"
#include "plugins/drf/drf.h"
#include "plugins/elastic/elastic.h"
#include "plugins/gang/gang.h"
#include "plugins/las/las.h"
#include "plugins/networktopology/network_topology_aware.h"
#include "plugins/nodeorder/nodeorder.h"
#include "plugins/overcommit/overcommit.h"
#include "plugins/predicates/predicates.h"
#include "plugins/priority/priority.h"
#include "plugins/proportion/proportion.h"
#include "plugins/reservation/reservation.h"

namespace shoal::plugins {

framework::PluginRegistry BuiltinPlugins() {
  framework::PluginRegistry r;
  r.Add("binpack", nodeorder::NewBinpack);
  r.Add("capacity", capacity::New);
  r.Add("conformance", conformance::New);
  r.Add("drf", drf::New);
  r.Add("elastic", elastic::New);
  r.Add("gang", gang::New);
  r.Add("las", las::New);
  r.Add("network-topology-aware", networktopology::New);
  r.Add("nodeorder", nodeorder::New);
  r.Add("overcommit", overcommit::New);
  r.Add("predicates", predicates::New);
  r.Add("priority", priority::New);
  r.Add("proportion", proportion::New);
  r.Add("reservation", reservation::New);
  return r;
}

}  // namespace shoal::plugins
