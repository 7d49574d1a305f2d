// A policy plugin: registers callbacks on each session it is opened on.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_PLUGIN_H_
#define SHOAL_SCHEDULER_FRAMEWORK_PLUGIN_H_

namespace shoal::framework {

class Session;

class Plugin {
 public:
  virtual ~Plugin() = default;
  // Register callbacks with Session::Register and read the snapshot.
  virtual void OnSessionOpen(Session& session) = 0;
  // Write what users see (messages, conditions) before the session ends.
  virtual void OnSessionClose(Session& session) {}
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_PLUGIN_H_
