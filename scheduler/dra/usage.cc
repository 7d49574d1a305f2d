#include "scheduler/dra/usage.h"

namespace shoal::dra {

Usage::Usage(const Inventory& inventory)
    : inv_(inventory),
      held_(inventory.devices().size(), 0),
      whole_(inventory.devices().size(), 0),
      offset_(inventory.devices().size() + 1, 0),
      counters_used_(inventory.counter_totals().size(), 0) {
  for (size_t d = 0; d < inventory.devices().size(); ++d) {
    offset_[d + 1] = offset_[d] + inventory.devices()[d].capacity.size();
  }
  consumed_.assign(offset_.back(), 0);
}

bool Usage::CountersSpent(DeviceId d) const {
  if (Shared(d) && held_[d] > 0) return false;  // spent with the first share
  for (const auto& [slot, amount] : inv_.devices()[d].counters) {
    if (counters_used_[slot] + amount > inv_.counter_totals()[slot]) {
      return true;
    }
  }
  return false;
}

bool Usage::CanTake(DeviceId d, const std::vector<int64_t>& amounts) const {
  if (!Shared(d)) return held_[d] == 0 && !CountersSpent(d);
  if (whole_[d] > 0 || CountersSpent(d)) return false;
  const std::vector<int64_t>& total = inv_.devices()[d].capacity;
  for (size_t i = 0; i < total.size() && i < amounts.size(); ++i) {
    if (consumed_[offset_[d] + i] + amounts[i] > total[i]) return false;
  }
  return true;
}

void Usage::Spend(DeviceId d, int sign) {
  for (const auto& [slot, amount] : inv_.devices()[d].counters) {
    counters_used_[slot] += sign * amount;
  }
}

void Usage::Take(DeviceId d, const std::vector<int64_t>& amounts, bool whole) {
  // Every entry of the device (one per generation of its pool that
  // lists it) is held alike.
  for (DeviceId e : inv_.Same(d)) {
    if (held_[e]++ == 0) Spend(e, +1);
    if (whole) ++whole_[e];
    if (!Shared(e)) continue;
    for (size_t i = 0;
         i < amounts.size() && i < inv_.devices()[e].capacity.size(); ++i) {
      consumed_[offset_[e] + i] += amounts[i];
    }
  }
}

void Usage::Give(DeviceId d, const std::vector<int64_t>& amounts, bool whole) {
  for (DeviceId e : inv_.Same(d)) {
    if (held_[e] == 0) continue;
    if (whole && whole_[e] > 0) --whole_[e];
    if (--held_[e] == 0) {
      Spend(e, -1);
      whole_[e] = 0;
    }
    if (!Shared(e)) continue;
    for (size_t i = 0;
         i < amounts.size() && i < inv_.devices()[e].capacity.size(); ++i) {
      consumed_[offset_[e] + i] -= amounts[i];
    }
  }
}

int Usage::HeldCount() const {
  int n = 0;
  for (int32_t h : held_) n += h > 0;
  return n;
}

}  // namespace shoal::dra
