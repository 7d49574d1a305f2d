#include "scheduler/kube/write/request_pool.h"

namespace shoal::kube {

RequestPool::RequestPool(const ConnectionConfig& connection, int workers,
                         WriteBudget* budget, WriteBudget::Lane lane)
    : budget_(budget), lane_(lane) {
  for (int i = 0; i < workers; ++i) {
    clients_.push_back(std::make_unique<HttpClient>(connection));
    HttpClient* client = clients_.back().get();
    threads_.emplace_back([this, client] { Loop(*client); });
  }
}

RequestPool::~RequestPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    stop_flag_ = true;
    Pending(-static_cast<int>(queue_.size()));
    queue_.clear();
  }
  for (auto& t : threads_) t.join();
}

void RequestPool::Submit(Work work) {
  absl::MutexLock lock(&mu_);
  Pending(1);
  queue_.push_back(std::move(work));
}

void RequestPool::Wait() {
  absl::MutexLock lock(&mu_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return queue_.empty() && running_ == 0;
  };
  mu_.Await(absl::Condition(&idle));
}

size_t RequestPool::Abandon() {
  absl::MutexLock lock(&mu_);
  size_t dropped = queue_.size();
  Pending(-static_cast<int>(dropped));
  queue_.clear();
  return dropped;
}

size_t RequestPool::Outstanding() {
  absl::MutexLock lock(&mu_);
  return queue_.size() + running_;
}

void RequestPool::Pending(int delta) {
  if (budget_ != nullptr && lane_ == WriteBudget::Lane::kPriority && delta != 0)
    budget_->PriorityPending(delta);
}

void RequestPool::Loop(HttpClient& client) {
  while (true) {
    Work work;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping
      work = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    // A cancelled wait (stopping) still runs nothing: the work is dropped.
    if (budget_ == nullptr ||
        budget_->Acquire(lane_, [this] { return stop_flag_.load(); })) {
      work(client);
    }
    absl::MutexLock lock(&mu_);
    Pending(-1);
    --running_;
  }
}

}  // namespace shoal::kube
