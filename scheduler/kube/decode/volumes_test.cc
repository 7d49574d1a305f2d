#include "scheduler/kube/decode/volumes.h"

#include "gtest/gtest.h"
#include "scheduler/kube/decode/objects.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

json Claim(json spec, json status = json::object(),
           json meta = json::object()) {
  meta["name"] = "data";
  meta["namespace"] = "team-a";
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", meta},
          {"spec", spec},
          {"status", status}};
}

json Volume(json spec, json meta = json::object()) {
  meta["name"] = "pv-1";
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolume"},
          {"metadata", meta},
          {"spec", spec}};
}

json Pinned(json term) {
  return {{"required", {{"nodeSelectorTerms", json::array({term})}}}};
}

TEST(DecodePodVolumeClaimsTest, ClaimsAndEphemeralVolumes) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "w-0"}, {"namespace", "team-a"}}},
              {"spec",
               {{"containers", {{{"name", "c"}}}},
                {"volumes",
                 json::array({
                     {{"name", "tmp"}, {"emptyDir", json::object()}},
                     {{"name", "d"},
                      {"persistentVolumeClaim", {{"claimName", "data"}}}},
                     {{"name", "scratch"},
                      {"ephemeral", {{"volumeClaimTemplate", json::object()}}}},
                 })}}}};
  auto decoded = DecodePod(pod, nullptr);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  std::vector<api::VolumeClaimRef> want = {{"data", false},
                                           {"w-0-scratch", true}};
  EXPECT_EQ(decoded->pod->volume_claims, want);
  EXPECT_EQ(decoded->pod->unsupported_field, "");
}

TEST(DecodePodVolumeClaimsTest, RefusalsNameTheField) {
  auto why = [](json volumes) {
    return std::string(
        DecodePodVolumeClaims({{"volumes", volumes}}, "w-0", "pod team-a/w-0")
            .status()
            .message());
  };
  EXPECT_EQ(why("x"), "pod team-a/w-0: spec.volumes: must be a list");
  EXPECT_EQ(why(json::array({5})),
            "pod team-a/w-0: spec.volumes[0]: must be an object, got 5");
  EXPECT_EQ(why(json::array(
                {{{"name", "d"}, {"persistentVolumeClaim", json::object()}}})),
            "pod team-a/w-0: spec.volumes[0].persistentVolumeClaim.claimName: "
            "is required");
  EXPECT_EQ(why(json::array({{{"name", "d"},
                              {"persistentVolumeClaim", {{"claimName", 7}}}}})),
            "pod team-a/w-0: spec.volumes[0].persistentVolumeClaim.claimName: "
            "must be a string, got 7");
  EXPECT_EQ(why(json::array({{{"ephemeral", json::object()}}})),
            "pod team-a/w-0: spec.volumes[0].name: is required");
  EXPECT_EQ(why(json::array({{{"name", "e"}, {"ephemeral", "x"}}})),
            "pod team-a/w-0: spec.volumes[0].ephemeral: must be an object");
}

TEST(DecodePersistentVolumeClaimTest, BoundOnlyWithAVolumeAndBoundPhase) {
  auto c = DecodePersistentVolumeClaim(
      Claim({{"volumeName", "pv-1"}, {"storageClassName", "local"}},
            {{"phase", "Bound"}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->Key(), "team-a/data");
  EXPECT_EQ(c->volume_name, "pv-1");
  EXPECT_EQ(c->storage_class, "local");
  EXPECT_TRUE(c->bound);
  EXPECT_FALSE(c->deleting);

  c = DecodePersistentVolumeClaim(
      Claim({{"storageClassName", "local"}}, {{"phase", "Pending"}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->bound);
  // Pre-bound by the user, not yet bound by the PV controller.
  c = DecodePersistentVolumeClaim(
      Claim({{"volumeName", "pv-1"}}, {{"phase", "Pending"}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->bound);
  // The PV controller's annotation says bound, whatever the phase says.
  c = DecodePersistentVolumeClaim(
      Claim({{"volumeName", "pv-1"}}, json::object(),
            {{"annotations",
              {{"pv.kubernetes.io/bind-completed", "yes"},
               {"volume.beta.kubernetes.io/storage-class", "old"}}},
             {"deletionTimestamp", "2024-01-01T00:00:00Z"},
             {"ownerReferences",
              json::array({{{"uid", "a"}},
                           {{"uid", "pod-uid"}, {"controller", true}}})}}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->bound);
  EXPECT_EQ(c->storage_class,
            "old");  // the beta annotation wins, as in kube-scheduler
  EXPECT_TRUE(c->deleting);
  EXPECT_EQ(c->owner_uid, "pod-uid");
}

TEST(DecodePersistentVolumeClaimTest, RefusalsNameObjectAndField) {
  auto why = [](json obj) {
    return std::string(DecodePersistentVolumeClaim(obj).status().message());
  };
  EXPECT_EQ(why({{"kind", "PersistentVolumeClaim"}}),
            "persistentvolumeclaim without a name: metadata.name is required");
  EXPECT_EQ(why(Claim({{"volumeName", 3}})),
            "persistentvolumeclaim team-a/data: spec.volumeName: must be a "
            "string, got 3");
  EXPECT_EQ(
      why(Claim("x")),
      "persistentvolumeclaim team-a/data: spec: must be an object, got \"x\"");
  EXPECT_EQ(why(Claim(json::object(), {{"phase", true}})),
            "persistentvolumeclaim team-a/data: status.phase: must be a "
            "string, got true");
  EXPECT_EQ(why(Claim(json::object(), json::object(),
                      {{"ownerReferences", {{"a", 1}}}})),
            "persistentvolumeclaim team-a/data: metadata.ownerReferences: must "
            "be a list");
  EXPECT_EQ(
      why(Claim(json::object(), json::object(),
                {{"ownerReferences", json::array({{{"controller", "yes"}}})}})),
      "persistentvolumeclaim team-a/data: "
      "metadata.ownerReferences[0].controller: "
      "must be true or false, got \"yes\"");
  EXPECT_EQ(
      why(Claim(json::object(), json::object(), {{"annotations", {{"a", 1}}}})),
      "persistentvolumeclaim team-a/data: metadata.annotations.a: must be a "
      "string, got 1");
}

TEST(DecodePersistentVolumeTest, NodeAffinityClaimRefClassAndLabels) {
  json term = {
      {"matchExpressions", json::array({{{"key", "kubernetes.io/hostname"},
                                         {"operator", "In"},
                                         {"values", {"node-a"}}}})}};
  auto pv = DecodePersistentVolume(
      Volume({{"storageClassName", "local"},
              {"nodeAffinity", Pinned(term)},
              {"claimRef", {{"namespace", "team-a"}, {"name", "data"}}}},
             {{"labels", {{"topology.kubernetes.io/zone", "z1"}}}}));
  ASSERT_TRUE(pv.ok()) << pv.status();
  EXPECT_EQ(pv->name, "pv-1");
  EXPECT_EQ(pv->storage_class, "local");
  EXPECT_EQ(pv->claim_ns, "team-a");
  EXPECT_EQ(pv->claim_name, "data");
  ASSERT_TRUE(pv->node_affinity.has_value());
  ASSERT_EQ(pv->node_affinity->size(), 1u);
  EXPECT_EQ((*pv->node_affinity)[0].match_expressions[0].values,
            std::vector<std::string>{"node-a"});
  EXPECT_NE(pv->labels.Find("topology.kubernetes.io/zone"), nullptr);

  pv = DecodePersistentVolume(Volume(json::object()));
  ASSERT_TRUE(pv.ok()) << pv.status();
  EXPECT_FALSE(pv->node_affinity.has_value());  // usable from any node
}

TEST(DecodePersistentVolumeTest, RefusalsNameObjectAndField) {
  auto why = [](json obj) {
    return std::string(DecodePersistentVolume(obj).status().message());
  };
  json bad_op = {
      {"matchExpressions", json::array({{{"key", "k"}, {"operator", "Foo"}}})}};
  EXPECT_EQ(
      why(Volume({{"nodeAffinity", Pinned(bad_op)}})),
      "persistentvolume pv-1: spec.nodeAffinity.required.nodeSelectorTerms[0]."
      "matchExpressions[0].operator: unknown operator \"Foo\" (valid: In, "
      "NotIn, "
      "Exists, DoesNotExist, Gt, Lt)");
  EXPECT_EQ(why(Volume({{"nodeAffinity",
                         {{"required", {{"nodeSelectorTerms", "x"}}}}}})),
            "persistentvolume pv-1: "
            "spec.nodeAffinity.required.nodeSelectorTerms: must be a "
            "list of node selector terms");
  EXPECT_EQ(
      why(Volume({{"nodeAffinity", {{"required", 1}}}})),
      "persistentvolume pv-1: spec.nodeAffinity.required: must be an object");
  EXPECT_EQ(
      why(Volume({{"nodeAffinity", json::array()}})),
      "persistentvolume pv-1: spec.nodeAffinity: must be an object, got []");
  EXPECT_EQ(
      why(Volume({{"claimRef", {{"name", 1}}}})),
      "persistentvolume pv-1: spec.claimRef.name: must be a string, got 1");
  EXPECT_EQ(
      why(Volume({{"storageClassName", json::array()}})),
      "persistentvolume pv-1: spec.storageClassName: must be a string, got []");
  EXPECT_EQ(why(Volume(json::object(), {{"labels", "x"}})),
            "persistentvolume pv-1: metadata.labels: must be a map of strings");
  EXPECT_EQ(why({{"kind", "PersistentVolume"}, {"metadata", 5}}),
            "persistentvolume without a name: metadata.name is required");
}

TEST(DecodeStorageClassTest, BindingMode) {
  json sc = {{"apiVersion", "storage.k8s.io/v1"},
             {"kind", "StorageClass"},
             {"metadata", {{"name", "local"}}}};
  auto c = DecodeStorageClass(sc);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->binding_mode, api::VolumeBindingMode::kImmediate);
  sc["volumeBindingMode"] = "WaitForFirstConsumer";
  c = DecodeStorageClass(sc);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->binding_mode, api::VolumeBindingMode::kWaitForFirstConsumer);
  sc["volumeBindingMode"] = "Later";
  EXPECT_EQ(DecodeStorageClass(sc).status().message(),
            "storageclass local: volumeBindingMode: unknown binding mode "
            "\"Later\" (valid: "
            "Immediate, WaitForFirstConsumer)");
  sc["volumeBindingMode"] = 1;
  EXPECT_EQ(DecodeStorageClass(sc).status().message(),
            "storageclass local: volumeBindingMode: must be a string, got 1");
}

TEST(DecodePersistentVolumeTest, CsiDriverAndHandle) {
  auto pv = DecodePersistentVolume(Volume(
      {{"csi", {{"driver", "ebs.csi.aws.com"}, {"volumeHandle", "vol-1"}}}}));
  ASSERT_TRUE(pv.ok()) << pv.status();
  EXPECT_EQ(pv->csi_driver, "ebs.csi.aws.com");
  EXPECT_EQ(pv->csi_handle, "vol-1");
  // An in-tree volume is not a CSI one.
  pv = DecodePersistentVolume(
      Volume({{"awsElasticBlockStore", {{"volumeID", "vol-2"}}}}));
  ASSERT_TRUE(pv.ok()) << pv.status();
  EXPECT_EQ(pv->csi_driver, "");
  EXPECT_EQ(pv->csi_handle, "");
  EXPECT_EQ(DecodePersistentVolume(Volume({{"csi", "x"}})).status().message(),
            "persistentvolume pv-1: spec.csi: must be an object, got \"x\"");
  EXPECT_EQ(DecodePersistentVolume(Volume({{"csi", {{"volumeHandle", 7}}}}))
                .status()
                .message(),
            "persistentvolume pv-1: spec.csi.volumeHandle: must be a string, "
            "got 7");
}

json CsiNodeObject(json drivers) {
  return {{"apiVersion", "storage.k8s.io/v1"},
          {"kind", "CSINode"},
          {"metadata", {{"name", "n0"}}},
          {"spec", {{"drivers", drivers}}}};
}

TEST(DecodeCsiNodeTest, LimitsPerDriver) {
  auto node = DecodeCsiNode(CsiNodeObject(
      json::array({{{"name", "ebs.csi.aws.com"},
                    {"nodeID", "i-1"},
                    {"allocatable", {{"count", 25}}}},
                   {{"name", "nfs.csi.k8s.io"}, {"nodeID", "i-1"}},
                   {{"name", "zero.csi"}, {"allocatable", {{"count", 0}}}}})));
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_EQ(node->name, "n0");
  // A driver without allocatable.count has no limit.
  EXPECT_EQ(node->limits, (std::vector<api::VolumeLimit>{
                              {"ebs.csi.aws.com", 25}, {"zero.csi", 0}}));
  json bare = {{"kind", "CSINode"}, {"metadata", {{"name", "n1"}}}};
  node = DecodeCsiNode(bare);
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_TRUE(node->limits.empty());
}

TEST(DecodeCsiNodeTest, RefusalsNameObjectAndField) {
  auto why = [](json obj) {
    return std::string(DecodeCsiNode(obj).status().message());
  };
  EXPECT_EQ(why(CsiNodeObject("x")),
            "csinode n0: spec.drivers: must be a list");
  EXPECT_EQ(why(CsiNodeObject(json::array({1}))),
            "csinode n0: spec.drivers[0]: must be an object, got 1");
  EXPECT_EQ(
      why(CsiNodeObject(json::array({{{"allocatable", {{"count", 1}}}}}))),
      "csinode n0: spec.drivers[0].name: is required");
  EXPECT_EQ(
      why(CsiNodeObject(json::array({{{"name", "d"}, {"allocatable", 3}}}))),
      "csinode n0: spec.drivers[0].allocatable: must be an object, got 3");
  EXPECT_EQ(why(CsiNodeObject(json::array(
                {{{"name", "d"}, {"allocatable", {{"count", "2"}}}}}))),
            "csinode n0: spec.drivers[0].allocatable.count: must be a whole "
            "number, got \"2\"");
  EXPECT_EQ(why(CsiNodeObject(json::array(
                {{{"name", "d"}, {"allocatable", {{"count", -1}}}}}))),
            "csinode n0: spec.drivers[0].allocatable.count: must not be "
            "negative, got -1");
  EXPECT_EQ(why({{"kind", "CSINode"}, {"metadata", 5}}),
            "csinode without a name: metadata.name is required");
}

// Whatever a field holds, the decoders answer and never throw.
TEST(VolumeDecodersTest, NeverThrow) {
  std::vector<json> junk = {nullptr,
                            1,
                            "x",
                            true,
                            json::array(),
                            json::object(),
                            json::array({1, "a", nullptr}),
                            {{"a", {{"b", 1}}}}};
  for (const json& j : junk) {
    for (const char* field : {"spec", "status", "metadata"}) {
      json obj = Volume(json::object());
      obj[field] = j;
      EXPECT_NO_THROW(DecodePersistentVolume(obj));
      obj = Claim(json::object());
      obj[field] = j;
      EXPECT_NO_THROW(DecodePersistentVolumeClaim(obj));
      EXPECT_NO_THROW(DecodeStorageClass(obj));
      EXPECT_NO_THROW(DecodeCsiNode(obj));
    }
    EXPECT_NO_THROW(DecodeCsiNode(CsiNodeObject(j)));
    EXPECT_NO_THROW(DecodeCsiNode(CsiNodeObject(json::array({j}))));
    EXPECT_NO_THROW(DecodeCsiNode(
        CsiNodeObject(json::array({{{"name", j}, {"allocatable", j}}}))));
    EXPECT_NO_THROW(DecodeCsiNode(CsiNodeObject(
        json::array({{{"name", "d"}, {"allocatable", {{"count", j}}}}}))));
    EXPECT_NO_THROW(DecodePersistentVolume(Volume({{"csi", j}})));
    EXPECT_NO_THROW(DecodePersistentVolume(
        Volume({{"csi", {{"driver", j}, {"volumeHandle", j}}}})));
    for (const char* field : {"nodeAffinity", "claimRef", "storageClassName"}) {
      EXPECT_NO_THROW(DecodePersistentVolume(Volume({{field, j}})));
      EXPECT_NO_THROW(DecodePersistentVolume(
          Volume({{"nodeAffinity", {{"required", j}}}})));
      EXPECT_NO_THROW(DecodePersistentVolume(Volume(
          {{"nodeAffinity",
            {{"required", {{"nodeSelectorTerms", json::array({j})}}}}}})));
    }
    EXPECT_NO_THROW(DecodePodVolumeClaims({{"volumes", j}}, "p", "pod a/p"));
    EXPECT_NO_THROW(
        DecodePodVolumeClaims({{"volumes", json::array({j})}}, "p", "pod a/p"));
    EXPECT_NO_THROW(DecodePodVolumeClaims(
        {{"volumes", json::array({{{"name", j}, {"ephemeral", j}}})}}, "p",
        "pod a/p"));
    EXPECT_NO_THROW(DecodePodVolumeClaims(
        {{"volumes", json::array({{{"persistentVolumeClaim", j}}})}}, "p",
        "pod a/p"));
  }
}

}  // namespace
}  // namespace shoal::kube
