// Fuzzes Shoal's CEL (scheduler/cel): the input is a selector expression,
// compiled and, when it compiles, evaluated against a fixed DRA device.
// Neither step may crash, hang or leak, and a refusal must say something.
// (CEL messages carry no "<where>: " prefix: the caller names the
// DeviceClass or claim, so fuzz_check.h's CheckRefusal does not apply.)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "scheduler/cel/program.h"

namespace {

using shoal::cel::Value;

const shoal::cel::Activation& Vars() {
  static const auto* vars = new shoal::cel::Activation{
      {"device",
       Value::Map({
           {"driver", Value::String("gpu.example.com")},
           {"allowMultipleAllocations", Value::Bool(false)},
           {"attributes",
            Value::MapWithEmptyDefault({{
                "gpu.example.com",
                Value::Map({{"model", Value::String("A100")},
                            {"index", Value::Int(0)},
                            {"mig", Value::Bool(false)},
                            {"driverVersion",
                             *Value::SemverFromString("1.2.3-rc.1")}}),
            }})},
           {"capacity",
            Value::MapWithEmptyDefault({{
                "gpu.example.com",
                Value::Map({{"memory", *Value::QuantityFromString("40Gi")}}),
            }})},
       })},
  };
  return *vars;
}

void CheckSaysSomething(const absl::Status& s, const char* step) {
  if (s.ok() || !s.message().empty()) return;
  std::fprintf(stderr, "%s refused without a message\n", step);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string src(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<shoal::cel::Program> p = shoal::cel::Program::Compile(src);
  CheckSaysSomething(p.status(), "cel Compile");
  if (!p.ok()) return 0;
  absl::StatusOr<Value> v = p->Evaluate(Vars());
  CheckSaysSomething(v.status(), "cel Evaluate");
  if (v.ok()) v->DebugString();
  return 0;
}
