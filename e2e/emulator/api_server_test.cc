// The emulator's wire behaviour, as Shoal's client sees it: the answers
// the end-to-end suite relies on being the real API server's.
#include "e2e/emulator/api_server.h"

#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "e2e/emulator/emulator_test_fixture.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

namespace shoal::emulator {
namespace {

using nlohmann::json;

class ApiServerTest : public EmulatorTest {
 protected:
  json NewPod(const std::string& name) {
    return {{"metadata", {{"name", name}}},
            {"spec",
             {{"schedulerName", "shoal"},
              {"containers", {{{"name", "c"}, {"image", "pause"}}}}}}};
  }
  // The watch's lines until `count` arrived.
  std::vector<json> Watch(const std::string& path, size_t count) {
    std::vector<json> events;
    std::string buffer;
    client_->set_read_timeout(5, 0);
    client_->Get(path.c_str(), [&](const char* data, size_t size) {
      buffer.append(data, size);
      for (size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
        events.push_back(json::parse(buffer.substr(0, nl)));
        buffer.erase(0, nl + 1);
      }
      return events.size() < count;
    });
    return events;
  }
};

TEST_F(ApiServerTest, ErrorsAreKubernetesStatusObjects) {
  int code;
  json missing =
      Call("GET", "/api/v1/namespaces/default/pods/nope", nullptr, &code);
  EXPECT_EQ(code, 404);
  EXPECT_EQ(missing["kind"], "Status");
  EXPECT_EQ(missing["reason"], "NotFound");
  EXPECT_EQ(missing["message"], "pods \"nope\" not found");

  json bad = Call("POST", "/api/v1/namespaces/default/pods", NewPod("Bad_Name"),
                  &code);
  EXPECT_EQ(code, 422);
  EXPECT_EQ(bad["reason"], "Invalid");
  EXPECT_EQ(bad["details"]["causes"][0]["field"], "metadata.name");

  Call("POST", "/api/v1/namespaces/default/pods", NewPod("p"), &code);
  EXPECT_EQ(code, 201);
  json again =
      Call("POST", "/api/v1/namespaces/default/pods", NewPod("p"), &code);
  EXPECT_EQ(code, 409);
  EXPECT_EQ(again["reason"], "AlreadyExists");

  json no_ns =
      Call("POST", "/api/v1/namespaces/absent/pods", NewPod("p"), &code);
  EXPECT_EQ(code, 404);
  EXPECT_EQ(no_ns["message"], "namespaces \"absent\" not found");
}

TEST_F(ApiServerTest, StaleUpdatesConflictAndStatusIsItsOwnSubresource) {
  json group = {{"metadata", {{"name", "g"}}},
                {"spec", {{"minMember", 2}}},
                {"status", {{"phase", "Running"}}}};
  int code;
  json created =
      Call("POST",
           "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups",
           group, &code);
  EXPECT_EQ(code, 201);
  EXPECT_FALSE(created.contains("status"))
      << "status is written through /status only";
  std::string path =
      "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/g";
  json patched =
      Call("PATCH", path + "/status", {{"status", {{"phase", "Inqueue"}}}},
           &code, "application/merge-patch+json");
  EXPECT_EQ(code, 200);
  EXPECT_EQ(patched["status"]["phase"], "Inqueue");
  // An update carrying the old resourceVersion is refused.
  json stale = created;
  stale["spec"]["minMember"] = 3;
  json conflict = Call("PUT", path, stale, &code);
  EXPECT_EQ(code, 409);
  EXPECT_EQ(conflict["reason"], "Conflict");
  EXPECT_EQ(conflict["message"],
            "Operation cannot be fulfilled on podgroups.scheduling.volcano.sh "
            "\"g\": the object "
            "has been modified; please apply your changes to the latest "
            "version and try again");
  // So is a patch that names an old version.
  Call("PATCH", path + "/status",
       {{"metadata",
         {{"resourceVersion", created["metadata"]["resourceVersion"]}}},
        {"status", {{"phase", "Running"}}}},
       &code, "application/merge-patch+json");
  EXPECT_EQ(code, 409);
  // Custom resources take no strategic merge patch.
  Call("PATCH", path, {{"spec", {{"minMember", 4}}}}, &code,
       "application/strategic-merge-patch+json");
  EXPECT_EQ(code, 415);
}

TEST_F(ApiServerTest, StrategicMergeMergesConditionsByType) {
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("p"));
  std::string path = "/api/v1/namespaces/default/pods/p/status";
  auto patch = [&](const std::string& type, const std::string& status) {
    return Call(
        "PATCH", path,
        {{"status", {{"conditions", {{{"type", type}, {"status", status}}}}}}},
        nullptr, "application/strategic-merge-patch+json");
  };
  patch("Ready", "False");
  patch("PodScheduled", "False");
  json pod = patch("Ready", "True");
  ASSERT_EQ(pod["status"]["conditions"].size(), 2u);
  EXPECT_EQ(pod["status"]["conditions"][0]["status"], "True");
}

// How a client (the end-to-end suite) tells whether DRA is served:
// GET /apis/GROUP names the group's versions, 404 for a group not served.
TEST_F(ApiServerTest, GroupDiscoveryNamesTheGroupsVersions) {
  int code;
  json group = Call("GET", "/apis/resource.k8s.io", nullptr, &code);
  EXPECT_EQ(code, 200);
  EXPECT_EQ(group["kind"], "APIGroup");
  EXPECT_EQ(group["name"], "resource.k8s.io");
  EXPECT_EQ(group["versions"],
            json::array(
                {{{"groupVersion", "resource.k8s.io/v1"}, {"version", "v1"}}}));
  EXPECT_EQ(group["preferredVersion"]["version"], "v1");
  Call("GET", "/apis/none.example.com", nullptr, &code);
  EXPECT_EQ(code, 404);

  Shutdown();
  ApiServerOptions options;
  options.without_groups = {"resource.k8s.io"};
  Start(options);
  Call("GET", "/apis/resource.k8s.io", nullptr, &code);
  EXPECT_EQ(code, 404);
}

// A ResourceClaim's allocation as Shoal writes it: a JSON patch of
// /status that first tests the resourceVersion it decided on.
TEST_F(ApiServerTest, ClaimStatusJsonPatchTestsTheResourceVersion) {
  std::string claims =
      "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";
  int code;
  json claim = Call(
      "POST", claims,
      {{"metadata", {{"name", "c"}}},
       {"spec",
        {{"devices",
          {{"requests",
            {{{"name", "gpu"},
              {"exactly", {{"deviceClassName", "gpu.example.com"}}}}}}}}}}},
      &code);
  ASSERT_EQ(code, 201);
  std::string rv = claim["metadata"]["resourceVersion"];
  json allocation = {{"devices",
                      {{"results",
                        {{{"request", "gpu"},
                          {"driver", "gpu.example.com"},
                          {"pool", "n1"},
                          {"device", "gpu-0"}}}}}}};
  json patch = {
      {{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", rv}},
      {{"op", "add"},
       {"path", "/status"},
       {"value",
        {{"allocation", allocation}, {"reservedFor", json::array()}}}}};
  json written = Call("PATCH", claims + "/c/status", patch, &code,
                      "application/json-patch+json");
  EXPECT_EQ(code, 200);
  EXPECT_EQ(written["status"]["allocation"], allocation);
  EXPECT_NE(written["metadata"]["resourceVersion"], rv);
  // The same patch again: the version it tests is gone.
  Call("PATCH", claims + "/c/status", patch, &code,
       "application/json-patch+json");
  EXPECT_EQ(code, 422);
}

TEST_F(ApiServerTest, BindingEvictionAndGracefulDeletion) {
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("p"));
  int code;
  json binding = {{"target", {{"kind", "Node"}, {"name", "n1"}}}};
  Call("POST", "/api/v1/namespaces/default/pods/p/binding", binding, &code);
  EXPECT_EQ(code, 201);
  json twice =
      Call("POST", "/api/v1/namespaces/default/pods/p/binding", binding, &code);
  EXPECT_EQ(code, 409);
  EXPECT_EQ(twice["message"],
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is "
            "already assigned to "
            "node \"n1\"");
  // A budget that allows no disruption refuses the eviction.
  Call("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
       {{"metadata", {{"name", "keep"}}},
        {"spec", {{"selector", {{"matchLabels", json::object()}}}}}});
  json refused = Call("POST", "/api/v1/namespaces/default/pods/p/eviction",
                      {{"metadata", {{"name", "p"}}}}, &code);
  EXPECT_EQ(code, 429);
  EXPECT_EQ(
      refused["message"],
      "Cannot evict pod as it would violate the pod's disruption budget.");
  Call("DELETE",
       "/apis/policy/v1/namespaces/default/poddisruptionbudgets/keep");
  Call("POST", "/api/v1/namespaces/default/pods/p/eviction",
       {{"metadata", {{"name", "p"}}}}, &code);
  EXPECT_EQ(code, 201);
  // Bound, so without a kubelet it is only marked for deletion...
  json marked =
      Call("GET", "/api/v1/namespaces/default/pods/p", nullptr, &code);
  EXPECT_EQ(code, 200);
  EXPECT_TRUE(marked["metadata"].contains("deletionTimestamp"));
  // ...until deleted with grace 0.
  Call("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0");
  Call("GET", "/api/v1/namespaces/default/pods/p", nullptr, &code);
  EXPECT_EQ(code, 404);
}

TEST_F(ApiServerTest,
       WatchResumesFromAVersionSendsBookmarksAndSays410WhenTooOld) {
  Shutdown();
  ApiServerOptions options;
  options.history = 3;
  Start(options);
  json list = Call("GET", "/api/v1/namespaces/default/pods");
  std::string from = list["metadata"]["resourceVersion"];
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("a"));
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("b"));
  auto events = Watch(
      "/api/v1/namespaces/default/pods?watch=1&allowWatchBookmarks=true"
      "&resourceVersion=" +
          from,
      3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "a");
  EXPECT_EQ(events[1]["object"]["metadata"]["name"], "b");
  EXPECT_EQ(events[2]["type"], "BOOKMARK");
  // Two more changes push `from` out of the 3-change history.
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("c"));
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("d"));
  auto gone = Watch(
      "/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + from, 1);
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0]["type"], "ERROR");
  EXPECT_EQ(gone[0]["object"]["code"], 410);
  EXPECT_EQ(gone[0]["object"]["reason"], "Expired");
}

// A PodGroup CRD shaped as Volcano's: no status subresource, and a schema
// without Shoal's status.elasticTarget and without
// x-kubernetes-preserve-unknown-fields.
json VolcanoLikePodGroupCrd(bool status_subresource) {
  json schema = {{"type", "object"},
                 {"properties",
                  {{"apiVersion", {{"type", "string"}}},
                   {"kind", {{"type", "string"}}},
                   {"metadata", {{"type", "object"}}},
                   {"spec",
                    {{"type", "object"},
                     {"properties",
                      {{"minMember", {{"type", "integer"}}},
                       {"minResources",
                        {{"type", "object"},
                         {"additionalProperties",
                          {{"x-kubernetes-int-or-string", true}}}}}}}}},
                   {"status",
                    {{"type", "object"},
                     {"properties",
                      {{"phase", {{"type", "string"}}},
                       {"conditions",
                        {{"type", "array"},
                         {"items",
                          {{"type", "object"},
                           {"properties",
                            {{"type", {{"type", "string"}}},
                             {"status", {{"type", "string"}}}}}}}}}}}}}}}};
  json version = {{"name", "v1beta1"},
                  {"served", true},
                  {"storage", true},
                  {"schema", {{"openAPIV3Schema", schema}}},
                  {"subresources", json::object()}};
  if (status_subresource) version["subresources"]["status"] = json::object();
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "podgroups.scheduling.volcano.sh"}}},
          {"spec",
           {{"group", "scheduling.volcano.sh"},
            {"scope", "Namespaced"},
            {"names",
             {{"kind", "PodGroup"},
              {"plural", "podgroups"},
              {"singular", "podgroup"}}},
            {"versions", {version}}}}};
}

std::set<std::string> Discovered(const json& list) {
  std::set<std::string> names;
  for (const json& r : list["resources"]) names.insert(r["name"]);
  return names;
}

TEST_F(ApiServerTest, CustomResourcesAreServedAsTheirCrdSays) {
  Shutdown();
  ApiServerOptions options;
  options.custom_kinds = false;  // a bare API server
  Start(options);
  const std::string groups =
      "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups";
  int code;
  // No CRD: neither the kind nor its group version is served.
  json missing = Call("GET", groups, nullptr, &code);
  EXPECT_EQ(code, 404);
  EXPECT_EQ(missing["message"],
            "the server could not find the requested resource");
  Call("GET", "/apis/scheduling.volcano.sh/v1beta1", nullptr, &code);
  EXPECT_EQ(code, 404);

  const std::string crds =
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  Call("POST", crds, VolcanoLikePodGroupCrd(false), &code);
  ASSERT_EQ(code, 201);
  json discovery =
      Call("GET", "/apis/scheduling.volcano.sh/v1beta1", nullptr, &code);
  EXPECT_EQ(code, 200);
  EXPECT_EQ(discovery["kind"], "APIResourceList");
  EXPECT_EQ(discovery["groupVersion"], "scheduling.volcano.sh/v1beta1");
  EXPECT_EQ(Discovered(discovery), std::set<std::string>{"podgroups"});

  // Fields outside the schema are pruned; status is an ordinary field.
  json created = Call(
      "POST", groups,
      {{"metadata", {{"name", "g"}}},
       {"spec",
        {{"minMember", 2}, {"minResources", {{"cpu", "4"}}}, {"extra", 1}}},
       {"status", {{"phase", "Pending"}}}},
      &code);
  ASSERT_EQ(code, 201);
  EXPECT_EQ(created["spec"],
            json({{"minMember", 2}, {"minResources", {{"cpu", "4"}}}}));
  EXPECT_EQ(created["status"]["phase"], "Pending");
  // No /status: 404, worded as if the object did not exist.
  json no_status =
      Call("PATCH", groups + "/g/status", {{"status", {{"phase", "Inqueue"}}}},
           &code, "application/merge-patch+json");
  EXPECT_EQ(code, 404);
  EXPECT_EQ(no_status["reason"], "NotFound");
  EXPECT_EQ(no_status["message"],
            "podgroups.scheduling.volcano.sh \"g\" not found");
  // Through the main resource the status is written, less what the
  // schema does not know.
  json patched = Call("PATCH", groups + "/g",
                      {{"status",
                        {{"phase", "Inqueue"},
                         {"elasticTarget", 3},
                         {"conditions",
                          {{{"type", "Scheduled"},
                            {"status", "True"},
                            {"transitionID", "x"}}}}}}},
                      &code, "application/merge-patch+json");
  EXPECT_EQ(code, 200);
  EXPECT_EQ(
      patched["status"],
      json({{"phase", "Inqueue"},
            {"conditions", {{{"type", "Scheduled"}, {"status", "True"}}}}}));
  // Without a status subresource a status change is a new generation.
  EXPECT_EQ(created["metadata"]["generation"], 1);
  EXPECT_EQ(patched["metadata"]["generation"], 2);

  // The CRD gains a status subresource: now served and listed, and the
  // main resource no longer writes the status.
  json crd = Call("GET", crds + "/podgroups.scheduling.volcano.sh");
  json changed = VolcanoLikePodGroupCrd(true);
  changed["metadata"]["resourceVersion"] = crd["metadata"]["resourceVersion"];
  Call("PUT", crds + "/podgroups.scheduling.volcano.sh", changed, &code);
  ASSERT_EQ(code, 200);
  EXPECT_EQ(Discovered(Call("GET", "/apis/scheduling.volcano.sh/v1beta1")),
            (std::set<std::string>{"podgroups", "podgroups/status"}));
  Call("PATCH", groups + "/g", {{"status", {{"phase", "Running"}}}}, &code,
       "application/merge-patch+json");
  EXPECT_EQ(Call("GET", groups + "/g")["status"]["phase"], "Inqueue");
  Call("PATCH", groups + "/g/status", {{"status", {{"phase", "Running"}}}},
       &code, "application/merge-patch+json");
  EXPECT_EQ(code, 200);
  EXPECT_EQ(Call("GET", groups + "/g")["status"]["phase"], "Running");

  // Deleted: no longer served.
  Call("DELETE", crds + "/podgroups.scheduling.volcano.sh", nullptr, &code);
  EXPECT_EQ(code, 200);
  Call("GET", groups + "/g", nullptr, &code);
  EXPECT_EQ(code, 404);
}

TEST_F(ApiServerTest,
       PruningKeepsWhatPreserveUnknownFieldsAndAdditionalPropertiesAllow) {
  json schema = {{"type", "object"},
                 {"properties",
                  {{"spec",
                    {{"type", "object"},
                     {"x-kubernetes-preserve-unknown-fields", true},
                     {"properties",
                      {{"known",
                        {{"type", "object"},
                         {"properties", {{"a", {{"type", "integer"}}}}}}}}}}},
                   {"list",
                    {{"type", "array"},
                     {"items",
                      {{"type", "object"},
                       {"properties", {{"b", {{"type", "string"}}}}}}}}}}}};
  json object = {
      {"apiVersion", "x/v1"},
      {"kind", "X"},
      {"metadata", {{"name", "x"}}},
      {"spec", {{"free", {{"deep", 1}}}, {"known", {{"a", 1}, {"z", 2}}}}},
      {"list", {{{"b", "1"}, {"c", 2}}}},
      {"top", 1}};
  PruneToSchema(object, schema);
  EXPECT_EQ(object,
            json({{"apiVersion", "x/v1"},
                  {"kind", "X"},
                  {"metadata", {{"name", "x"}}},
                  {"spec", {{"free", {{"deep", 1}}}, {"known", {{"a", 1}}}}},
                  {"list", {{{"b", "1"}}}}}));
}

// Names of a list answer's items, in order.
std::vector<std::string> Names(const json& list) {
  std::vector<std::string> names;
  for (const json& item : list["items"])
    names.push_back(item["metadata"]["name"]);
  return names;
}

TEST_F(ApiServerTest, PagedListsKeepTheFirstPagesSnapshotInKeyOrder) {
  for (const char* name : {"p5", "p1", "p7", "p3", "p2", "p6", "p4"}) {
    Call("POST", "/api/v1/namespaces/default/pods", NewPod(name));
  }
  json first = Call("GET", "/api/v1/pods?limit=3");
  EXPECT_EQ(Names(first), (std::vector<std::string>{"p1", "p2", "p3"}));
  EXPECT_EQ(first["metadata"]["remainingItemCount"], 4);
  std::string version = first["metadata"]["resourceVersion"];
  std::string token = first["metadata"]["continue"];
  // Changes after the first page are not seen by the rest of the list.
  Call("DELETE", "/api/v1/namespaces/default/pods/p7?gracePeriodSeconds=0");
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("p8"));
  json p5 = Call("GET", "/api/v1/namespaces/default/pods/p5");
  p5["metadata"]["labels"] = {{"changed", "yes"}};
  Call("PUT", "/api/v1/namespaces/default/pods/p5", p5);
  json second = Call("GET", "/api/v1/pods?limit=3&continue=" + token);
  EXPECT_EQ(Names(second), (std::vector<std::string>{"p4", "p5", "p6"}));
  EXPECT_FALSE(second["items"][1]["metadata"].contains("labels"));
  EXPECT_EQ(second["metadata"]["resourceVersion"], version);
  EXPECT_EQ(second["metadata"]["remainingItemCount"], 1);
  json third =
      Call("GET", "/api/v1/pods?limit=3&continue=" +
                      second["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(Names(third), (std::vector<std::string>{"p7"}));
  EXPECT_EQ(third["metadata"]["resourceVersion"], version);
  EXPECT_FALSE(third["metadata"].contains("continue"));
  EXPECT_FALSE(third["metadata"].contains("remainingItemCount"));
  // A new list sees the changes; a selector hides how many remain.
  EXPECT_EQ(
      Names(Call("GET", "/api/v1/namespaces/default/pods")),
      (std::vector<std::string>{"p1", "p2", "p3", "p4", "p5", "p6", "p8"}));
  json selected =
      Call("GET", "/api/v1/pods?limit=1&labelSelector=changed%21%3Dyes");
  EXPECT_EQ(Names(selected), (std::vector<std::string>{"p1"}));
  EXPECT_TRUE(selected["metadata"].contains("continue"));
  EXPECT_FALSE(selected["metadata"].contains("remainingItemCount"));
}

TEST_F(ApiServerTest, ListsAreWrittenInTheRealServersOrder) {
  // Lists are serialized straight from the store, in kube-apiserver's
  // order (kind, apiVersion, metadata, items: clients may read the
  // continue token first); items of a built-in kind carry no
  // kind/apiVersion.
  for (const char* name : {"b", "a", "c"}) {
    Call("POST", "/api/v1/namespaces/default/pods", NewPod(name));
  }
  for (const char* path :
       {"/api/v1/pods", "/api/v1/pods?limit=2",
        "/api/v1/namespaces/default/pods?limit=1", "/api/v1/namespaces"}) {
    httplib::Result r = client_->Get(path);
    ASSERT_TRUE(r) << path;
    json list = json::parse(r->body);
    EXPECT_EQ(
        r->body.rfind(absl::StrCat("{\"kind\":", list["kind"].dump(),
                                   ",\"apiVersion\":\"v1\",\"metadata\":",
                                   list["metadata"].dump(), ",\"items\":["),
                      0),
        0)
        << path << ": " << r->body.substr(0, 200);
    for (const json& item : list["items"]) {
      EXPECT_FALSE(item.contains("kind")) << path;
      EXPECT_FALSE(item.contains("apiVersion")) << path;
      EXPECT_TRUE(item["metadata"].contains("uid")) << path;
    }
  }
  json page = Call("GET", "/api/v1/namespaces/default/pods?limit=1");
  EXPECT_EQ(page["kind"], "PodList");
  EXPECT_EQ(page["apiVersion"], "v1");
  EXPECT_EQ(Names(page), std::vector<std::string>{"a"});
  EXPECT_EQ(page["metadata"]["remainingItemCount"], 2);
  json rest = Call("GET", "/api/v1/namespaces/default/pods?limit=1&continue=" +
                              page["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(Names(rest), std::vector<std::string>{"b"});
  EXPECT_EQ(rest["metadata"]["remainingItemCount"], 1);
  // A custom resource's list items keep their kind and apiVersion.
  Call("POST", "/apis/scheduling.volcano.sh/v1beta1/queues",
       {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
        {"kind", "Queue"},
        {"metadata", {{"name", "q"}}}});
  httplib::Result queues =
      client_->Get("/apis/scheduling.volcano.sh/v1beta1/queues");
  ASSERT_TRUE(queues);
  json list = json::parse(queues->body);
  EXPECT_EQ(list["kind"], "QueueList");
  ASSERT_EQ(list["items"].size(), 1);
  EXPECT_EQ(list["items"][0]["kind"], "Queue");
  EXPECT_EQ(list["items"][0]["apiVersion"], "scheduling.volcano.sh/v1beta1");
}

TEST_F(ApiServerTest, ContinueTokensExpireAsAfterACompaction) {
  Shutdown();
  ApiServerOptions options;
  options.continue_expiry_revisions = 2;
  Start(options);
  for (const char* name : {"a", "b", "c"}) {
    Call("POST", "/api/v1/namespaces/default/pods", NewPod(name));
  }
  json first = Call("GET", "/api/v1/pods?limit=1");
  std::string token = first["metadata"]["continue"];
  int code;
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("d"));
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("e"));
  // Two revisions on: still readable.
  EXPECT_EQ(Names(Call("GET", "/api/v1/pods?limit=1&continue=" + token, nullptr,
                       &code)),
            (std::vector<std::string>{"b"}));
  EXPECT_EQ(code, 200);
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("f"));
  json expired =
      Call("GET", "/api/v1/pods?limit=1&continue=" + token, nullptr, &code);
  EXPECT_EQ(code, 410);
  EXPECT_EQ(expired["reason"], "Expired");
  EXPECT_NE(expired["message"].get<std::string>().find(
                "The provided continue parameter is too old"),
            std::string::npos);
  // The answer offers an inconsistent remainder from the newest version.
  json rest = Call("GET",
                   "/api/v1/pods?continue=" +
                       expired["metadata"]["continue"].get<std::string>(),
                   nullptr, &code);
  EXPECT_EQ(code, 200);
  EXPECT_EQ(Names(rest), (std::vector<std::string>{"b", "c", "d", "e", "f"}));
  json bad = Call("GET", "/api/v1/pods?limit=1&continue=xyz", nullptr, &code);
  EXPECT_EQ(code, 400);
  EXPECT_EQ(
      bad["message"].get<std::string>().rfind("invalid continue token: ", 0),
      0u);
}

TEST_F(ApiServerTest, GzipOnlyForLargeListsNeverForWatches) {
  std::string filler(1000, 'x');
  for (int i = 0; i < 200; ++i) {
    json pod = NewPod("big-" + std::to_string(i));
    pod["metadata"]["annotations"] = {{"filler", filler}};
    Call("POST", "/api/v1/namespaces/default/pods", pod);
  }
  client_->set_decompress(false);  // to see the bytes on the wire
  httplib::Headers gzip = {{"Accept-Encoding", "gzip"}};
  auto large = client_->Get("/api/v1/pods", gzip);
  ASSERT_TRUE(large);
  EXPECT_EQ(large->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(large->get_header_value("Vary"), "Accept-Encoding");
  ASSERT_GE(large->body.size(), 2u);
  EXPECT_EQ(large->body.substr(0, 2), "\x1f\x8b");  // the gzip magic
  EXPECT_LT(large->body.size(), 100u * 1024);
  auto plain = client_->Get("/api/v1/pods");  // not offered: not compressed
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->get_header_value("Content-Encoding"), "");
  EXPECT_GT(plain->body.size(), 200u * 1000);
  auto small = client_->Get("/api/v1/pods?limit=5", gzip);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->get_header_value("Content-Encoding"), "");
  EXPECT_EQ(json::parse(small->body)["items"].size(), 5u);
  // A watch is a stream of small events: never compressed, each event
  // arrives as it happens.
  std::string version = json::parse(small->body)["metadata"]["resourceVersion"];
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    httplib::Client other("127.0.0.1", port_);
    other.Post("/api/v1/namespaces/default/pods", NewPod("late").dump(),
               "application/json");
  });
  std::string encoding = "unset", received;
  client_->set_read_timeout(5, 0);
  client_->Get(("/api/v1/pods?watch=1&resourceVersion=" + version).c_str(),
               gzip,
               [&](const httplib::Response& r) {
                 encoding = r.get_header_value("Content-Encoding");
                 return true;
               },
               [&](const char* data, size_t size) {
                 received.append(data, size);
                 return received.find('\n') == std::string::npos;
               });
  writer.join();
  EXPECT_EQ(encoding, "");
  ASSERT_NE(received.find('\n'), std::string::npos);
  EXPECT_EQ(json::parse(received.substr(
                0, received.find('\n')))["object"]["metadata"]["name"],
            "late");
}

// --write-qps: writes are admitted one after another at the rate; reads
// are not held.
TEST_F(ApiServerTest, WriteQpsPacesWrites) {
  Shutdown();
  ApiServerOptions options;
  options.write_qps = 50;
  Start(options);
  absl::Time start = absl::Now();
  for (int i = 0; i < 21; ++i) {
    int code = 0;
    Call("POST", "/api/v1/namespaces/default/pods",
         NewPod("p" + std::to_string(i)), &code);
    EXPECT_EQ(code, 201);
  }
  absl::Duration writes = absl::Now() - start;
  // 21 writes at 50/s: 20 gaps of 20 ms after the first.
  EXPECT_GE(writes, absl::Milliseconds(390)) << writes;
  start = absl::Now();
  for (int i = 0; i < 20; ++i) Call("GET", "/api/v1/namespaces/default/pods");
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(200));
}

// --event-delay: Event writes answer late; other writes do not.
TEST_F(ApiServerTest, EventDelayHoldsEventsOnly) {
  Shutdown();
  ApiServerOptions options;
  options.event_delay = absl::Milliseconds(300);
  Start(options);
  absl::Time start = absl::Now();
  int code = 0;
  Call("POST", "/api/v1/namespaces/default/pods", NewPod("p"), &code);
  EXPECT_EQ(code, 201);
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(250));
  start = absl::Now();
  Call("POST", "/api/v1/namespaces/default/events",
       {{"metadata", {{"name", "e"}}},
        {"involvedObject", {{"kind", "Pod"}, {"name", "p"}}},
        {"reason", "Scheduled"}},
       &code);
  EXPECT_EQ(code, 201);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(300));
}

}  // namespace
}  // namespace shoal::emulator
