#include "scheduler/dra/capacity.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "scheduler/api/quantity.h"

namespace shoal::dra {
namespace {

int64_t Milli(const std::string& q) {
  auto v = api::ParseQuantity(q, api::QuantityScale::kMilli);
  return v.ok() ? *v : 0;
}

std::string Qualified(const std::string& driver, const std::string& name) {
  return name.find('/') == std::string::npos ? absl::StrCat(driver, "/", name)
                                             : name;
}

// Rounds an amount asked for up to what the policy allows.
int64_t RoundUp(int64_t asked, const api::CapacityPolicy& p) {
  if (p.min.has_value()) {
    const int64_t min = Milli(*p.min);
    if (asked < min) return min;
    if (!p.step.has_value()) return asked;
    const int64_t step = Milli(*p.step);
    if (step <= 0) return asked;
    const int64_t steps = (asked - min) / step + ((asked - min) % step != 0);
    // Past what an int64 holds: no device has that much; refuse it.
    if (steps > (std::numeric_limits<int64_t>::max() - min) / step)
      return std::numeric_limits<int64_t>::max();
    return min + steps * step;
  }
  for (const std::string& v : p.valid_values) {
    const int64_t valid = Milli(v);
    if (asked <= valid) return valid;
  }
  return asked;
}

bool Violates(int64_t amount, const api::CapacityPolicy& p) {
  if (p.default_value.has_value() && amount == Milli(*p.default_value))
    return false;
  if (p.min.has_value()) {
    if (p.max.has_value() && amount > Milli(*p.max)) return true;
    if (p.step.has_value()) {
      const int64_t step = Milli(*p.step);
      if (step > 0 && (amount - Milli(*p.min)) % step != 0) return true;
    }
    return false;
  }
  if (p.valid_values.empty()) return false;
  return std::none_of(p.valid_values.begin(), p.valid_values.end(),
                      [&](const std::string& v) { return Milli(v) == amount; });
}

}  // namespace

bool Consumption(const api::DeviceChoice& choice, const api::Device& device,
                 const std::string& driver, const std::vector<int64_t>& totals,
                 bool has_policy, std::vector<int64_t>* out) {
  // The common case, in the allocator's hot loop: nothing asked, no
  // policy: each capacity whole.
  if (choice.capacity_requests.empty() && !has_policy) {
    out->assign(totals.begin(), totals.end());
    return true;
  }
  out->assign(device.capacity.size(), 0);
  std::vector<const std::string*> asked(device.capacity.size(), nullptr);
  for (const auto& [name, amount] : choice.capacity_requests) {
    const std::string q = Qualified(driver, name);
    bool found = false;
    for (size_t i = 0; i < device.capacity.size(); ++i) {
      if (device.capacity[i].name != q) continue;
      asked[i] = &amount;
      found = true;
    }
    if (!found) return false;  // a capacity the device does not have
  }
  for (size_t i = 0; i < device.capacity.size(); ++i) {
    const api::DeviceCapacity& c = device.capacity[i];
    const int64_t total = i < totals.size() ? totals[i] : Milli(c.value);
    int64_t amount;
    if (asked[i] == nullptr) {
      amount = c.policy.has_value() && c.policy->default_value.has_value()
                   ? Milli(*c.policy->default_value)
                   : total;
    } else {
      amount = Milli(*asked[i]);
      if (c.policy.has_value()) amount = RoundUp(amount, *c.policy);
    }
    if (c.policy.has_value() && Violates(amount, *c.policy)) return false;
    if (amount > total) return false;
    (*out)[i] = amount;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> ConsumedCapacity(
    const api::Device& device, const std::vector<int64_t>& amounts) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < device.capacity.size() && i < amounts.size(); ++i) {
    const api::DeviceCapacity& c = device.capacity[i];
    out.emplace_back(c.written.empty() ? c.name : c.written,
                     QuantityText(amounts[i]));
  }
  return out;
}

std::vector<int64_t> AmountsOf(const api::DeviceResult& result,
                               const api::Device& device) {
  std::vector<int64_t> out(device.capacity.size(), 0);
  for (const auto& [name, amount] : result.consumed_capacity) {
    for (size_t i = 0; i < device.capacity.size(); ++i) {
      const api::DeviceCapacity& c = device.capacity[i];
      if (name == c.written || name == c.name ||
          (c.name.size() > name.size() &&
           c.name.compare(c.name.size() - name.size(), name.size(), name) ==
               0 &&
           c.name[c.name.size() - name.size() - 1] == '/')) {
        out[i] = Milli(amount);
        break;
      }
    }
  }
  return out;
}

std::string QuantityText(int64_t milli) {
  if (milli % 1000 != 0) return absl::StrCat(milli, "m");
  const int64_t v = milli / 1000;
  if (v == 0) return "0";
  static const std::pair<int64_t, const char*> kBinary[] = {
      {int64_t{1} << 50, "Pi"},
      {int64_t{1} << 40, "Ti"},
      {int64_t{1} << 30, "Gi"},
      {int64_t{1} << 20, "Mi"},
      {int64_t{1} << 10, "Ki"}};
  for (const auto& [unit, suffix] : kBinary) {
    if (v % unit == 0) return absl::StrCat(v / unit, suffix);
  }
  return absl::StrCat(v);
}

}  // namespace shoal::dra
