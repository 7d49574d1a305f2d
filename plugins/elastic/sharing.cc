#include "plugins/elastic/sharing.h"

#include <algorithm>
#include <numeric>
#include <queue>

namespace shoal::plugins::elastic {
namespace {

bool Fits(const Grower& g, const api::Resource& room) {
  return g.extra < g.max_extra && g.pod.LessEqualWhere(room, g.pod);
}

void Take(Grower& g, api::Resource& room) {
  room -= g.pod;
  g.held += g.pod;
  ++g.extra;
}

void WaterFill(const api::Resource& total, api::Resource& room,
               std::vector<Grower>& growers) {
  auto larger_share = [&total, &growers](size_t a, size_t b) {
    return growers[a].held.DominantShare(total) >
           growers[b].held.DominantShare(total);
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(larger_share)> next(
      larger_share);
  for (size_t g = 0; g < growers.size(); ++g) next.push(g);
  while (!next.empty()) {
    const size_t index = next.top();
    next.pop();
    Grower& g = growers[index];
    if (!Fits(g, room)) continue;
    Take(g, room);
    next.push(index);
  }
}

// First whatever waited past the fairness bound (a start with its
// minimum, or growth), longest waiting first; then every job in the order
// it was submitted: a start only whole, growth all it can take; then the
// jobs that could not start whole and grow for free, with what is left.
void OldestFirst(api::Resource& room, std::vector<Grower>& growers) {
  std::vector<size_t> order(growers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&growers](size_t a, size_t b) {
    const Grower& x = growers[a];
    const Grower& y = growers[b];
    if (x.starved != y.starved) return x.starved;
    if (x.starved) return x.starved_since < y.starved_since;
    if (x.submitted != y.submitted) return x.submitted < y.submitted;
    return x.job < y.job;
  });
  for (size_t index : order) {
    Grower& g = growers[index];
    if (g.starting) {
      // Whole, unless it waited too long: then its minimum will do.
      const api::Resource& need = g.starved ? g.minimum : g.whole;
      g.starts = need.LessEqualWhere(room, need);
      if (!g.starts) continue;
      room -= need;
      if (!g.starved) {
        g.held = g.whole;
        g.extra = g.max_extra;
      }
    }
    while (Fits(g, room)) Take(g, room);
  }
  // Room nobody took whole: a job that could not start whole, and whose
  // growth later is free, starts with what there is (its minimum at
  // least), rather than leave it idle.
  for (size_t index : order) {
    Grower& g = growers[index];
    if (!g.starting || g.starts || !g.resize_free ||
        !g.minimum.LessEqualWhere(room, g.minimum)) {
      continue;
    }
    g.starts = true;
    room -= g.minimum;
    while (Fits(g, room)) Take(g, room);
  }
}

}  // namespace

void Share(Sharing sharing, const api::Resource& total, api::Resource room,
           std::vector<Grower>& growers) {
  if (sharing == Sharing::kEven) {
    WaterFill(total, room, growers);
  } else {
    OldestFirst(room, growers);
  }
}

}  // namespace shoal::plugins::elastic
