// A small Prometheus client: counters, gauges and histograms, optionally
// labelled, kept in a Registry that renders the text exposition format
// 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
//
// Why our own: Debian bookworm does package prometheus-cpp (1.0.1,
// `prometheus-cpp-dev`), but its pull side brings civetweb, a second HTTP
// server next to the cpp-httplib Shoal already uses, plus the push
// library, and it is not among Shoal's build dependencies. What Shoal
// needs is small (three metric kinds, one text format) and is here with
// no dependency beyond absl, so the framework, the cache and the
// Kubernetes client can all record metrics.
//
// Hot path: Inc/Set/Observe on a child are lock-free (atomics). Looking a
// child up by label values (`With`) takes the family's mutex; keep the
// reference when the labels are fixed (e.g. per action), it stays valid
// until that child is removed (Remove, Clear, Replace) or the family dies.
//
//   auto& binds = registry.AddCounterFamily("shoal_binds_total",
//                                           "Binds sent", {"result"});
//   binds.With({"success"}).Inc();
//   { ScopedTimer t(latency_ms); ... }  // observes elapsed milliseconds
#ifndef SHOAL_SCHEDULER_METRICS_METRICS_H_
#define SHOAL_SCHEDULER_METRICS_METRICS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace shoal::metrics {

using LabelValues = std::vector<std::string>;

// A monotonically increasing value.
class Counter {
 public:
  // `v` must be >= 0 (a negative increment is ignored).
  void Inc(double v = 1);
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A value that goes up and down.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Inc(double v = 1);
  void Dec(double v = 1) { Inc(-v); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Counts observations into buckets with inclusive upper bounds (`le`),
// plus an implicit +Inf bucket, and keeps their sum.
class Histogram {
 public:
  // `bounds` strictly increasing, finite.
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);

  const std::vector<double>& bounds() const { return bounds_; }
  // Cumulative counts, one per bound and a last one for +Inf (== count).
  std::vector<uint64_t> CumulativeCounts() const;
  uint64_t Count() const;
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // per bucket, +Inf last
  std::atomic<double> sum_{0};
};

// Bucket bounds: start, start*factor, ... (count of them).
std::vector<double> ExponentialBuckets(double start, double factor, int count);
// Bucket bounds: start, start+width, ... (count of them).
std::vector<double> LinearBuckets(double start, double width, int count);

enum class Type { kCounter, kGauge, kHistogram };
const char* TypeName(Type type);  // "counter", "gauge", "histogram"

// What every family has, whatever its metric type.
class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, Type type,
             std::vector<std::string> label_names);
  virtual ~FamilyBase() = default;
  FamilyBase(const FamilyBase&) = delete;
  FamilyBase& operator=(const FamilyBase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  Type type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Appends this family's HELP, TYPE and sample lines; nothing when it has
  // no children.
  virtual void Render(std::string& out) const = 0;

 protected:
  // "{a=\"x\",b=\"y\"" without the closing brace (the caller may add le),
  // or "" for no labels.
  std::string OpenLabels(const LabelValues& values) const;
  // Aborts when the number of values differs from the label names.
  void CheckArity(const LabelValues& values) const;

 private:
  std::string name_;
  std::string help_;
  Type type_;
  std::vector<std::string> label_names_;
};

// The children of one metric name, one per combination of label values,
// sorted by label values when rendered.
template <typename T>
class Family : public FamilyBase {
 public:
  // `bounds`: histograms only, every child's bucket bounds.
  Family(std::string name, std::string help, Type type,
         std::vector<std::string> label_names, std::vector<double> bounds = {})
      : FamilyBase(std::move(name), std::move(help), type,
                   std::move(label_names)),
        bounds_(std::move(bounds)) {
    if (this->label_names().empty()) With({});
  }

  // The child with these label values (one per label name, in order),
  // created at first use. The reference is stable until the child is
  // removed.
  T& With(const LabelValues& values) {
    std::lock_guard<std::mutex> lock(mu_);
    return WithLocked(values);
  }
  // Drops one child; it is no longer exported.
  void Remove(const LabelValues& values) {
    std::lock_guard<std::mutex> lock(mu_);
    children_.erase(values);
  }
  // Drops every child (an unlabelled family keeps its one child).
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    ClearLocked();
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return children_.size();
  }

  // Gauges only: exactly these children with these values, in one step
  // (a scrape sees the old set or the new one); children not listed are
  // removed, e.g. queues deleted since the last cycle.
  template <typename U = T>
  std::enable_if_t<std::is_same_v<U, Gauge>> Replace(
      const std::vector<std::pair<LabelValues, double>>& values) {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<LabelValues, std::unique_ptr<T>> next;
    for (const auto& [labels, value] : values) {
      CheckArity(labels);
      auto it = children_.find(labels);
      std::unique_ptr<T> child =
          it != children_.end() ? std::move(it->second) : NewChild();
      child->Set(value);
      next[labels] = std::move(child);
    }
    children_ = std::move(next);
  }

  void Render(std::string& out) const override;

 private:
  T& WithLocked(const LabelValues& values) {
    auto it = children_.find(values);
    if (it != children_.end()) return *it->second;
    CheckArity(values);
    return *children_.emplace(values, NewChild()).first->second;
  }
  void ClearLocked() {
    children_.clear();
    if (label_names().empty()) WithLocked({});
  }
  std::unique_ptr<T> NewChild() const;
  void RenderChild(const LabelValues& labels, const T& child,
                   std::string& out) const;

  std::vector<double> bounds_;  // histograms only
  mutable std::mutex mu_;
  std::map<LabelValues, std::unique_ptr<T>> children_;
};

// Defined in metrics.cc for the three metric types.
template <>
std::unique_ptr<Counter> Family<Counter>::NewChild() const;
template <>
std::unique_ptr<Gauge> Family<Gauge>::NewChild() const;
template <>
std::unique_ptr<Histogram> Family<Histogram>::NewChild() const;
template <>
void Family<Counter>::RenderChild(const LabelValues&, const Counter&,
                                  std::string&) const;
template <>
void Family<Gauge>::RenderChild(const LabelValues&, const Gauge&,
                                std::string&) const;
template <>
void Family<Histogram>::RenderChild(const LabelValues&, const Histogram&,
                                    std::string&) const;
extern template class Family<Counter>;
extern template class Family<Gauge>;
extern template class Family<Histogram>;

// A set of families with distinct names, rendered together.
class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Names must match [a-zA-Z_:][a-zA-Z0-9_:]*, label names
  // [a-zA-Z_][a-zA-Z0-9_]* (not "le" for histograms, not "__" prefixed);
  // a name registered twice, or an invalid one, aborts: these are
  // programming errors found by the first test that builds the registry.
  Family<Counter>& AddCounterFamily(const std::string& name,
                                    const std::string& help,
                                    std::vector<std::string> label_names);
  Family<Gauge>& AddGaugeFamily(const std::string& name,
                                const std::string& help,
                                std::vector<std::string> label_names);
  Family<Histogram>& AddHistogramFamily(const std::string& name,
                                        const std::string& help,
                                        std::vector<std::string> label_names,
                                        std::vector<double> bounds);
  // Unlabelled shorthands: the family's single child.
  Counter& AddCounter(const std::string& name, const std::string& help);
  Gauge& AddGauge(const std::string& name, const std::string& help);
  Histogram& AddHistogram(const std::string& name, const std::string& help,
                          std::vector<double> bounds);

  // The text exposition format 0.0.4, families sorted by name.
  std::string Render() const;

  // Every registered family, sorted by name (including empty ones).
  std::vector<std::pair<std::string, Type>> Families() const;

 private:
  void Add(std::unique_ptr<FamilyBase> family);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<FamilyBase>> families_;
};

// The process-wide registry that /metrics serves.
Registry& DefaultRegistry();

// Content-Type of Registry::Render's output.
inline constexpr char kContentType[] =
    "text/plain; version=0.0.4; charset=utf-8";

// Observes the time from construction to destruction, in milliseconds
// (or seconds, with kSeconds), into a histogram.
class ScopedTimer {
 public:
  enum Unit { kMilliseconds, kSeconds };
  explicit ScopedTimer(Histogram& histogram, Unit unit = kMilliseconds)
      : histogram_(histogram),
        unit_(unit),
        start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() { histogram_.Observe(Elapsed()); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

  // Time so far, in the timer's unit.
  double Elapsed() const;

 private:
  Histogram& histogram_;
  Unit unit_;
  std::chrono::steady_clock::time_point start_;
};

// Formatting shared by the renderers (exposed for tests).
// Shortest text that reads back as `v`; "+Inf", "-Inf", "NaN".
std::string FormatValue(double v);
// Label value escaping: backslash, double quote and newline.
std::string EscapeLabelValue(const std::string& v);
// HELP escaping: backslash and newline.
std::string EscapeHelp(const std::string& v);

}  // namespace shoal::metrics

#endif  // SHOAL_SCHEDULER_METRICS_METRICS_H_
