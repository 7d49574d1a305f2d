// Dresses the minimal objects Shoal's snapshot writer prints as the API
// server returns them (see realistic_snapshot.cc), and writes a whole
// cache as such a dump, one object at a time.
#ifndef SHOAL_TOOLS_BENCH_REALISTIC_OBJECTS_H_
#define SHOAL_TOOLS_BENCH_REALISTIC_OBJECTS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "scheduler/cache/cache.h"

namespace shoal::bench {

// Adds what a real Pod or Node carries and Shoal does not need; `n`
// makes names and uids differ. Fields already there are left alone.
void DressPod(nlohmann::json& pod, uint64_t n);
void DressNode(nlohmann::json& node, uint64_t n);

// Writes the cache as a `kind: List` JSON dump with dressed pods and
// nodes; returns the bytes written.
absl::StatusOr<uint64_t> WriteRealisticSnapshot(const cache::Cache& cache,
                                                const std::string& path);

}  // namespace shoal::bench

#endif  // SHOAL_TOOLS_BENCH_REALISTIC_OBJECTS_H_
