// Where in the network a job's gang may go (PodGroup spec.networkTopology,
// api/network_topology.h): which domains to try, best first, or why no
// domain can hold it.
//
// hard: every pod of the gang, the ones already placed included, inside
// one domain of tier <= the limit; otherwise the gang waits whole.
// soft: the lowest tier whose one domain holds the gang; failing that,
// anywhere. As in Volcano, the whole cluster is a domain too, one tier
// above the highest (tier 1 when nothing describes the network): a limit
// that reaches it allows anywhere once no narrower domain holds the gang.
//
// Among domains of one tier the fullest that still holds the gang comes
// first (bin packing over domains: the one left with the least room for
// more such pods), so whole racks stay free for the next large job; a
// domain with room for all the gang's pods, once the jobs already in it
// have grown (GrowthEarmarks), comes before one that holds only its
// minimum.
// Whether a domain can hold the gang is first judged by counting how many
// of its pods each node's free room fits (an upper bound: the smallest
// request of each resource); only domains that pass are tried.
#ifndef SHOAL_SCHEDULER_ACTIONS_NETWORK_DOMAINS_H_
#define SHOAL_SCHEDULER_ACTIONS_NETWORK_DOMAINS_H_

#include <string>
#include <vector>

#include "scheduler/framework/session.h"

namespace shoal::actions {

struct DomainPlan {
  // The job has a network constraint in force: place it domain by domain.
  bool constrained = false;
  bool hard = false;
  std::vector<int32_t> domains;  // to try, in order
  // After them, anywhere in the cluster (its tier is within the limit).
  bool anywhere = false;
  // hard, and no domain can hold the gang: why, in the job's words.
  std::string refusal;
  // What the search looked at (for explain): the widest tier allowed, the
  // pods the gang still needs, and each domain within the limit with the
  // room its nodes have for them.
  int32_t limit = 0;
  int64_t need = 0;
  struct Room {
    int32_t domain;
    int64_t pods;       // how many of the gang's pods its free room takes
    bool holds_placed;  // every node the job already runs on is inside
  };
  std::vector<Room> rooms;
};

// What the jobs that run in a domain under a hard constraint will want
// there as they grow: the requests of their pending pods, counted in
// their domain and in each domain around it. A job choosing where to
// start asks for room for all its pods beyond these. Every job takes its
// minimum before any grows, so without them the minimums would fill the
// first domains that hold them (tree after tree in one rack), leaving
// each job no room to grow where it must, while other domains stand
// empty.
class GrowthEarmarks {
 public:
  // For the jobs that run now.
  explicit GrowthEarmarks(const framework::Session& s);
  // For `job`, which has just got its minimum.
  void Add(const framework::Session& s, const api::JobInfo& job);
  // By domain index; empty while nothing is earmarked.
  const std::vector<api::Resource>& by_domain() const { return by_domain_; }

 private:
  std::vector<api::Resource> by_domain_;
};

// `tasks[first..]`: the job's pending tasks still to place, in the order
// allocate tries them. With `earmarks`, a domain's room for all of them
// is what is left once the jobs in it have grown.
DomainPlan PlanDomains(framework::Session& s, const api::JobInfo& job,
                       const std::vector<api::TaskIndex>& tasks, size_t first,
                       const GrowthEarmarks* earmarks = nullptr);

// Why a job under a hard constraint cannot start now: no domain within
// its limit has room for its pending pods (enqueue does not admit it, so
// it holds no room others could use). Empty when it may, when it has no
// pods yet, when it has no hard constraint, or when the policy evicts
// (preempt, reclaim may make room in one domain).
std::string NetworkRefusal(framework::Session& s, const api::JobInfo& job);

// The sub-group `group` of `job` (api/sub_groups.h), under its policy's
// networkTopology, inside domain `within` (the job's; kNone: the whole
// cluster): which domains to try for its pending pods `tasks` (in the
// order allocate tries them). A sub-group whose policy states no
// constraint, or whose limit reaches `within`, may go anywhere inside it.
// A domain with room for all its pending pods comes first, so that the
// pods beyond its subGroupSize can follow it there.
DomainPlan PlanSubGroupDomains(framework::Session& s, const api::JobInfo& job,
                               int32_t group,
                               const std::vector<api::TaskIndex>& tasks,
                               int32_t within);

// What GrowthDomainOf answers when no allowed domain holds a job's pods.
inline constexpr int32_t kNoDomain = -2;

// The domain GrowthDomain stands for: its index, kNone (no restriction)
// or kNoDomain (an empty set).
int32_t GrowthDomainOf(const framework::Session& s, const api::JobInfo& job);

// For a job that runs under a hard constraint and grows: the widest domain
// within its limit that holds every pod it has placed (growth stays
// inside, as Volcano's does), or nullptr when its limit reaches the whole
// cluster or it has no pod on a known node yet (a domain is then chosen as
// for a gang that starts). A job whose placed pods no allowed domain holds
// gets an empty set: it does not grow.
const std::vector<api::NodeIndex>* GrowthDomain(const framework::Session& s,
                                                const api::JobInfo& job);

// "mode hard, highestTierAllowed 1": the constraint as the PodGroup says it.
std::string DescribeConstraint(const api::NetworkConstraint& c);
// Where the job's own constraint is written: "spec.networkTopology" or,
// for a Kubernetes group, "spec.schedulingConstraints.topology".
std::string NetworkField(const api::JobInfo& job);

}  // namespace shoal::actions

#endif  // SHOAL_SCHEDULER_ACTIONS_NETWORK_DOMAINS_H_
