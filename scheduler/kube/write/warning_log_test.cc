#include "scheduler/kube/write/warning_log.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace shoal::kube {
namespace {

// What an informer sees: the same PodGroup decoded at every update.
TEST(WarningLogTest, SaysEachWarningOncePerObjectAndUnknownFieldsOncePerKind) {
  std::vector<std::string> events;
  WarningLog log([&events](const ObjectRef& o, const std::string& message) {
    events.push_back(o.kind + " " + o.ns + "/" + o.name + ": " + message);
  });
  ObjectRef tf{"scheduling.volcano.sh/v1beta1", "PodGroup", "capture", "tf",
               "u1"};
  DecodeWarnings tf_warnings = {
      {"podgroup capture/tf", "podgroup capture/tf: ignored count/pods", true},
      {"podgroup spec.foo", "podgroup capture/tf: spec.foo: not known", false}};
  EXPECT_EQ(log.Report(tf, tf_warnings), 2);
  EXPECT_EQ(log.Report(tf, tf_warnings), 0);  // the next update
  ObjectRef mpi = tf;
  mpi.name = "mpi";
  DecodeWarnings mpi_warnings = {
      {"podgroup capture/mpi", "podgroup capture/mpi: ignored count/pods",
       true},
      {"podgroup spec.foo", "podgroup capture/mpi: spec.foo: not known",
       false}};
  // Its own object warning is new; the unknown field was said for the kind.
  EXPECT_EQ(log.Report(mpi, mpi_warnings), 1);
  // Only what is about one object becomes an Event on it.
  EXPECT_EQ(events, (std::vector<std::string>{
                        "PodGroup capture/tf: podgroup capture/tf: ignored "
                        "count/pods",
                        "PodGroup capture/mpi: podgroup capture/mpi: ignored "
                        "count/pods"}));
  // Deleted and created again: said again.
  log.Forget("podgroup capture/tf");
  EXPECT_EQ(log.Report(tf, tf_warnings), 1);
  // An object that now says something else is warned about again.
  tf_warnings[0].message = "podgroup capture/tf: ignored limits.cpu";
  EXPECT_EQ(log.Report(tf, tf_warnings), 1);
}

}  // namespace
}  // namespace shoal::kube
