#include "scheduler/dra/extended_resources.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/api/resource_name.h"

namespace shoal::dra {
namespace {

using Extended = api::PodInfo::ExtendedRequest;

std::string RequestName(const Extended& e) {
  return absl::StrCat("container-", e.index, "-request-", e.name_index);
}

api::DeviceRequest ExactRequest(const std::string& name,
                                const std::string& device_class,
                                int64_t count) {
  api::DeviceRequest r;
  r.name = name;
  api::DeviceChoice c;
  c.name = name;
  c.device_class = device_class;
  c.mode = api::AllocationMode::kExactCount;
  c.count = count;
  r.choices.push_back(std::move(c));
  return r;
}

// The claims schedulers made for pods' extended resources (annotated),
// by their owner pod's uid: looked up once per pod, built once per
// session.
absl::flat_hash_map<std::string, const api::ResourceClaim*> MadeForPods(
    const api::DeviceWorld& world) {
  absl::flat_hash_map<std::string, const api::ResourceClaim*> out;
  for (const auto& [key, c] : world.claims) {
    if (c.extended_resources && !c.owner_uid.empty()) out[c.owner_uid] = &c;
  }
  return out;
}

bool AsksAny(const api::PodInfo& pod,
             const absl::flat_hash_map<std::string, std::string>& classes) {
  for (const Extended& e : pod.extended_requests) {
    if (e.count > 0 && classes.contains(e.resource)) return true;
  }
  return false;
}

}  // namespace

absl::flat_hash_map<std::string, std::string> ExtendedResourceClasses(
    const api::DeviceWorld& world) {
  absl::flat_hash_map<std::string, std::string> out;
  for (const auto& [name, cls] : world.classes) {
    out[absl::StrCat(kImplicitExtendedResourcePrefix, name)] = name;
    if (cls.extended_resource_name.empty()) continue;
    auto [it, fresh] = out.try_emplace(cls.extended_resource_name, name);
    if (!fresh && name < it->second) it->second = name;
  }
  return out;
}

ExtendedClaimSpec BuildExtendedClaimSpec(
    const api::PodInfo& pod,
    const absl::flat_hash_map<std::string, std::string>& classes) {
  ExtendedClaimSpec out;
  // Resources in name order, as kube-scheduler takes them.
  std::map<std::string, std::vector<const Extended*>> by_resource;
  for (const Extended& e : pod.extended_requests) {
    if (e.count > 0 && classes.contains(e.resource))
      by_resource[e.resource].push_back(&e);
  }
  for (const auto& [resource, asks] : by_resource) {
    const std::string& cls = classes.at(resource);
    // Long-lived containers (regular ones and sidecars): a request each.
    std::vector<const Extended*> long_lived;
    for (const Extended* e : asks) {
      if (e->short_lived) continue;
      out.requests.push_back(ExactRequest(RequestName(*e), cls, e->count));
      out.mappings.push_back({e->container, resource, RequestName(*e)});
      long_lived.push_back(e);
    }
    // An init container that is no sidecar runs before the long-lived
    // containers after it start: it uses their devices first, and asks
    // only for what they lack; all such init containers run one at a
    // time, so they share the largest of those requests.
    std::vector<api::ContainerRequestMapping> short_mappings;
    std::vector<std::string> short_names;
    const Extended* largest = nullptr;
    int64_t largest_count = 0;
    for (const Extended* e : asks) {
      if (!e->short_lived) continue;
      int64_t covered = 0;
      for (const Extended* l : long_lived) {
        if (l->index < e->index || covered >= e->count) continue;
        covered += l->count;
        short_mappings.push_back({e->container, resource, RequestName(*l)});
      }
      if (covered >= e->count) continue;
      short_names.push_back(RequestName(*e));
      short_mappings.push_back({e->container, resource, RequestName(*e)});
      if (largest == nullptr || e->count - covered > largest_count) {
        largest = e;
        largest_count = e->count - covered;
      }
    }
    if (largest != nullptr) {
      const std::string name = RequestName(*largest);
      out.requests.push_back(ExactRequest(name, cls, largest_count));
      for (auto& m : short_mappings) {
        if (std::find(short_names.begin(), short_names.end(), m.request) !=
            short_names.end())
          m.request = name;
      }
    }
    out.mappings.insert(out.mappings.end(), short_mappings.begin(),
                        short_mappings.end());
  }
  std::sort(out.requests.begin(), out.requests.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::string ExtendedClaimName(const api::PodInfo& pod) {
  // kube's name generator: its alphabet (no vowels, no look-alikes), five
  // characters after a base of at most 58.
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string name = absl::StrCat(pod.name, "-extended-resources-");
  if (name.size() > 58) name.resize(58);
  // FNV-1a of the uid: the same in every process (absl's hashes are
  // seeded per process), so replays and restarts name it alike.
  uint64_t h = 14695981039346656037ull;
  for (char ch : absl::StrCat(pod.ns, "/", pod.name, "/", pod.uid)) {
    h ^= static_cast<unsigned char>(ch);
    h *= 1099511628211ull;
  }
  for (int i = 0; i < 5; ++i) {
    name.push_back(kAlphabet[h % (sizeof(kAlphabet) - 1)]);
    h /= sizeof(kAlphabet) - 1;
  }
  return name;
}

void AddExtendedResourceClaims(api::ClusterInfo& cluster) {
  if (cluster.devices == nullptr || cluster.devices->classes.empty()) return;
  absl::flat_hash_map<std::string, std::string> classes;
  std::optional<absl::flat_hash_map<std::string, const api::ResourceClaim*>>
      made_for;
  std::shared_ptr<api::DeviceWorld> world;  // the copy, once needed
  for (api::TaskInfo& task : cluster.tasks) {
    if (task.status != api::TaskStatus::kPending ||
        task.pod->extended_requests.empty()) {
      continue;
    }
    if (classes.empty()) classes = ExtendedResourceClasses(*cluster.devices);
    const api::PodInfo& pod = *task.pod;
    if (!AsksAny(pod, classes)) continue;
    auto copy = std::make_shared<api::PodInfo>(pod);
    api::PodClaim pc;
    pc.name = "extended-resources";
    pc.extended = true;
    if (!made_for.has_value()) made_for = MadeForPods(*cluster.devices);
    auto found = made_for->find(pod.uid);
    const api::ResourceClaim* made =
        found != made_for->end() && found->second->ns == pod.ns ? found->second
                                                                : nullptr;
    if (made != nullptr) {
      pc.claim = made->name;
      // Made, but the pod's status does not name it yet (its bind failed
      // after the claim was created): the bind writes it.
      if (pod.extended_claim != made->name) {
        copy->extended_mappings = BuildExtendedClaimSpec(pod, classes).mappings;
      }
    } else {
      if (world == nullptr)
        world = std::make_shared<api::DeviceWorld>(*cluster.devices);
      api::ResourceClaim c;
      c.ns = pod.ns;
      c.name = ExtendedClaimName(pod);
      c.owner_uid = pod.uid;
      c.owner_name = pod.name;
      c.extended_resources = true;
      c.to_create = true;
      ExtendedClaimSpec spec = BuildExtendedClaimSpec(pod, classes);
      c.requests = std::move(spec.requests);
      copy->extended_mappings = std::move(spec.mappings);
      pc.claim = c.name;
      world->claims[c.Key()] = std::move(c);
    }
    for (const Extended& e : pod.extended_requests) {
      auto id = api::InternResourceName(e.resource);
      if (e.count <= 0 || !classes.contains(e.resource) || !id.ok()) continue;
      if (std::find(pc.serves.begin(), pc.serves.end(), *id) == pc.serves.end())
        pc.serves.push_back(*id);
    }
    copy->resource_claims.push_back(std::move(pc));
    task.pod = std::move(copy);
  }
  if (world != nullptr) cluster.devices = std::move(world);
}

std::vector<api::ResourceId> ServeExtendedResourcesOnNodes(
    Inventory& inventory, api::ClusterInfo& cluster) {
  std::vector<api::ResourceId> served;
  if (cluster.devices == nullptr || cluster.devices->classes.empty())
    return served;
  absl::flat_hash_map<std::string, std::string> classes;
  // The resources some task asks that a class serves, with that class.
  std::vector<std::pair<api::ResourceId, const api::DeviceClass*>> asked;
  absl::flat_hash_set<std::string> seen;
  for (const api::TaskInfo& task : cluster.tasks) {
    for (const Extended& e : task.pod->extended_requests) {
      if (e.count <= 0 || seen.contains(e.resource)) continue;
      if (classes.empty()) classes = ExtendedResourceClasses(*cluster.devices);
      auto cls = classes.find(e.resource);
      if (cls == classes.end()) continue;
      seen.insert(e.resource);
      auto id = api::InternResourceName(e.resource);
      if (!id.ok()) continue;
      asked.emplace_back(*id, &cluster.devices->classes.at(cls->second));
    }
  }
  // Devices counted on the node being looked at (a device listed by two
  // generations of its pool counts once).
  absl::flat_hash_set<DeviceId> counted;
  for (const auto& [id, cls] : asked) {
    bool any = false;
    for (api::NodeInfo& node : cluster.nodes) {
      if (node.allocatable().Get(id) > 0) continue;  // the device plugin's
      int64_t devices = 0;
      counted.clear();
      for (const Reach& r : inventory.Reachable(node.index())) {
        if (!r.usable || !counted.insert(inventory.Same(r.id).front()).second)
          continue;
        bool matches = true;
        for (const std::string& expr : cls->selectors) {
          auto m = inventory.Matches(inventory.SelectorFor(expr), r.id);
          matches = m.ok() && *m;
          if (!matches) break;
        }
        if (matches) ++devices;
      }
      node.ServeThroughDevices(id, devices);
      cluster.total_allocatable.Set(
          id, cluster.total_allocatable.Get(id) + devices);
      any = true;
    }
    if (any) served.push_back(id);
  }
  return served;
}

}  // namespace shoal::dra
