// A PriorityClass: the value pods and PodGroups of that class get.
#ifndef SHOAL_SCHEDULER_API_PRIORITY_CLASS_H_
#define SHOAL_SCHEDULER_API_PRIORITY_CLASS_H_

#include <cstdint>
#include <string>

namespace shoal::api {

struct PriorityClass {
  std::string name;
  int32_t value = 0;
  bool global_default = false;
  // preemptionPolicy: Never. The API server copies it into pods it admits;
  // a pod written without it (a hand-made snapshot) takes it from here.
  bool preempt_never = false;
};

}  // namespace shoal::api

#endif  // SHOAL_SCHEDULER_API_PRIORITY_CLASS_H_
