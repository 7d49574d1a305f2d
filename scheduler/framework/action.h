// An action: one way of searching for placements (allocate, backfill, ...).
#ifndef SHOAL_SCHEDULER_FRAMEWORK_ACTION_H_
#define SHOAL_SCHEDULER_FRAMEWORK_ACTION_H_

namespace shoal::framework {

class Session;

class Action {
 public:
  virtual ~Action() = default;
  virtual void Execute(Session& session) = 0;
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_ACTION_H_
