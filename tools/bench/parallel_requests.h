// Runs API requests of a benchmark's setup on several connections at once.
#ifndef SHOAL_TOOLS_BENCH_PARALLEL_REQUESTS_H_
#define SHOAL_TOOLS_BENCH_PARALLEL_REQUESTS_H_

#include <functional>
#include <thread>
#include <vector>

#include "scheduler/kube/client/http_client.h"

namespace shoal::bench {

// Runs `work(client, i)` for i in [0, n) on `threads` connections.
inline void Parallel(const kube::ConnectionConfig& conn, int n, int threads,
                     const std::function<void(kube::HttpClient&, int)>& work) {
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w) {
    pool.emplace_back([&, w] {
      kube::HttpClient client(conn);
      for (int i = w; i < n; i += threads) work(client, i);
    });
  }
  for (auto& t : pool) t.join();
}

}  // namespace shoal::bench

#endif  // SHOAL_TOOLS_BENCH_PARALLEL_REQUESTS_H_
