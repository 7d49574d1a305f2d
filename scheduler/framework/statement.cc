#include "scheduler/framework/statement.h"

namespace shoal::framework {

Statement::~Statement() { Discard(); }

Statement::Op Statement::Record(Kind kind, api::TaskIndex task) {
  const api::TaskInfo& t = session_.task(task);
  return Op{kind, task, t.status, t.node, "", ""};
}

void Statement::Allocate(api::TaskIndex task, api::NodeIndex node) {
  ops_.push_back(Record(Kind::kAllocate, task));
  session_.MoveTask(task, api::TaskStatus::kAllocated, node);
}

void Statement::Pipeline(api::TaskIndex task, api::NodeIndex node) {
  ops_.push_back(Record(Kind::kPipeline, task));
  session_.MoveTask(task, api::TaskStatus::kPipelined, node);
}

void Statement::Evict(api::TaskIndex task, std::string reason,
                      std::string preemptor) {
  Op op = Record(Kind::kEvict, task);
  op.reason = std::move(reason);
  op.preemptor = std::move(preemptor);
  ops_.push_back(std::move(op));
  session_.MoveTask(task, api::TaskStatus::kReleasing,
                    session_.task(task).node);
}

void Statement::Commit() {
  for (const Op& op : ops_) {
    switch (op.kind) {
      case Kind::kAllocate: {
        api::NodeIndex node = session_.task(op.task).node;
        session_.MoveTask(op.task, api::TaskStatus::kBinding, node);
        session_.binds_.push_back({op.task, node});
        break;
      }
      case Kind::kEvict:
        session_.evictions_.push_back({op.task, op.reason, op.preemptor});
        break;
      case Kind::kPipeline:
        break;  // placed for real once the victims are gone
    }
  }
  ops_.clear();
}

void Statement::Discard() {
  if (!ops_.empty()) session_.CountDiscard();
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    session_.MoveTask(it->task, it->previous_status, it->previous_node);
  }
  ops_.clear();
}

void Statement::DiscardSince(size_t mark) {
  if (ops_.size() > mark) session_.CountDiscard();
  while (ops_.size() > mark) {
    const Op& op = ops_.back();
    session_.MoveTask(op.task, op.previous_status, op.previous_node);
    ops_.pop_back();
  }
}

void Statement::Hold() { ops_.clear(); }

}  // namespace shoal::framework
