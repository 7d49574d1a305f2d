// The live cluster's DecisionSink: binds and evictions go to the API
// server many at a time (one connection per worker of a RequestPool), and
// each success is told as an Event (Scheduled, Preempted, Evict).
#ifndef SHOAL_SCHEDULER_KUBE_WRITE_API_DECISION_SINK_H_
#define SHOAL_SCHEDULER_KUBE_WRITE_API_DECISION_SINK_H_

#include <memory>
#include <string>

#include "scheduler/cache/sinks.h"
#include "scheduler/kube/write/event_recorder.h"
#include "scheduler/kube/write/request_pool.h"

namespace shoal::kube {

class ApiDecisionSink : public cache::DecisionSink {
 public:
  ApiDecisionSink(RequestPool& pool, EventRecorder& events)
      : pool_(pool), events_(events) {}

  void Bind(std::shared_ptr<const api::PodInfo> pod, const std::string& node,
            const std::vector<api::ClaimWrite>& claims,
            cache::Done done) override;
  void Reserve(std::shared_ptr<const api::PodInfo> pod,
               const std::vector<api::ClaimWrite>& claims,
               cache::Done done) override;
  void Evict(std::shared_ptr<const api::PodInfo> pod, const std::string& reason,
             const std::string& preemptor, cache::Done done) override;
  void Deallocate(const api::ResourceClaim& after, const std::string& reason,
                  const std::vector<std::string>& pods,
                  cache::Done done) override;
  void Wait() override { pool_.Wait(); }

 private:
  RequestPool& pool_;
  EventRecorder& events_;
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_WRITE_API_DECISION_SINK_H_
