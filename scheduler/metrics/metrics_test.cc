#include "scheduler/metrics/metrics.h"

#include <thread>

#include "gtest/gtest.h"

namespace shoal::metrics {
namespace {

TEST(MetricsTest, UnlabelledCounterAndGaugeRenderAtZeroSortedByName) {
  Registry r;
  Gauge& g = r.AddGauge("zz_gauge", "A gauge.");
  Counter& c = r.AddCounter("aa_total", "A counter.");
  EXPECT_EQ(r.Render(),
            "# HELP aa_total A counter.\n"
            "# TYPE aa_total counter\n"
            "aa_total 0\n"
            "# HELP zz_gauge A gauge.\n"
            "# TYPE zz_gauge gauge\n"
            "zz_gauge 0\n");
  c.Inc();
  c.Inc(2.5);
  c.Inc(-7);  // counters never go down
  g.Set(10);
  g.Dec(0.25);
  EXPECT_EQ(c.Value(), 3.5);
  EXPECT_EQ(r.Render(),
            "# HELP aa_total A counter.\n"
            "# TYPE aa_total counter\n"
            "aa_total 3.5\n"
            "# HELP zz_gauge A gauge.\n"
            "# TYPE zz_gauge gauge\n"
            "zz_gauge 9.75\n");
}

TEST(MetricsTest, LabelledChildrenSortedAndEmptyFamilyOmitted) {
  Registry r;
  auto& f = r.AddCounterFamily("req_total", "Requests.", {"verb", "code"});
  r.AddGaugeFamily("empty", "Nothing yet.", {"x"});
  f.With({"POST", "201"}).Inc();
  f.With({"GET", "200"}).Inc(3);
  f.With({"GET", "404"}).Inc();
  EXPECT_EQ(&f.With({"GET", "200"}), &f.With({"GET", "200"}));  // stable
  EXPECT_EQ(r.Render(),
            "# HELP req_total Requests.\n"
            "# TYPE req_total counter\n"
            "req_total{verb=\"GET\",code=\"200\"} 3\n"
            "req_total{verb=\"GET\",code=\"404\"} 1\n"
            "req_total{verb=\"POST\",code=\"201\"} 1\n");
  f.Remove({"GET", "404"});
  EXPECT_EQ(f.size(), 2u);
  f.Clear();
  EXPECT_EQ(r.Render(), "");
  auto families = r.Families();
  ASSERT_EQ(families.size(), 2u);
  EXPECT_EQ(families[0].first, "empty");
  EXPECT_EQ(families[1].first, "req_total");
  EXPECT_EQ(families[1].second, Type::kCounter);
}

TEST(MetricsTest, EscapesLabelValuesAndHelp) {
  Registry r;
  auto& f =
      r.AddGaugeFamily("g", "Back\\slash and\nnewline \"kept\".", {"path"});
  f.With({"a\\b \"q\"\nz"}).Set(1);
  EXPECT_EQ(r.Render(),
            "# HELP g Back\\\\slash and\\nnewline \"kept\".\n"
            "# TYPE g gauge\n"
            "g{path=\"a\\\\b \\\"q\\\"\\nz\"} 1\n");
}

TEST(MetricsTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Registry r;
  auto& h =
      r.AddHistogramFamily("lat_ms", "Latency.", {"action"}, {1, 2.5, 10});
  Histogram& a = h.With({"allocate"});
  a.Observe(0.5);
  a.Observe(1);  // bounds are inclusive
  a.Observe(2);
  a.Observe(11);
  a.Observe(100);
  EXPECT_EQ(r.Render(),
            "# HELP lat_ms Latency.\n"
            "# TYPE lat_ms histogram\n"
            "lat_ms_bucket{action=\"allocate\",le=\"1\"} 2\n"
            "lat_ms_bucket{action=\"allocate\",le=\"2.5\"} 3\n"
            "lat_ms_bucket{action=\"allocate\",le=\"10\"} 3\n"
            "lat_ms_bucket{action=\"allocate\",le=\"+Inf\"} 5\n"
            "lat_ms_sum{action=\"allocate\"} 114.5\n"
            "lat_ms_count{action=\"allocate\"} 5\n");
  EXPECT_EQ(a.Count(), 5u);
  EXPECT_EQ(a.Sum(), 114.5);
}

TEST(MetricsTest, UnlabelledHistogram) {
  Registry r;
  Histogram& h = r.AddHistogram("e2e_ms", "E2e.", ExponentialBuckets(5, 2, 3));
  h.Observe(7);
  EXPECT_EQ(r.Render(),
            "# HELP e2e_ms E2e.\n"
            "# TYPE e2e_ms histogram\n"
            "e2e_ms_bucket{le=\"5\"} 0\n"
            "e2e_ms_bucket{le=\"10\"} 1\n"
            "e2e_ms_bucket{le=\"20\"} 1\n"
            "e2e_ms_bucket{le=\"+Inf\"} 1\n"
            "e2e_ms_sum 7\n"
            "e2e_ms_count 1\n");
}

TEST(MetricsTest, BucketHelpers) {
  EXPECT_EQ(ExponentialBuckets(5, 2, 4), (std::vector<double>{5, 10, 20, 40}));
  EXPECT_EQ(LinearBuckets(1, 0.5, 3), (std::vector<double>{1, 1.5, 2}));
}

TEST(MetricsTest, FormatsValuesAsPrometheusReadsThem) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(-2), "-2");
  EXPECT_EQ(FormatValue(0.1), "0.1");
  EXPECT_EQ(FormatValue(1e21), "1e+21");
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(FormatValue(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(FormatValue(0.0 / 0.0), "NaN");
}

TEST(MetricsTest, GaugeReplaceDropsChildrenNotListed) {
  Registry r;
  auto& share = r.AddGaugeFamily("queue_share", "Share.", {"queue_name"});
  share.Replace({{{"a"}, 0.5}, {{"b"}, 0.25}});
  Gauge* a = &share.With({"a"});
  share.Replace({{{"a"}, 0.75}, {{"c"}, 1}});  // b deleted, c new
  EXPECT_EQ(&share.With({"a"}), a);            // kept children stay put
  EXPECT_EQ(r.Render(),
            "# HELP queue_share Share.\n"
            "# TYPE queue_share gauge\n"
            "queue_share{queue_name=\"a\"} 0.75\n"
            "queue_share{queue_name=\"c\"} 1\n");
  share.Replace({});
  EXPECT_EQ(r.Render(), "");
}

TEST(MetricsTest, ConcurrentIncrementsAreNotLost) {
  Registry r;
  auto& c = r.AddCounterFamily("c_total", "C.", {"t"});
  Gauge& g = r.AddGauge("g", "G.");
  Histogram& h = r.AddHistogram("h", "H.", {1, 2});
  constexpr int kThreads = 8, kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Counter& mine = c.With({t % 2 == 0 ? "even" : "odd"});
      for (int i = 0; i < kEach; ++i) {
        mine.Inc();
        c.With({"all"}).Inc();
        g.Inc();
        h.Observe(i % 3);               // 0, 1, 2
        if (i % 1000 == 0) r.Render();  // scrapes while counting
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.With({"all"}).Value(), kThreads * kEach);
  EXPECT_EQ(c.With({"even"}).Value(), kThreads / 2 * kEach);
  EXPECT_EQ(g.Value(), kThreads * kEach);
  EXPECT_EQ(h.Count(), uint64_t{kThreads} * kEach);
  std::vector<uint64_t> cumulative = h.CumulativeCounts();
  EXPECT_EQ(cumulative[2], h.Count());
  // Every observation is an integer, so the sum is exact.
  double expected_sum = 0;
  for (int i = 0; i < kEach; ++i) expected_sum += i % 3;
  EXPECT_EQ(h.Sum(), kThreads * expected_sum);
}

TEST(MetricsTest, ScopedTimerObservesElapsedMilliseconds) {
  Registry r;
  Histogram& h = r.AddHistogram("t_ms", "T.", {1, 1000});
  {
    ScopedTimer timer(h);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(h.Count(), 1u);
  EXPECT_GE(h.Sum(), 5);
  EXPECT_LT(h.Sum(), 1000);
  Histogram& s = r.AddHistogram("t_s", "T.", {1});
  { ScopedTimer timer(s, ScopedTimer::kSeconds); }
  EXPECT_LT(s.Sum(), 1);
}

TEST(MetricsDeathTest, ProgrammingErrorsAbort) {
  Registry r;
  r.AddCounter("x_total", "X.");
  EXPECT_DEATH(r.AddGauge("x_total", "again"), "registered twice");
  EXPECT_DEATH(r.AddGauge("bad-name", "B."), "invalid metric name");
  EXPECT_DEATH(r.AddHistogramFamily("h", "H.", {"le"}, {1}),
               "invalid label name");
  auto& f = r.AddCounterFamily("f_total", "F.", {"a", "b"});
  EXPECT_DEATH(f.With({"only-one"}), "1 label values for 2 label names");
}

}  // namespace
}  // namespace shoal::metrics
