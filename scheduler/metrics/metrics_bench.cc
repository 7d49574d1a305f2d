// Costs of the hot-path operations (bazel run -c opt
// //scheduler/metrics:metrics_bench). A cycle records a few dozen of
// these, against a cycle of milliseconds.
#include "benchmark/benchmark.h"
#include "scheduler/metrics/metrics.h"

namespace shoal::metrics {
namespace {

void BM_CounterInc(benchmark::State& state) {
  Registry r;
  Counter& c = r.AddCounter("c_total", "C.");
  for (auto _ : state) c.Inc();
}
BENCHMARK(BM_CounterInc)->Threads(1)->Threads(2);

void BM_HistogramObserve(benchmark::State& state) {
  Registry r;
  Histogram& h = r.AddHistogram("h_ms", "H.", ExponentialBuckets(5, 2, 15));
  double v = 0;
  for (auto _ : state) h.Observe(v += 0.7);
}
BENCHMARK(BM_HistogramObserve)->Threads(1)->Threads(2);

void BM_FamilyWithThenInc(benchmark::State& state) {
  Registry r;
  auto& f = r.AddCounterFamily("f_total", "F.", {"result"});
  for (auto _ : state) f.With({"success"}).Inc();
}
BENCHMARK(BM_FamilyWithThenInc);

void BM_ScopedTimer(benchmark::State& state) {
  Registry r;
  Histogram& h = r.AddHistogram("t_ms", "T.", ExponentialBuckets(5, 2, 15));
  for (auto _ : state) ScopedTimer t(h);
}
BENCHMARK(BM_ScopedTimer);

}  // namespace
}  // namespace shoal::metrics
