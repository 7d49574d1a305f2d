// Tentative operations on a session, all-or-nothing: a gang's placements
// are made here and either committed together (becoming bind and evict
// decisions) or discarded, leaving the session exactly as it was.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_STATEMENT_H_
#define SHOAL_SCHEDULER_FRAMEWORK_STATEMENT_H_

#include <string>
#include <vector>

#include "scheduler/framework/session.h"

namespace shoal::framework {

class Statement {
 public:
  explicit Statement(Session& session) : session_(session) {}
  // An unfinished statement is discarded: nothing leaks by accident.
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Allocate(api::TaskIndex task, api::NodeIndex node);
  // Reserves room that victims are still releasing.
  void Pipeline(api::TaskIndex task, api::NodeIndex node);
  void Evict(api::TaskIndex task, std::string reason, std::string preemptor);
  // Evicts a task whose controller makes a new pod in its place, and
  // holds room on `to` for that pod (consolidate): the task's own room is
  // released as an eviction's is.
  void Move(api::TaskIndex task, api::NodeIndex to, std::string reason,
            std::string preemptor);

  // Allocations become binds, evictions become evict decisions.
  void Commit();
  // Undoes every operation, newest first.
  void Discard();
  // Where the statement stands now, and undoing back to such a point: a
  // tentative step within the statement (evictions found for one task
  // that its queue's limits then refuse).
  size_t Mark() const { return ops_.size(); }
  void DiscardSince(size_t mark);
  // Keeps the operations in the session (so later jobs of this cycle see
  // the room as taken) but decides nothing: a pipelined gang waits.
  void Hold();

  bool empty() const { return ops_.empty(); }

 private:
  enum class Kind { kAllocate, kPipeline, kEvict, kMove };
  struct Op {
    Kind kind;
    api::TaskIndex task;
    api::TaskStatus previous_status;
    api::NodeIndex previous_node;
    std::string reason;
    std::string preemptor;
    api::NodeIndex moved_to = api::kNone;  // kMove
    // Session::state() before and after the op: undoing a run of ops
    // that nothing else interleaved returns the session to the name it
    // had before them.
    uint64_t state_before;
    uint64_t state_after = 0;
  };
  Op Record(Kind kind, api::TaskIndex task);
  void Moved() { ops_.back().state_after = session_.state(); }

  Session& session_;
  std::vector<Op> ops_;
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_STATEMENT_H_
