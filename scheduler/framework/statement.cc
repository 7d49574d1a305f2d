#include "scheduler/framework/statement.h"

namespace shoal::framework {

Statement::~Statement() { Discard(); }

Statement::Op Statement::Record(Kind kind, api::TaskIndex task) {
  const api::TaskInfo& t = session_.task(task);
  return Op{kind, task, t.status, t.node, "", "", api::kNone, session_.state()};
}

void Statement::Allocate(api::TaskIndex task, api::NodeIndex node) {
  ops_.push_back(Record(Kind::kAllocate, task));
  session_.MoveTask(task, api::TaskStatus::kAllocated, node);
  Moved();
}

void Statement::Pipeline(api::TaskIndex task, api::NodeIndex node) {
  ops_.push_back(Record(Kind::kPipeline, task));
  session_.MoveTask(task, api::TaskStatus::kPipelined, node);
  Moved();
}

void Statement::Evict(api::TaskIndex task, std::string reason,
                      std::string preemptor) {
  Op op = Record(Kind::kEvict, task);
  op.reason = std::move(reason);
  op.preemptor = std::move(preemptor);
  ops_.push_back(std::move(op));
  session_.MoveTask(task, api::TaskStatus::kReleasing,
                    session_.task(task).node);
  Moved();
}

void Statement::Move(api::TaskIndex task, api::NodeIndex to, std::string reason,
                     std::string preemptor) {
  Op op = Record(Kind::kMove, task);
  op.reason = std::move(reason);
  op.preemptor = std::move(preemptor);
  op.moved_to = to;
  ops_.push_back(std::move(op));
  session_.MoveTask(task, api::TaskStatus::kReleasing,
                    session_.task(task).node);
  session_.HoldForReplacement(task, to, +1);
  Moved();
}

void Statement::Commit() {
  const size_t first_bind = session_.binds_.size();
  for (const Op& op : ops_) {
    switch (op.kind) {
      case Kind::kAllocate: {
        api::NodeIndex node = session_.task(op.task).node;
        session_.MoveTask(op.task, api::TaskStatus::kBinding, node);
        session_.binds_.push_back(
            {op.task, node,
             session_.devices_->WritesFor(*session_.task(op.task).pod)});
        break;
      }
      case Kind::kEvict:
      case Kind::kMove:
        session_.evictions_.push_back(
            {op.task, op.reason, op.preemptor, op.moved_to});
        break;
      case Kind::kPipeline:
        break;  // placed for real once the victims are gone
    }
  }
  // A gang whose new devices must report binding conditions (KEP-5007)
  // reserves them now and binds whole once they have: none of its pods
  // binds in this cycle.
  bool waits = false;
  for (size_t i = first_bind; i < session_.binds_.size() && !waits; ++i) {
    for (const api::ClaimWrite& w : session_.binds_[i].claims)
      waits |= w.newly_allocated && w.allocation.WaitsForDevices();
  }
  if (waits) {
    for (size_t i = first_bind; i < session_.binds_.size(); ++i)
      session_.binds_[i].reserve_only = true;
  }
  ops_.clear();
}

void Statement::Discard() { DiscardSince(0); }

void Statement::DiscardSince(size_t mark) {
  if (ops_.size() <= mark) return;
  session_.CountDiscard();
  // The ops undone were the session's last moves, one after another: the
  // session is then as it was before the first, and gets that name back.
  bool last_moves = session_.state() == ops_.back().state_after;
  for (size_t i = mark + 1; i < ops_.size(); ++i) {
    last_moves = last_moves && ops_[i].state_before == ops_[i - 1].state_after;
  }
  const uint64_t before = ops_[mark].state_before;
  while (ops_.size() > mark) {
    const Op& op = ops_.back();
    if (op.kind == Kind::kMove)
      session_.HoldForReplacement(op.task, op.moved_to, -1);
    session_.MoveTask(op.task, op.previous_status, op.previous_node);
    ops_.pop_back();
  }
  if (last_moves) session_.state_ = before;
}

void Statement::Hold() { ops_.clear(); }

}  // namespace shoal::framework
