#include "scheduler/metrics/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::metrics {
namespace {

void AtomicAdd(std::atomic<double>& a, double v) {
  double old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, old + v, std::memory_order_relaxed)) {
  }
}

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "metrics: %s\n", message.c_str());
  std::abort();
}

bool ValidName(const std::string& name, bool colons) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (colons && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

}  // namespace

void Counter::Inc(double v) {
  if (v > 0) AtomicAdd(value_, v);
}

void Gauge::Inc(double v) { AtomicAdd(value_, v); }

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1]))
      Die("histogram bounds must be finite and strictly increasing");
  }
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i] = 0;
}

void Histogram::Observe(double v) {
  // The first bound >= v: buckets are inclusive upper bounds.
  size_t i =
      std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  AtomicAdd(sum_, v);
}

std::vector<uint64_t> Histogram::CumulativeCounts() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    total += counts_[i].load(std::memory_order_relaxed);
    out[i] = total;
  }
  return out;
}

uint64_t Histogram::Count() const { return CumulativeCounts().back(); }

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i, start *= factor) out.push_back(start);
  return out;
}

std::vector<double> LinearBuckets(double start, double width, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(start + i * width);
  return out;
}

const char* TypeName(Type type) {
  switch (type) {
    case Type::kCounter:
      return "counter";
    case Type::kGauge:
      return "gauge";
    case Type::kHistogram:
      return "histogram";
  }
  return "untyped";
}

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, end);
}

std::string EscapeLabelValue(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

FamilyBase::FamilyBase(std::string name, std::string help, Type type,
                       std::vector<std::string> label_names)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)) {
  if (!ValidName(name_, /*colons=*/true)) Die("invalid metric name " + name_);
  for (const std::string& l : label_names_) {
    if (!ValidName(l, /*colons=*/false) || l.rfind("__", 0) == 0 ||
        (type_ == Type::kHistogram && l == "le")) {
      Die(absl::StrCat(name_, ": invalid label name ", l));
    }
  }
}

void FamilyBase::CheckArity(const LabelValues& values) const {
  if (values.size() != label_names_.size()) {
    Die(absl::StrCat(name_, ": ", values.size(), " label values for ",
                     label_names_.size(), " label names (",
                     absl::StrJoin(label_names_, ","), ")"));
  }
}

std::string FamilyBase::OpenLabels(const LabelValues& values) const {
  if (values.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    absl::StrAppend(&out, label_names_[i], "=\"", EscapeLabelValue(values[i]),
                    "\"");
  }
  return out;
}

template <typename T>
void Family<T>::Render(std::string& out) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (children_.empty()) return;
  absl::StrAppend(&out, "# HELP ", name(), " ", EscapeHelp(help()), "\n");
  absl::StrAppend(&out, "# TYPE ", name(), " ", TypeName(type()), "\n");
  for (const auto& [labels, child] : children_) {
    RenderChild(labels, *child, out);
  }
}

template <>
std::unique_ptr<Counter> Family<Counter>::NewChild() const {
  return std::make_unique<Counter>();
}
template <>
std::unique_ptr<Gauge> Family<Gauge>::NewChild() const {
  return std::make_unique<Gauge>();
}
template <>
std::unique_ptr<Histogram> Family<Histogram>::NewChild() const {
  return std::make_unique<Histogram>(bounds_);
}

namespace {
std::string CloseLabels(std::string open) {
  return open.empty() ? open : open + "}";
}
}  // namespace

template <>
void Family<Counter>::RenderChild(const LabelValues& labels,
                                  const Counter& child,
                                  std::string& out) const {
  absl::StrAppend(&out, name(), CloseLabels(OpenLabels(labels)), " ",
                  FormatValue(child.Value()), "\n");
}

template <>
void Family<Gauge>::RenderChild(const LabelValues& labels, const Gauge& child,
                                std::string& out) const {
  absl::StrAppend(&out, name(), CloseLabels(OpenLabels(labels)), " ",
                  FormatValue(child.Value()), "\n");
}

template <>
void Family<Histogram>::RenderChild(const LabelValues& labels,
                                    const Histogram& child,
                                    std::string& out) const {
  std::string open = OpenLabels(labels);
  std::string le_prefix = open.empty() ? "{le=\"" : open + ",le=\"";
  // Read the buckets once: _count is the +Inf bucket, so the two agree
  // even while other threads observe.
  std::vector<uint64_t> cumulative = child.CumulativeCounts();
  const std::vector<double>& bounds = child.bounds();
  for (size_t i = 0; i <= bounds.size(); ++i) {
    std::string le = i < bounds.size() ? FormatValue(bounds[i]) : "+Inf";
    absl::StrAppend(&out, name(), "_bucket", le_prefix, le, "\"} ",
                    cumulative[i], "\n");
  }
  std::string closed = CloseLabels(open);
  absl::StrAppend(&out, name(), "_sum", closed, " ", FormatValue(child.Sum()),
                  "\n");
  absl::StrAppend(&out, name(), "_count", closed, " ", cumulative.back(), "\n");
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

void Registry::Add(std::unique_ptr<FamilyBase> family) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string name = family->name();
  if (!families_.emplace(name, std::move(family)).second)
    Die("metric registered twice: " + name);
}

Family<Counter>& Registry::AddCounterFamily(
    const std::string& name, const std::string& help,
    std::vector<std::string> label_names) {
  auto family = std::make_unique<Family<Counter>>(name, help, Type::kCounter,
                                                  std::move(label_names));
  auto& ref = *family;
  Add(std::move(family));
  return ref;
}

Family<Gauge>& Registry::AddGaugeFamily(const std::string& name,
                                        const std::string& help,
                                        std::vector<std::string> label_names) {
  auto family = std::make_unique<Family<Gauge>>(name, help, Type::kGauge,
                                                std::move(label_names));
  auto& ref = *family;
  Add(std::move(family));
  return ref;
}

Family<Histogram>& Registry::AddHistogramFamily(
    const std::string& name, const std::string& help,
    std::vector<std::string> label_names, std::vector<double> bounds) {
  auto family = std::make_unique<Family<Histogram>>(
      name, help, Type::kHistogram, std::move(label_names), std::move(bounds));
  auto& ref = *family;
  Add(std::move(family));
  return ref;
}

Counter& Registry::AddCounter(const std::string& name,
                              const std::string& help) {
  return AddCounterFamily(name, help, {}).With({});
}

Gauge& Registry::AddGauge(const std::string& name, const std::string& help) {
  return AddGaugeFamily(name, help, {}).With({});
}

Histogram& Registry::AddHistogram(const std::string& name,
                                  const std::string& help,
                                  std::vector<double> bounds) {
  return AddHistogramFamily(name, help, {}, std::move(bounds)).With({});
}

std::string Registry::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& [name, family] : families_) family->Render(out);
  return out;
}

std::vector<std::pair<std::string, Type>> Registry::Families() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, Type>> out;
  for (const auto& [name, family] : families_)
    out.emplace_back(name, family->type());
  return out;
}

Registry& DefaultRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

double ScopedTimer::Elapsed() const {
  std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
  return unit_ == kSeconds ? d.count() : d.count() * 1000.0;
}

}  // namespace shoal::metrics
