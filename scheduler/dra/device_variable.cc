#include "scheduler/dra/device_variable.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace shoal::dra {
namespace {

using Entries = std::vector<std::pair<std::string, cel::Value>>;

// "gpu.example.com/model" -> ("gpu.example.com", "model"). Names are
// qualified by the decoder, so a '/' is always there.
std::pair<std::string, std::string> SplitQualified(const std::string& name) {
  size_t slash = name.rfind('/');
  if (slash == std::string::npos) return {"", name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

cel::Value Version(const std::string& text) {
  auto v = cel::Value::SemverFromString(text);
  // The API server refuses bad versions; keep the text if one slips by.
  return v.ok() ? *v : cel::Value::String(text);
}

// A scalar as its CEL value; a list-typed attribute as a CEL list of its
// values (what a selector iterates, indexes or asks includes() of).
cel::Value AttributeValue(const api::DeviceAttribute& a) {
  if (a.list) {
    std::vector<cel::Value> values;
    values.reserve(a.size());
    switch (a.kind) {
      case api::DeviceAttribute::Kind::kBool:
        for (bool b : a.bools) values.push_back(cel::Value::Bool(b));
        break;
      case api::DeviceAttribute::Kind::kInt:
        for (int64_t i : a.ints) values.push_back(cel::Value::Int(i));
        break;
      case api::DeviceAttribute::Kind::kVersion:
        for (const std::string& s : a.strings) values.push_back(Version(s));
        break;
      case api::DeviceAttribute::Kind::kString:
        for (const std::string& s : a.strings)
          values.push_back(cel::Value::String(s));
        break;
    }
    return cel::Value::List(std::move(values));
  }
  switch (a.kind) {
    case api::DeviceAttribute::Kind::kBool:
      return cel::Value::Bool(a.b);
    case api::DeviceAttribute::Kind::kInt:
      return cel::Value::Int(a.i);
    case api::DeviceAttribute::Kind::kVersion:
      return Version(a.s);
    case api::DeviceAttribute::Kind::kString:
      break;
  }
  return cel::Value::String(a.s);
}

cel::Value ByDomain(std::map<std::string, Entries> domains) {
  Entries out;
  for (auto& [domain, entries] : domains) {
    out.emplace_back(domain, cel::Value::Map(std::move(entries)));
  }
  return cel::Value::MapWithEmptyDefault(std::move(out));
}

}  // namespace

cel::Value DeviceVariable(const api::ResourceSlice& slice,
                          const api::Device& device) {
  std::map<std::string, Entries> attributes, capacity;
  for (const auto& [name, value] : device.attributes) {
    auto [domain, id] = SplitQualified(name);
    attributes[domain].emplace_back(id, AttributeValue(value));
  }
  for (const api::DeviceCapacity& c : device.capacity) {
    auto [domain, id] = SplitQualified(c.name);
    auto q = cel::Value::QuantityFromString(c.value);
    capacity[domain].emplace_back(id,
                                  q.ok() ? *q : cel::Value::String(c.value));
  }
  return cel::Value::Map({
      {"driver", cel::Value::String(slice.driver)},
      {"attributes", ByDomain(std::move(attributes))},
      {"capacity", ByDomain(std::move(capacity))},
      {"allowMultipleAllocations",
       cel::Value::Bool(device.allow_multiple_allocations)},
  });
}

}  // namespace shoal::dra
