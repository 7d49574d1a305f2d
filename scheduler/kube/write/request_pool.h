// A fixed set of workers, each with its own HTTP client (so its own
// kept-alive connection), that run API requests concurrently: binds of a
// cycle go out many at a time instead of one after another, with at most
// `workers` in flight against the API server. With a WriteBudget, each
// piece of work waits for a token of its lane before it runs (one piece
// of work is one write, give or take a read or a retry).
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_REQUEST_POOL_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_REQUEST_POOL_H_

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "scheduler/kube/client/http_client.h"
#include "scheduler/kube/write/write_budget.h"

namespace shoal::kube {

class RequestPool {
 public:
  using Work = std::function<void(HttpClient&)>;

  RequestPool(const ConnectionConfig& connection, int workers,
              WriteBudget* budget = nullptr,
              WriteBudget::Lane lane = WriteBudget::Lane::kPriority);
  // Finishes the requests already started, drops the queued ones.
  ~RequestPool();
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  void Submit(Work work);
  // Blocks until everything submitted so far has run.
  void Wait();
  // Drops queued work that has not started; returns how much.
  size_t Abandon();
  // Work submitted and not yet finished.
  size_t Outstanding();

 private:
  void Loop(HttpClient& client);
  // Tells the budget how much priority work is pending.
  void Pending(int delta);

  WriteBudget* const budget_;
  const WriteBudget::Lane lane_;
  std::atomic<bool> stop_flag_{false};  // stopping_, for the budget's wait

  absl::Mutex mu_;
  std::deque<Work> queue_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::unique_ptr<HttpClient>> clients_;
  std::vector<std::thread> threads_;
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_REQUEST_POOL_H_
