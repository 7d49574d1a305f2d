// The emulator refuses the DRA selectors kube-apiserver refuses, with the
// real server's Status.
#include "e2e/emulator/device_rules.h"

#include <memory>
#include <string>

#include "e2e/emulator/emulator_test_fixture.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {
namespace {

using nlohmann::json;

constexpr char kIssue[] =
    "device.attributes['gpu.example.com'].model.reverse() == 'x'";
constexpr char kGood[] = "device.driver == 'gpu.example.com'";
constexpr char kClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/default/"
    "resourceclaims";

class DeviceRulesTest : public EmulatorTest {
 protected:
  static json Claim(const std::string& name, const std::string& expression) {
    return {{"apiVersion", "resource.k8s.io/v1"},
            {"kind", "ResourceClaim"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"devices",
               {{"requests",
                 {{{"name", "gpu"},
                   {"exactly",
                    {{"deviceClassName", "gpu.example.com"},
                     {"selectors",
                      {{{"cel", {{"expression", expression}}}}}}}}}}}}}}}};
  }
};

TEST_F(DeviceRulesTest, RefusesTheIssuesClaimAsTheRealServerDoes) {
  int code = 0;
  json status = Call("POST", kClaims, Claim("odd", kIssue), &code);
  EXPECT_EQ(code, 422);
  const std::string body =
      "Invalid value: \"device.attributes['gpu.example.com'].model.reverse() "
      "== 'x'\": compilation failed: ERROR: <input>:1:54: found no matching "
      "overload for '_==_' applied to '(list(dyn), string)'\n"
      " | device.attributes['gpu.example.com'].model.reverse() == 'x'\n"
      " | .....................................................^";
  const std::string field =
      "spec.devices.requests[0].exactly.selectors[0]."
      "cel.expression";
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["status"], "Failure");
  EXPECT_EQ(status["reason"], "Invalid");
  EXPECT_EQ(status["code"], 422);
  EXPECT_EQ(status["message"],
            "ResourceClaim.resource.k8s.io \"odd\" is invalid: " + field +
                ": " + body);
  EXPECT_EQ(status["details"]["name"], "odd");
  EXPECT_EQ(status["details"]["group"], "resource.k8s.io");
  EXPECT_EQ(status["details"]["kind"], "ResourceClaim");
  ASSERT_EQ(status["details"]["causes"].size(), 1u);
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "FieldValueInvalid");
  EXPECT_EQ(status["details"]["causes"][0]["field"], field);
  EXPECT_EQ(status["details"]["causes"][0]["message"], body);
}

TEST_F(DeviceRulesTest, AcceptsAGoodClaimAndRefusesABadUpdateOrPatch) {
  int code = 0;
  json created = Call("POST", kClaims, Claim("gpu", kGood), &code);
  ASSERT_EQ(code, 201) << created.dump();

  json update = Claim("gpu", "device.driver == 1");
  update["metadata"]["resourceVersion"] =
      created["metadata"]["resourceVersion"];
  json status = Call("PUT", std::string(kClaims) + "/gpu", update, &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["details"]["causes"][0]["message"],
            "Invalid value: \"device.driver == 1\": compilation failed: "
            "ERROR: <input>:1:15: found no matching overload for '_==_' "
            "applied to '(string, int)'\n | device.driver == 1\n"
            " | ..............^");

  json patch = {
      {"spec",
       {{"devices",
         {{"requests",
           {{{"name", "gpu"},
             {"exactly",
              {{"deviceClassName", "gpu.example.com"},
               {"selectors", {{{"cel", {{"expression", "1"}}}}}}}}}}}}}}}};
  status = Call("PATCH", std::string(kClaims) + "/gpu", patch, &code,
                "application/merge-patch+json");
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["details"]["causes"][0]["message"],
            "Invalid value: \"1\": must evaluate to bool or the unknown type, "
            "not int");
}

TEST_F(DeviceRulesTest, ChecksClassesTemplatesAndAlternatives) {
  int code = 0;
  json cls = {{"metadata", {{"name", "gpu.example.com"}}},
              {"spec",
               {{"selectors",
                 {{{"cel", {{"expression", kGood}}}},
                  {{"cel", {{"expression", "device.nodeName == 'a'"}}}}}}}}};
  json status =
      Call("POST", "/apis/resource.k8s.io/v1/deviceclasses", cls, &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["details"]["causes"][0]["field"],
            "spec.selectors[1].cel.expression");

  json tmpl = {{"metadata", {{"name", "t"}}},
               {"spec",
                {{"spec",
                  {{"devices",
                    {{"requests",
                      {{{"name", "gpu"},
                        {"firstAvailable",
                         {{{"name", "a"},
                           {"deviceClassName", "gpu.example.com"},
                           {"selectors", {{{"cel", {{"expression", kGood}}}}}}},
                          {{"name", "b"},
                           {"deviceClassName", "gpu.example.com"},
                           {"selectors",
                            {{{"cel", {{"expression", kIssue}}}}}}}}}}}}}}}}}}};
  status = Call("POST",
                "/apis/resource.k8s.io/v1/namespaces/default/"
                "resourceclaimtemplates",
                tmpl, &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["details"]["causes"][0]["field"],
            "spec.spec.devices.requests[0].firstAvailable[1].selectors[0].cel."
            "expression");
  EXPECT_EQ(status["message"].get<std::string>().rfind(
                "ResourceClaimTemplate.resource.k8s.io \"t\" is invalid: ", 0),
            0u);

  // A selector the server accepts though Shoal cannot evaluate it.
  json later = Claim("later",
                     "device.attributes['gpu.example.com'].model."
                     "trim() == 'x'");
  Call("POST", kClaims, later, &code);
  EXPECT_EQ(code, 201);
}

// DRAListTypeAttributes is alpha and off by default in 1.36: the server
// declares no includes() and keeps an attribute google.protobuf.Any, so a
// new selector asking a list-typed attribute either way is refused; `in`
// and indexing type-check on Any and pass.
TEST_F(DeviceRulesTest,
       RefusesListAttributeSelectorsAsA136ServerWithTheGateOff) {
  int code = 0;
  json status = Call(
      "POST", kClaims,
      Claim("inc", "device.attributes['gpu.example.com'].numa.includes(1)"),
      &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(status["details"]["causes"][0]["message"],
            "Invalid value: \"device.attributes['gpu.example.com'].numa."
            "includes(1)\": compilation failed: ERROR: <input>:1:51: "
            "undeclared reference to 'includes' (in container '')\n"
            " | device.attributes['gpu.example.com'].numa.includes(1)\n"
            " | ..................................................^");
  status = Call("POST", kClaims,
                Claim("each",
                      "device.attributes['gpu.example.com'].numa."
                      "exists(n, n == 1)"),
                &code);
  EXPECT_EQ(code, 422);
  const std::string message = status["details"]["causes"][0]["message"];
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "Invalid value: \"device.attributes['gpu.example.com'].numa."
            "exists(n, n == 1)\": compilation failed: ERROR: <input>:1:37: "
            "expression of type 'google.protobuf.Any' cannot be range of a "
            "comprehension (must be list, map, or dynamic)");
  Call("POST", kClaims,
       Claim("in", "1 in device.attributes['gpu.example.com'].numa"), &code);
  EXPECT_EQ(code, 201);
}

}  // namespace
}  // namespace shoal::emulator
