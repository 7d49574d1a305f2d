#include "scheduler/api/resource_name.h"

#include <array>
#include <atomic>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace shoal::api {
namespace {

struct Entry {
  std::string name;
  std::string insufficient;
};

// Entries are written once, before `count` is published with release
// ordering, and never moved, so readers need no lock.
struct Table {
  absl::Mutex mu;
  std::array<Entry, kMaxResourceNames> entries;
  std::atomic<int> count{0};

  Table() {
    for (const char* name : {"cpu", "memory", "pods", "ephemeral-storage"}) {
      AddLocked(name);
    }
  }

  ResourceId AddLocked(absl::string_view name) {
    int id = count.load(std::memory_order_relaxed);
    entries[id].name = std::string(name);
    entries[id].insufficient = name == "pods"
                                   ? std::string("Too many pods")
                                   : absl::StrCat("Insufficient ", name);
    count.store(id + 1, std::memory_order_release);
    return static_cast<ResourceId>(id);
  }
};

Table& GetTable() {
  static Table* table = new Table();
  return *table;
}

}  // namespace

absl::StatusOr<ResourceId> InternResourceName(absl::string_view name) {
  Table& t = GetTable();
  absl::MutexLock lock(&t.mu);
  int n = t.count.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i) {
    if (t.entries[i].name == name) return static_cast<ResourceId>(i);
  }
  if (n == kMaxResourceNames) {
    return absl::ResourceExhaustedError(
        absl::StrCat("resource \"", name, "\": more than ", kMaxResourceNames,
                     " distinct resource names in one cluster"));
  }
  return t.AddLocked(name);
}

bool IsNodeResourceName(absl::string_view name) {
  if (name == "cpu" || name == "memory" || name == "pods" ||
      name == "ephemeral-storage") {
    return true;
  }
  if (absl::StartsWith(name, "hugepages-") ||
      absl::StartsWith(name, "attachable-volumes-")) {
    return true;
  }
  // requests.nvidia.com/gpu and count/pods have a slash too.
  if (absl::StartsWith(name, "requests.") ||
      absl::StartsWith(name, "limits.") || absl::StartsWith(name, "count/")) {
    return false;
  }
  size_t slash = name.find('/');
  return slash != absl::string_view::npos && slash > 0 &&
         slash + 1 < name.size();
}

absl::string_view ResourceName(ResourceId id) {
  return GetTable().entries[id].name;
}

absl::string_view InsufficientReason(ResourceId id) {
  return GetTable().entries[id].insufficient;
}

int ResourceNameCount() {
  return GetTable().count.load(std::memory_order_acquire);
}

}  // namespace shoal::api
