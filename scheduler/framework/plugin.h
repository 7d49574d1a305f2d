// A policy plugin and what it keeps for one session.
//
// A Plugin lives as long as the Policy (it is built once from the config
// and opened on every cycle), so it holds only its configuration: the
// arguments its factory parsed. Everything a plugin computes for a cycle
// (shares, rooms, targets) lives in the PluginSession it returns from
// OnSessionOpen, which the Session owns and destroys when it ends. State
// for a session therefore has exactly one owner, two sessions opened on
// one Policy (the cycle, an explain) never share it, and nothing one
// cycle computed leaks into the next.
#ifndef SHOAL_SCHEDULER_FRAMEWORK_PLUGIN_H_
#define SHOAL_SCHEDULER_FRAMEWORK_PLUGIN_H_

#include <memory>

namespace shoal::framework {

class Session;

// What a plugin keeps for one session: made when the session opens,
// destroyed with it. The callbacks the plugin registered point into it.
class PluginSession {
 public:
  virtual ~PluginSession() = default;
  // Write what users see (messages, conditions, targets) before the
  // session ends. Called by Session::Close only.
  virtual void OnSessionClose(Session& session) {}
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  // Registers callbacks with Session::Register and reads the snapshot.
  // State the callbacks share lives in the returned object, which the
  // session owns until it is destroyed (null when nothing is shared and
  // nothing is written at close). Callbacks capture that object or
  // values, never the Plugin's members: the Plugin outlives the session.
  virtual std::unique_ptr<PluginSession> OnSessionOpen(Session& session) = 0;
};

}  // namespace shoal::framework

#endif  // SHOAL_SCHEDULER_FRAMEWORK_PLUGIN_H_
