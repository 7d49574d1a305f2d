#include "scheduler/api/queue_tree.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/api/quantity.h"

namespace shoal::api {
namespace {

std::string Quoted(const std::string& name) {
  return absl::StrCat("\"", name, "\"");
}

// Children's amounts added up; a resource a child does not name (kUnlimited
// in its deserved share) adds nothing, as the child states no claim to it.
Resource SumOf(const ClusterInfo& c, const std::vector<int32_t>& children,
               const Resource& (*field)(const QueueInfo&)) {
  Resource sum;
  for (int32_t child : children) {
    const Resource& r = field(c.queues[child]);
    for (size_t id = 0; id < r.size(); ++id) {
      auto rid = static_cast<ResourceId>(id);
      if (r.Get(rid) >= kUnlimited) continue;
      sum.Set(rid, sum.Get(rid) + r.Get(rid));
    }
  }
  return sum;
}

// "cpu 10 (more than 8), memory ..." where `sum` exceeds a limit the
// parent states (a resource it names: above zero, below kUnlimited).
std::string Excess(const Resource& sum, const Resource& stated) {
  std::vector<std::string> over;
  for (size_t id = 0; id < sum.size(); ++id) {
    auto rid = static_cast<ResourceId>(id);
    int64_t limit = stated.Get(rid);
    if (limit <= 0 || limit >= kUnlimited || sum.Get(rid) <= limit) continue;
    QuantityScale scale = ScaleOf(rid);
    over.push_back(absl::StrCat(
        ResourceName(rid), " ", FormatQuantity(sum.Get(rid), scale),
        " (more than ", FormatQuantity(limit, scale), ")"));
  }
  return absl::StrJoin(over, ", ");
}

const Resource& GuaranteeOf(const QueueInfo& q) { return q.guarantee; }

const Resource kNoDeserved;  // a queue without spec.deserved adds nothing
const Resource& DeservedOf(const QueueInfo& q) {
  return q.deserved.has_value() ? *q.deserved : kNoDeserved;
}

std::string ChildNames(const ClusterInfo& c,
                       const std::vector<int32_t>& children) {
  std::vector<std::string> names;
  for (int32_t child : children) names.push_back(c.queues[child].name);
  return absl::StrJoin(names, ", ");
}

// A parent's children may not promise more than the parent itself states.
std::string SumsError(const ClusterInfo& c, const QueueInfo& parent) {
  if (parent.children.empty()) return "";
  std::string over =
      Excess(SumOf(c, parent.children, GuaranteeOf), parent.guarantee);
  if (!over.empty()) {
    return absl::StrCat(
        "the children of queue ", Quoted(parent.name), " (",
        ChildNames(c, parent.children),
        ") guarantee more than it does (spec.guarantee): ", over);
  }
  if (parent.deserved.has_value()) {
    over = Excess(SumOf(c, parent.children, DeservedOf), *parent.deserved);
    if (!over.empty()) {
      return absl::StrCat(
          "the children of queue ", Quoted(parent.name), " (",
          ChildNames(c, parent.children),
          ") deserve more than it does (spec.deserved): ", over);
    }
  }
  return "";
}

}  // namespace

void LinkQueueTree(ClusterInfo& c) {
  const int32_t root = c.FindQueue(kRootQueue);
  const int32_t n = static_cast<int32_t>(c.queues.size());
  for (QueueInfo& q : c.queues) {
    q.parent_index = kNone;
    q.children.clear();
    q.depth = 0;
    q.tree_error.clear();
  }
  // Parents by name; a queue without one sits under the root.
  for (QueueInfo& q : c.queues) {
    if (q.index == root) {
      if (!q.parent.empty()) {
        q.tree_error = absl::StrCat(
            "queue ", Quoted(kRootQueue),
            " is the top of the queue tree and may not name a parent (it "
            "names ",
            Quoted(q.parent), ")");
      }
      continue;
    }
    if (q.parent.empty()) {
      q.parent_index = root;
      continue;
    }
    q.parent_index = c.FindQueue(q.parent);
    if (q.parent_index == kNone) {
      q.tree_error = absl::StrCat("queue ", Quoted(q.name), " names parent ",
                                  Quoted(q.parent),
                                  " (spec.parent), which does not exist");
    }
  }
  // Cycles: walk up from each queue; a walk longer than the number of
  // queues has gone round. Every queue on the cycle is named.
  for (QueueInfo& q : c.queues) {
    int32_t at = q.index;
    int32_t steps = 0;
    while (at != kNone && steps <= n) {
      at = c.queues[at].parent_index;
      ++steps;
    }
    if (at == kNone) continue;
    std::vector<int32_t> ring = {at};
    for (int32_t next = c.queues[at].parent_index; next != at;
         next = c.queues[next].parent_index) {
      ring.push_back(next);
    }
    std::sort(ring.begin(), ring.end(), [&](int32_t a, int32_t b) {
      return c.queues[a].name < c.queues[b].name;
    });
    std::vector<std::string> names;
    for (int32_t r : ring) names.push_back(c.queues[r].name);
    std::string why = absl::StrCat("queues ", absl::StrJoin(names, ", "),
                                   " name each other as parents "
                                   "(spec.parent): a cycle, not a tree");
    for (int32_t r : ring) {
      c.queues[r].tree_error = why;
      c.queues[r].parent_index = kNone;  // cut, so every walk ends
    }
  }
  for (QueueInfo& q : c.queues) {
    if (q.parent_index != kNone)
      c.queues[q.parent_index].children.push_back(q.index);
  }
  for (QueueInfo& q : c.queues) {
    if (q.tree_error.empty()) q.tree_error = SumsError(c, q);
  }
  // Depth, and a fault anywhere above a queue is its fault too.
  for (QueueInfo& q : c.queues) {
    for (int32_t at = q.parent_index; at != kNone;
         at = c.queues[at].parent_index) {
      ++q.depth;
      if (q.tree_error.empty() && !c.queues[at].tree_error.empty()) {
        q.tree_error = c.queues[at].tree_error;
      }
    }
  }
}

bool InSubtree(const ClusterInfo& c, int32_t q, int32_t ancestor) {
  for (int32_t at = q; at != kNone; at = c.queues[at].parent_index) {
    if (at == ancestor) return true;
  }
  return false;
}

std::string QueuePlacementError(const ClusterInfo& c, int32_t q) {
  const QueueInfo& queue = c.queues[q];
  if (!queue.tree_error.empty()) return queue.tree_error;
  if (!queue.children.empty()) {
    return absl::StrCat("queue ", Quoted(queue.name), " has child queues (",
                        ChildNames(c, queue.children),
                        "); only a leaf queue holds jobs");
  }
  return "";
}

}  // namespace shoal::api
