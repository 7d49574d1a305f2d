// The fields of an outside object's spec that change where or whether its
// pods may run, kind by kind, each marked with what Shoal does with it.
// Each decoder keeps its kind's list beside itself (pod_decoder.cc,
// pod_group_decoder.cc, queue_decoder.cc) and checks every object against
// it, so that no field is dropped without a word:
//  * a listed field Shoal does not implement makes the object's pods wait,
//    with a message naming the field (for a Queue, which has no pods of
//    its own: a warning and an Event on the Queue);
//  * a field the list does not name at all (a newer API, a typo) is a
//    warning, said once per kind.
#ifndef SHOAL_SCHEDULER_KUBE_DECODE_SCHEDULING_FIELDS_H_
#define SHOAL_SCHEDULER_KUBE_DECODE_SCHEDULING_FIELDS_H_

#include <initializer_list>

#include "absl/strings/string_view.h"

namespace shoal::kube {

enum class FieldUse {
  kHonoured,        // read and acted on
  kNoEffect,        // known, and it does not bear on placement
  kNotImplemented,  // bears on placement; Shoal does not implement it yet
};

struct FieldRule {
  // The member of the spec, e.g. "networkTopology". A string_view, so that
  // a lookup compares lengths before characters: every pod decoded walks
  // this list once per field of its spec.
  absl::string_view name;
  FieldUse use;
};

struct SchedulingFields {
  const char* kind;  // "pod", "podgroup", "queue": how warnings name it
  std::initializer_list<FieldRule> rules;

  const FieldRule* Find(absl::string_view name) const {
    for (const FieldRule& r : rules) {
      if (name == r.name) return &r;
    }
    return nullptr;
  }
};

}  // namespace shoal::kube

#endif  // SHOAL_SCHEDULER_KUBE_DECODE_SCHEDULING_FIELDS_H_
