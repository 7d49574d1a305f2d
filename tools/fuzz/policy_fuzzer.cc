// Fuzzes the scheduler configuration (policy) file: the parser
// (framework::ParseSchedulerConfig) and, for what parses, the step that
// checks names and hands each plugin and action its arguments
// (framework::BuildPolicy with the built-in registries), as
// shoal-scheduler --policy does.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "plugins/builtin.h"
#include "scheduler/actions/builtin.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/policy.h"
#include "tools/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace framework = shoal::framework;
  // Built once: the registries are tables of factories.
  static const framework::PluginRegistry plugins =
      shoal::plugins::BuiltinPlugins();
  static const framework::ActionRegistry actions =
      shoal::actions::BuiltinActions();
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = framework::ParseSchedulerConfig(text, "fuzz.yaml");
  shoal::fuzz::CheckRefusal(config.status(), "ParseSchedulerConfig");
  if (!config.ok()) return 0;
  auto policy = framework::BuildPolicy(*config, plugins, actions);
  shoal::fuzz::CheckRefusal(policy.status(), "BuildPolicy");
  return 0;
}
