#include "plugins/elastic/sharing.h"

#include <algorithm>
#include <cmath>
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

// Gains this small are nothing: floating-point dust of a flat curve.
constexpr double kNoGain = 1e-9;

// One pod at a time to the best score (NextScore), ties to the smaller
// share, then the earlier grower; a grower whose next pod gains nothing,
// or does not fit, takes no more.
void ByThroughput(const api::Resource& total, api::Resource& room,
                  std::vector<Grower>& growers, double margin) {
  struct Entry {
    double score;
    double share;
    size_t index;
  };
  auto worse = [](const Entry& a, const Entry& b) {
    if (std::abs(a.score - b.score) > 1e-12 * std::max(1.0, std::abs(b.score)))
      return a.score < b.score;
    if (a.share != b.share) return a.share > b.share;
    return a.index > b.index;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> next(worse);
  auto push = [&](size_t index) {
    const Grower& g = growers[index];
    if (NextGain(g) <= kNoGain) return;
    next.push(
        {NextScore(g, total, margin), g.held.DominantShare(total), index});
  };
  for (size_t g = 0; g < growers.size(); ++g) push(g);
  while (!next.empty()) {
    const size_t index = next.top().index;
    next.pop();
    Grower& g = growers[index];
    if (!Fits(g, room)) continue;
    Take(g, room);
    push(index);
  }
}

// Each grower in rank order takes all it can, up to where its curve says
// the next pod adds nothing, before the next grower takes any.
void InJobOrder(api::Resource& room, std::vector<Grower>& growers) {
  std::vector<size_t> order(growers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&growers](size_t a, size_t b) {
    return growers[a].rank < growers[b].rank;
  });
  for (size_t index : order) {
    Grower& g = growers[index];
    while (Fits(g, room) && NextGain(g) > kNoGain) Take(g, room);
  }
}

}  // namespace

double NextGain(const Grower& g) {
  static const Curve kLinear;
  return NextPodGain(g.curve != nullptr ? *g.curve : kLinear,
                     g.min_pods + g.extra);
}

double NextScore(const Grower& g, const api::Resource& total, double margin) {
  const double gain = NextGain(g) + (g.extra < g.kept ? margin : 0);
  // A pod that asks for nothing the cluster counts costs the least there
  // is: a millionth of it.
  const double share = std::max(g.pod.DominantShare(total), 1e-6);
  return gain / share;
}

void Share(Sharing sharing, const api::Resource& total, api::Resource room,
           std::vector<Grower>& growers, double margin) {
  switch (sharing) {
    case Sharing::kEven:
      WaterFill(total, room, growers);
      break;
    case Sharing::kOldestFirst:
      OldestFirst(room, growers);
      break;
    case Sharing::kThroughput:
      ByThroughput(total, room, growers, margin);
      break;
    case Sharing::kJobOrder:
      InJobOrder(room, growers);
      break;
  }
}

}  // namespace shoal::plugins::elastic
