// What the devices of one session are holding: devices allocated whole,
// the shares of devices that allow multiple allocations (and how much of
// each capacity the shares consume), and how much of each shared counter
// the allocated partitions spend. The ledger keeps one for the session;
// the allocator takes from it while it searches and gives back what a
// dead end took, so every check reads one state.
#ifndef SHOAL_SCHEDULER_DRA_USAGE_H_
#define SHOAL_SCHEDULER_DRA_USAGE_H_

#include <cstdint>
#include <vector>

#include "scheduler/dra/inventory.h"

namespace shoal::dra {

class Usage {
 public:
  explicit Usage(const Inventory& inventory);

  // Whether `d` can be given to one more allocation: when it allows
  // multiple allocations, one that consumes `amounts` (one per capacity
  // of the device, milli-units); otherwise, whole. Either way the
  // counters it spends must last (a shared device spends them once, with
  // its first share).
  bool CanTake(DeviceId d, const std::vector<int64_t>& amounts) const;
  // `whole`: a device that allows multiple allocations is held whole
  // (an allocation without a share, as a claim's status may say). Give
  // says `whole` for what was taken whole: a claim being released gives
  // its devices back as it took them (Ledger::Release).
  void Take(DeviceId d, const std::vector<int64_t>& amounts,
            bool whole = false);
  void Give(DeviceId d, const std::vector<int64_t>& amounts,
            bool whole = false);

  // Held whole, or by some share.
  bool Held(DeviceId d) const { return held_[d] > 0; }
  // Whether its counters alone keep `d` from being taken now.
  bool CountersSpent(DeviceId d) const;
  // Devices held (each entry of a device counted, as Held says).
  int HeldCount() const;
  // What is consumed of the device's capacity `i` (milli-units).
  int64_t Consumed(DeviceId d, size_t i) const {
    return consumed_[offset_[d] + i];
  }
  int64_t CounterUsed(int32_t slot) const { return counters_used_[slot]; }

 private:
  bool Shared(DeviceId d) const {
    return inv_.devices()[d].device->allow_multiple_allocations;
  }
  void Spend(DeviceId d, int sign);

  const Inventory& inv_;
  // Per device entry: allocations (whole: 0 or 1; shares: how many).
  std::vector<int32_t> held_;
  // Per device entry: how many holders hold it whole though it could be
  // shared (counted: a claim released for a what-if gives its hold back
  // and takes it again while a preemptor's share is placed beside it).
  std::vector<int32_t> whole_;
  // Per device entry, from offset_[d]: what its shares consume of each
  // capacity.
  std::vector<size_t> offset_;
  std::vector<int64_t> consumed_;
  // Per counter slot: what allocated devices spend of it.
  std::vector<int64_t> counters_used_;
};

}  // namespace shoal::dra

#endif  // SHOAL_SCHEDULER_DRA_USAGE_H_
