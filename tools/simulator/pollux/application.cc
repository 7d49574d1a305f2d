#include "tools/simulator/pollux/application.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "tools/simulator/pollux/csv.h"

namespace shoal::sim::pollux {
namespace {

namespace fs = std::filesystem;

// Interpolation weight of x between a and b (a != b).
double Frac(double x, double a, double b) { return (x - a) / (b - a); }

StepTimes Mix(const StepTimes& a, const StepTimes& b, double t) {
  StepTimes r;
  r.step_time = (1 - t) * a.step_time + t * b.step_time;
  r.sync_time = (1 - t) * a.sync_time + t * b.sync_time;
  r.extrapolated = a.extrapolated || b.extrapolated;
  return r;
}

}  // namespace

const std::vector<std::string>& Application::Names() {
  static const auto* names = new std::vector<std::string>{
      "bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"};
  return *names;
}

absl::StatusOr<ApplicationOptions> Application::DefaultOptions(
    const std::string& name) {
  ApplicationOptions o;
  if (name == "bert") {
    o.max_epochs = 2;
  } else if (name == "cifar10") {
    o.max_epochs = 100;
  } else if (name == "deepspeech2") {
    o.max_epochs = 80;
  } else if (name == "imagenet") {
    o.max_epochs = 90;
  } else if (name == "ncf") {
    o.max_epochs = 10;
  } else if (name == "yolov3") {
    o.max_epochs = 50;
    o.max_local_bsz = 8;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown Pollux application \"", name, "\", want one of ",
                     absl::StrJoin(Names(), ", ")));
  }
  return o;
}

absl::StatusOr<Application> Application::LoadNamed(
    const std::string& traces_dir, const std::string& name) {
  absl::StatusOr<ApplicationOptions> options = DefaultOptions(name);
  if (!options.ok()) return options.status();
  return Load((fs::path(traces_dir) / name).string(), *options);
}

std::vector<int> Application::NormalizePlacement(
    const std::vector<int>& placement) {
  std::vector<int> p;
  for (int g : placement) {
    if (g != 0) p.push_back(g);
  }
  std::vector<int> best = p;
  for (size_t i = 1; i < p.size(); ++i) {
    std::vector<int> rot(p.begin() + i, p.end());
    rot.insert(rot.end(), p.begin(), p.begin() + i);
    if (rot < best) best = std::move(rot);
  }
  return best;
}

absl::StatusOr<Application> Application::Load(
    const std::string& dir, const ApplicationOptions& options) {
  Application app;
  app.name_ = fs::path(dir).filename().string();
  if (app.name_.empty())
    app.name_ = fs::path(dir).parent_path().filename().string();

  // validation-<B>.csv
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat(dir, ": cannot list the directory: ", ec.message()));
  }
  for (const fs::directory_entry& e : it) {
    std::string file = e.path().filename().string();
    absl::string_view stem = file;
    if (!absl::ConsumePrefix(&stem, "validation-") ||
        !absl::ConsumeSuffix(&stem, ".csv")) {
      continue;
    }
    int bsz = 0;
    if (!absl::SimpleAtoi(stem, &bsz) || bsz <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          e.path().string(),
          ": the name must be validation-<global batch size>.csv"));
    }
    absl::StatusOr<CsvTable> t =
        ReadCsv(e.path().string(),
                {"progress", "iteration", "metric", "grad_sqr", "grad_var"});
    if (!t.ok()) return t.status();
    std::vector<ValidationRow>& rows = app.validation_[bsz];
    for (const CsvRow& row : t->rows) {
      ValidationRow v;
      double* dst[] = {&v.progress, &v.iteration, &v.metric, &v.grad_sqr,
                       &v.grad_var};
      for (int f = 0; f < 5; ++f) {
        absl::StatusOr<double> d = t->Double(row, f);
        if (!d.ok()) return d.status();
        if (f != 2 && *d < 0) return t->Error(row, f, "negative");
        *dst[f] = *d;
      }
      rows.push_back(v);
    }
    if (rows.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(e.path().string(), ": no rows"));
    }
  }
  if (app.validation_.empty()) {
    return absl::NotFoundError(
        absl::StrCat(dir, ": no validation-<batch size>.csv files"));
  }

  // placements.csv
  const std::string placements_path = (fs::path(dir) / "placements.csv");
  absl::StatusOr<CsvTable> pt = ReadCsv(
      placements_path, {"placement", "local_bsz", "step_time", "sync_time"});
  if (!pt.ok()) return pt.status();
  std::map<std::tuple<int, int, int>, std::pair<StepTimes, int>> sums;
  int min_local = std::numeric_limits<int>::max(), max_local = 0;
  for (const CsvRow& row : pt->rows) {
    std::vector<int> placement;
    for (char c : row.fields[0]) {
      if (c < '1' || c > '9') {
        return pt->Error(row, 0,
                         absl::StrCat("want digits 1-9 (GPUs per node), got \"",
                                      row.fields[0], "\""));
      }
      placement.push_back(c - '0');
    }
    absl::StatusOr<int64_t> bsz = pt->Int(row, 1);
    if (!bsz.ok()) return bsz.status();
    if (*bsz <= 0) return pt->Error(row, 1, "must be positive");
    absl::StatusOr<double> step = pt->Double(row, 2);
    if (!step.ok()) return step.status();
    if (*step <= 0) return pt->Error(row, 2, "must be positive");
    absl::StatusOr<double> sync = pt->Double(row, 3);
    if (!sync.ok()) return sync.status();
    if (*sync < 0) return pt->Error(row, 3, "negative");
    std::vector<int> norm = NormalizePlacement(placement);
    std::string key;
    int replicas = 0;
    for (int g : norm) {
      key += static_cast<char>('0' + g);
      replicas += g;
    }
    app.placements_[key].push_back(
        Point{static_cast<double>(*bsz), *step, *sync});
    auto& s =
        sums[{static_cast<int>(norm.size()), replicas, static_cast<int>(*bsz)}];
    s.first.step_time += *step;
    s.first.sync_time += *sync;
    s.second += 1;
    min_local = std::min<int>(min_local, *bsz);
    max_local = std::max<int>(max_local, *bsz);
  }
  if (app.placements_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(placements_path, ": no rows"));
  }
  for (auto& [key, points] : app.placements_) {
    std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
      return a.local_bsz < b.local_bsz;
    });
    for (size_t i = 1; i < points.size(); ++i) {
      if (points[i].local_bsz == points[i - 1].local_bsz) {
        return absl::InvalidArgumentError(
            absl::StrCat(placements_path, ": placement ", key,
                         " has local_bsz ", points[i].local_bsz, " twice"));
      }
    }
  }

  // scalability.csv
  const std::string scalability_path = (fs::path(dir) / "scalability.csv");
  absl::StatusOr<CsvTable> st = ReadCsv(
      scalability_path,
      {"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"});
  if (!st.ok()) return st.status();
  for (const CsvRow& row : st->rows) {
    int64_t ints[3];
    for (int f = 0; f < 3; ++f) {
      absl::StatusOr<int64_t> v = st->Int(row, f);
      if (!v.ok()) return v.status();
      if (*v <= 0) return st->Error(row, f, "must be positive");
      ints[f] = *v;
    }
    if (ints[1] < ints[0]) {
      return st->Error(row, 1, "fewer replicas than nodes");
    }
    absl::StatusOr<double> step = st->Double(row, 3);
    if (!step.ok()) return step.status();
    if (*step <= 0) return st->Error(row, 3, "must be positive");
    absl::StatusOr<double> sync = st->Double(row, 4);
    if (!sync.ok()) return sync.status();
    if (*sync < 0) return st->Error(row, 4, "negative");
    auto& s = sums[{static_cast<int>(ints[0]), static_cast<int>(ints[1]),
                    static_cast<int>(ints[2])}];
    s.first.step_time += *step;
    s.first.sync_time += *sync;
    s.second += 1;
  }
  for (const auto& [key, s] : sums) {
    auto [n, r, b] = key;
    app.groups_[n][r].push_back(Point{static_cast<double>(b),
                                      s.first.step_time / s.second,
                                      s.first.sync_time / s.second});
  }  // std::map order: each group's points ascend in local_bsz.

  app.init_batch_size_ = options.init_batch_size
                             ? options.init_batch_size
                             : app.validation_.begin()->first;
  app.max_batch_size_ = options.max_batch_size
                            ? options.max_batch_size
                            : app.validation_.rbegin()->first;
  app.min_local_bsz_ =
      options.min_local_bsz ? options.min_local_bsz : min_local;
  app.max_local_bsz_ =
      options.max_local_bsz ? options.max_local_bsz : max_local;
  size_t shortest = std::numeric_limits<size_t>::max();
  for (const auto& [bsz, rows] : app.validation_) {
    shortest = std::min(shortest, rows.size());
  }
  app.max_epochs_ =
      options.max_epochs ? options.max_epochs : static_cast<int>(shortest);
  if (app.max_epochs_ <= 0 || static_cast<size_t>(app.max_epochs_) > shortest) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, ": max_epochs ", app.max_epochs_,
        " needs that many rows in every validation-*.csv; the shortest has ",
        shortest));
  }
  if (app.max_batch_size_ < app.min_local_bsz_) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, ": max batch size ", app.max_batch_size_,
        " is below the smallest local batch ", app.min_local_bsz_));
  }
  return app;
}

bool Application::Lerp1(const std::vector<Point>& points, double local_bsz,
                        StepTimes* out) {
  if (points.empty() || local_bsz < points.front().local_bsz ||
      local_bsz > points.back().local_bsz) {
    return false;
  }
  auto hi = std::lower_bound(
      points.begin(), points.end(), local_bsz,
      [](const Point& p, double b) { return p.local_bsz < b; });
  if (hi->local_bsz == local_bsz) {
    *out = StepTimes{hi->step_time, hi->sync_time, false};
    return true;
  }
  auto lo = hi - 1;
  double t = Frac(local_bsz, lo->local_bsz, hi->local_bsz);
  *out = Mix(StepTimes{lo->step_time, lo->sync_time, false},
             StepTimes{hi->step_time, hi->sync_time, false}, t);
  return true;
}

StepTimes Application::StepTime(const std::vector<int>& placement,
                                double local_bsz) const {
  std::vector<int> norm = NormalizePlacement(placement);
  if (norm.empty()) return StepTimes{};
  std::string key;
  int replicas = 0;
  bool digits = true;
  for (int g : norm) {
    if (g > 9) digits = false;
    key += static_cast<char>('0' + std::min(g, 9));
    replicas += g;
  }
  auto it = digits ? placements_.find(key) : placements_.end();
  if (it == placements_.end()) {
    return Interpolate3(static_cast<int>(norm.size()), replicas, local_bsz);
  }
  const std::vector<Point>& pts = it->second;
  StepTimes out;
  if (Lerp1(pts, local_bsz, &out)) return out;
  if (local_bsz < pts.front().local_bsz || pts.size() == 1) {
    const Point& p =
        local_bsz < pts.front().local_bsz ? pts.front() : pts.back();
    return StepTimes{p.step_time, p.sync_time, true};
  }
  const Point& a = pts[pts.size() - 2];
  const Point& b = pts.back();
  out = Mix(StepTimes{a.step_time, a.sync_time, false},
            StepTimes{b.step_time, b.sync_time, false},
            Frac(local_bsz, a.local_bsz, b.local_bsz));
  out.step_time = std::max(out.step_time, b.step_time);
  out.sync_time = std::max(out.sync_time, 0.0);
  out.extrapolated = true;
  return out;
}

bool Application::Row(int nodes, double x, double local_bsz, bool by_ratio,
                      StepTimes* out) const {
  auto row = groups_.find(nodes);
  if (row == groups_.end()) return false;
  bool have_lo = false;
  double lo_x = 0;
  StepTimes lo;
  for (const auto& [replicas, points] : row->second) {
    StepTimes v;
    if (!Lerp1(points, local_bsz, &v)) continue;
    double gx = by_ratio ? static_cast<double>(replicas) / nodes : replicas;
    if (gx == x) {
      *out = v;
      return true;
    }
    if (gx < x) {
      have_lo = true;
      lo_x = gx;
      lo = v;
    } else {
      if (!have_lo) return false;
      *out = Mix(lo, v, Frac(x, lo_x, gx));
      return true;
    }
  }
  return false;
}

bool Application::AcrossRows(int nodes, int replicas, double local_bsz,
                             bool by_ratio, StepTimes* out) const {
  double x = by_ratio ? static_cast<double>(replicas) / nodes : replicas;
  bool have_lo = false, have_hi = false;
  int lo_n = 0, hi_n = 0;
  StepTimes lo, hi;
  for (auto it = groups_.upper_bound(nodes); it != groups_.begin();) {
    --it;
    if (Row(it->first, x, local_bsz, by_ratio, &lo)) {
      have_lo = true;
      lo_n = it->first;
      break;
    }
  }
  for (auto it = groups_.lower_bound(nodes); it != groups_.end(); ++it) {
    if (Row(it->first, x, local_bsz, by_ratio, &hi)) {
      have_hi = true;
      hi_n = it->first;
      break;
    }
  }
  if (have_lo && have_hi) {
    *out = lo_n == hi_n ? lo : Mix(lo, hi, Frac(nodes, lo_n, hi_n));
    return true;
  }
  if (have_lo || have_hi) {
    *out = have_lo ? lo : hi;
    return true;
  }
  return false;
}

StepTimes Application::Interpolate3(int num_nodes, int num_replicas,
                                    double local_bsz) const {
  num_nodes = std::min(num_nodes, 16);  // as the artifact does
  StepTimes out;
  if (AcrossRows(num_nodes, num_replicas, local_bsz, false, &out)) return out;
  if (AcrossRows(num_nodes, num_replicas, local_bsz, true, &out)) return out;
  // Nearest measured group, local_bsz clamped into its range.
  double best = std::numeric_limits<double>::infinity();
  const std::vector<Point>* nearest = nullptr;
  for (const auto& [n, row] : groups_) {
    for (const auto& [r, points] : row) {
      double d = std::hypot(n - num_nodes, r - num_replicas);
      if (d < best) {
        best = d;
        nearest = &points;
      }
    }
  }
  if (nearest == nullptr || nearest->empty()) return out;
  double b = std::clamp(local_bsz, nearest->front().local_bsz,
                        nearest->back().local_bsz);
  Lerp1(*nearest, b, &out);
  out.extrapolated = true;
  return out;
}

double Application::Progress(int epoch) const {
  if (epoch <= 0) return 0.0;
  epoch = std::min(epoch, max_epochs_);
  double p = std::numeric_limits<double>::infinity();
  for (const auto& [bsz, rows] : validation_) {
    p = std::min(p, rows[epoch - 1].progress);
  }
  return p;
}

std::pair<int, int> Application::Bracket(double batch_size) const {
  int lower = validation_.begin()->first;
  int upper = validation_.rbegin()->first;
  if (batch_size <= lower) return {lower, lower};
  if (batch_size >= upper) return {upper, upper};
  for (const auto& [bsz, rows] : validation_) {
    if (bsz <= batch_size) lower = bsz;
    if (bsz >= batch_size) {
      upper = bsz;
      break;
    }
  }
  return {lower, upper};
}

GradStats Application::GetGradStats(double batch_size, int epoch) const {
  epoch = std::clamp(epoch, 0, max_epochs_ - 1);
  auto [lo, hi] = Bracket(batch_size);
  const ValidationRow& a = validation_.at(lo)[epoch];
  const ValidationRow& b = validation_.at(hi)[epoch];
  if (lo == hi) return GradStats{a.grad_sqr, a.grad_var};
  double t = Frac(batch_size, lo, hi);
  return GradStats{(1 - t) * a.grad_sqr + t * b.grad_sqr,
                   (1 - t) * a.grad_var + t * b.grad_var};
}

double Application::Iteration(double batch_size, int epoch) const {
  epoch = std::clamp(epoch, 0, max_epochs_ - 1);
  auto [lo, hi] = Bracket(batch_size);
  const ValidationRow& a = validation_.at(lo)[epoch];
  const ValidationRow& b = validation_.at(hi)[epoch];
  if (lo == hi) return a.iteration;
  double t = Frac(batch_size, lo, hi);
  return (1 - t) * a.iteration + t * b.iteration;
}

int Application::CompletionEpoch(double /*batch_size*/) const {
  return max_epochs_ - 1;
}

}  // namespace shoal::sim::pollux
