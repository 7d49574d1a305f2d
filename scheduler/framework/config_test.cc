#include "scheduler/framework/config.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/framework/policy.h"

namespace shoal::framework {
namespace {

std::string Error(const std::string& yaml) {
  auto c = ParseSchedulerConfig(yaml, "conf.yaml");
  EXPECT_FALSE(c.ok()) << yaml;
  return std::string(c.status().message());
}

TEST(ConfigTest, VolcanoDefaultLoads) {
  auto c = ParseSchedulerConfig(R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: nodeorder
    arguments:
      leastrequested.weight: 2
      resources:
        nvidia.com/gpu: 3
configurations:
- name: allocate
  arguments: {}
)",
                                "conf.yaml");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->actions.size(), 3u);
  EXPECT_EQ(c->actions[1].name, "allocate");
  ASSERT_EQ(c->tiers.size(), 2u);
  EXPECT_FALSE(c->tiers[0].plugins[1].Enabled("enablePreemptable"));
  EXPECT_TRUE(c->tiers[0].plugins[1].Enabled("enableJobOrder"));
  const auto& args = c->tiers[1].plugins[0].arguments;
  EXPECT_EQ(args.at("leastrequested.weight"), "2");
  EXPECT_EQ(args.at("resources.nvidia.com/gpu"), "3");
  EXPECT_EQ(c->tiers[1].plugins[0].location.Describe(), "conf.yaml:10");
  EXPECT_TRUE(c->HasAction("backfill"));
}

TEST(ConfigTest, MalformedYamlNamesFileAndLine) {
  EXPECT_EQ(Error("actions: \"allocate\"\ntiers:\n- plugins: [name: gang\n"),
            "conf.yaml:4:1: malformed YAML: end of sequence flow not found");
}

TEST(ConfigTest, WrongShapesAreNamed) {
  EXPECT_EQ(Error("- allocate\n"),
            "conf.yaml: a scheduler configuration must be a map with "
            "\"actions\" and \"tiers\"");
  EXPECT_EQ(Error("tiers: []\n"),
            "conf.yaml:1: actions: is missing; list at least one action");
  EXPECT_EQ(Error("actions: [allocate]\n"),
            "conf.yaml:1: actions: must be a comma-separated string such as "
            "\"enqueue, allocate, backfill\"");
  EXPECT_EQ(Error("actions: allocate\ntiers: {plugins: []}\n"),
            "conf.yaml:2: tiers: must be a list of {plugins: [...]}");
  EXPECT_EQ(
      Error("actions: allocate\ntiers:\n- plugins:\n  - gang\n"),
      "conf.yaml:4: tiers[0].plugins[0]: must be a map with at least a name");
  EXPECT_EQ(Error("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    "
                  "enableJobOrder: maybe\n"),
            "conf.yaml:5: tiers[0].plugins[0].enableJobOrder: must be true or "
            "false, got \"maybe\"");
  EXPECT_EQ(Error("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    "
                  "arguments: [1]\n"),
            "conf.yaml:5: tiers[0].plugins[0].arguments: must be a map of "
            "argument names to values");
  EXPECT_EQ(Error("actions: allocate\nschedulerName: x\n"),
            "conf.yaml:2: : unknown field \"schedulerName\" (valid: actions, "
            "tiers, configurations, metrics, percentageOfNodesToScore)");
  EXPECT_EQ(Error("actions: allocate\nconfigurations:\n- name: preempt\n"),
            "conf.yaml:3: configurations[0].name: configures action "
            "\"preempt\", which \"actions\" does not list");
}

// Found by tools/fuzz (policy_fuzzer): yaml-cpp throws when a list or map
// key is read as a string, and the exception ended the scheduler.
TEST(ConfigTest, PercentageOfNodesToScoreAsKubeSchedulerTakesIt) {
  auto unset = ParseSchedulerConfig("actions: \"allocate\"\n", "conf.yaml");
  ASSERT_TRUE(unset.ok()) << unset.status();
  EXPECT_EQ(unset->percentage_of_nodes_to_score, 0);  // adaptive
  for (int p : {0, 1, 10, 50, 100}) {
    auto c = ParseSchedulerConfig(
        absl::StrCat("actions: \"allocate\"\npercentageOfNodesToScore: ", p,
                     "\n"),
        "conf.yaml");
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->percentage_of_nodes_to_score, p);
  }
}

TEST(ConfigTest, PercentageOfNodesToScoreOutOfRangeIsRefusedByName) {
  const std::string kExpected =
      "percentageOfNodesToScore: must be a whole number from 0 to 100 (0: "
      "kube-scheduler's adaptive default, 100: every node), got ";
  EXPECT_EQ(Error("actions: \"allocate\"\npercentageOfNodesToScore: 150\n"),
            "conf.yaml:2: " + kExpected + "\"150\"");
  EXPECT_EQ(Error("actions: \"allocate\"\npercentageOfNodesToScore: -1\n"),
            "conf.yaml:2: " + kExpected + "\"-1\"");
  EXPECT_EQ(Error("actions: \"allocate\"\npercentageOfNodesToScore: 12.5\n"),
            "conf.yaml:2: " + kExpected + "\"12.5\"");
  EXPECT_EQ(Error("actions: \"allocate\"\npercentageOfNodesToScore: 10%\n"),
            "conf.yaml:2: " + kExpected + "\"10%\"");
  EXPECT_EQ(Error("actions: \"allocate\"\npercentageOfNodesToScore: [10]\n"),
            "conf.yaml:2: " + kExpected + "\"?\"");
  // Volcano's names for its command-line flags are not policy keys.
  EXPECT_EQ(Error("actions: \"allocate\"\nminPercentageOfNodesToFind: 5\n"),
            "conf.yaml:2: : unknown field \"minPercentageOfNodesToFind\" "
            "(valid: actions, tiers, configurations, metrics, "
            "percentageOfNodesToScore)");
}

TEST(ConfigTest, KeysThatAreListsOrMapsAreRefusedNamingWhere) {
  EXPECT_EQ(Error("? [actions]\n: allocate\n"),
            "conf.yaml:1: (top): keys must be plain words, not lists or maps");
  EXPECT_EQ(Error("actions: allocate\ntiers:\n- {plugins: [], [x]: y}\n"),
            "conf.yaml:3: tiers[0]: keys must be plain words, not lists or "
            "maps");
  EXPECT_EQ(Error("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n"
                  "    {a: b}: c\n"),
            "conf.yaml:5: tiers[0].plugins[0]: keys must be plain words, not "
            "lists or maps");
  EXPECT_EQ(Error("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n"
                  "    arguments: {x: {[1]: 2}}\n"),
            "conf.yaml:5: tiers[0].plugins[0].arguments.x: keys must be plain "
            "words, not lists or maps");
}

TEST(ConfigTest, TypoInSwitchIsRefusedWithValidNames) {
  std::string e = Error(
      "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    "
      "enabelJobOrder: false\n");
  EXPECT_EQ(
      e.rfind("conf.yaml:5: tiers[0].plugins[0]: unknown field "
              "\"enabelJobOrder\" (valid: name, arguments, enableJobOrder,",
              0),
      0u)
      << e;
}

class Nothing : public Plugin {
  std::unique_ptr<PluginSession> OnSessionOpen(Session&) override {
    return nullptr;
  }
};
class Idle : public Action {
  void Execute(Session&) override {}
};

TEST(PolicyTest, UnknownNamesListValidOnes) {
  PluginRegistry plugins;
  plugins.Add("gang",
              [](const Arguments&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
                return std::make_unique<Nothing>();
              });
  ActionRegistry actions;
  actions.Add("allocate",
              [](const Arguments&) -> absl::StatusOr<std::unique_ptr<Action>> {
                return std::make_unique<Idle>();
              });
  auto build = [&](const std::string& yaml) {
    return BuildPolicy(*ParseSchedulerConfig(yaml, "conf.yaml"), plugins,
                       actions);
  };
  EXPECT_EQ(
      build("actions: allocate, shuffle\n").status().message(),
      "conf.yaml:1: actions: unknown action \"shuffle\" (valid: allocate)");
  EXPECT_EQ(build("actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - "
                  "name: drff\n")
                .status()
                .message(),
            "conf.yaml:5: tiers[0].plugins[1].name: unknown plugin \"drff\" "
            "(valid: gang)");
  auto ok = build(
      "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    arguments: "
      "{x: 1}\n");
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->warnings.size(), 1u);
  EXPECT_EQ(ok->warnings[0],
            "conf.yaml:4: plugin gang: argument \"x\" is not used by Shoal; "
            "ignored");
}

TEST(ArgumentsTest, TypedGettersRefuseWrongTypes) {
  Arguments args("plugin nodeorder", {{"w", "abc"}, {"b", "yes"}, {"n", "2"}});
  EXPECT_EQ(args.GetDouble("w", 1).status().message(),
            "plugin nodeorder: arguments.w: expected a number, got \"abc\"");
  EXPECT_EQ(
      args.GetBool("b", true).status().message(),
      "plugin nodeorder: arguments.b: expected true or false, got \"yes\"");
  EXPECT_EQ(*args.GetInt("n", 0), 2);
  EXPECT_EQ(*args.GetDouble("missing", 0.5), 0.5);
}

// Volcano's own spellings (enabledOverused, enabledAllocatable, ...) load;
// the older ones mean the same switch; switches of features Shoal lacks
// are accepted with a warning naming file, line and key (issue 12, 3).
TEST(ConfigTest, VolcanoSwitchSpellingsLoad) {
  auto c = ParseSchedulerConfig(
      "actions: allocate\ntiers:\n- plugins:\n  - name: proportion\n"
      "    enabledOverused: false\n    enableAllocatable: false\n"
      "    enabledHyperNodeOrder: true\n    EnabledClusterOrder: true\n",
      "volcano.yaml");
  ASSERT_TRUE(c.ok()) << c.status();
  const PluginConfig& p = c->tiers[0].plugins[0];
  EXPECT_FALSE(p.Enabled("enabledOverused"));
  EXPECT_FALSE(p.Enabled("enabledAllocatable"));
  EXPECT_TRUE(p.Enabled("enableJobOrder"));
  EXPECT_EQ(c->warnings,
            (std::vector<std::string>{
                "volcano.yaml:7: tiers[0].plugins[0].enabledHyperNodeOrder: "
                "Shoal has no "
                "callback this switch turns on or off; ignored",
                "volcano.yaml:8: tiers[0].plugins[0].EnabledClusterOrder: "
                "Shoal has no "
                "callback this switch turns on or off; ignored"}));
}

}  // namespace
}  // namespace shoal::framework
