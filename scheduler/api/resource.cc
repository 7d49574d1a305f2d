#include "scheduler/api/resource.h"

#include <algorithm>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shoal::api {

absl::StatusOr<Resource> Resource::FromList(
    const std::vector<std::pair<std::string, std::string>>& list,
    absl::string_view what) {
  Resource r;
  for (const auto& [name, text] : list) {
    absl::StatusOr<ResourceId> id = InternResourceName(name);
    if (!id.ok()) return id.status();
    absl::StatusOr<int64_t> amount = ParseQuantity(text, ScaleOf(*id));
    if (!amount.ok()) {
      return absl::Status(
          amount.status().code(),
          absl::StrCat(what, ".", name, ": ", amount.status().message()));
    }
    if (*amount < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ".", name, ": must not be negative, got \"", text, "\""));
    }
    r.Set(*id, *amount);
  }
  return r;
}

void Resource::Set(ResourceId id, int64_t amount) {
  if (id >= amounts_.size()) {
    if (amount == 0) return;
    amounts_.resize(id + 1, 0);
  }
  amounts_[id] = amount;
}

Resource& Resource::operator+=(const Resource& other) {
  if (other.amounts_.size() > amounts_.size()) {
    amounts_.resize(other.amounts_.size(), 0);
  }
  for (size_t i = 0; i < other.amounts_.size(); ++i) {
    amounts_[i] += other.amounts_[i];
  }
  return *this;
}

Resource& Resource::operator-=(const Resource& other) {
  if (other.amounts_.size() > amounts_.size()) {
    amounts_.resize(other.amounts_.size(), 0);
  }
  for (size_t i = 0; i < other.amounts_.size(); ++i) {
    amounts_[i] -= other.amounts_[i];
  }
  return *this;
}

bool Resource::operator==(const Resource& other) const {
  size_t n = std::max(amounts_.size(), other.amounts_.size());
  for (size_t i = 0; i < n; ++i) {
    if (Get(i) != other.Get(i)) return false;
  }
  return true;
}

void Resource::MaxWith(const Resource& other) {
  if (other.amounts_.size() > amounts_.size()) {
    amounts_.resize(other.amounts_.size(), 0);
  }
  // Amounts `other` has no slot for are zero: MaxWith(Resource()) clamps
  // negatives to zero.
  for (size_t i = 0; i < amounts_.size(); ++i) {
    amounts_[i] = std::max(amounts_[i], other.Get(i));
  }
}

void Resource::MinWith(const Resource& other) {
  size_t n = std::max(amounts_.size(), other.amounts_.size());
  amounts_.resize(n, 0);
  for (size_t i = 0; i < n; ++i)
    amounts_[i] = std::min(amounts_[i], other.Get(i));
}

Resource Resource::Scaled(double factor) const {
  Resource r;
  r.amounts_.resize(amounts_.size(), 0);
  for (size_t i = 0; i < amounts_.size(); ++i) {
    r.amounts_[i] =
        static_cast<int64_t>(static_cast<double>(amounts_[i]) * factor);
  }
  return r;
}

bool Resource::AllLessEqual(const Resource& other) const {
  size_t n = std::max(amounts_.size(), other.amounts_.size());
  for (size_t i = 0; i < n; ++i) {
    if (Get(i) > other.Get(i)) return false;
  }
  return true;
}

bool Resource::LessEqualWhere(const Resource& limit,
                              const Resource& where) const {
  for (size_t i = 0; i < where.amounts_.size(); ++i) {
    if (where.amounts_[i] > 0 && Get(i) > limit.Get(i)) return false;
  }
  return true;
}

bool Resource::FitsBeside(const Resource& held, const Resource& limit) const {
  for (size_t i = 0; i < amounts_.size(); ++i) {
    if (amounts_[i] > 0 && held.Get(i) + amounts_[i] > limit.Get(i))
      return false;
  }
  return true;
}

double Resource::DominantShare(const Resource& of) const {
  double share = 0;
  for (size_t i = 0; i < amounts_.size(); ++i) {
    if (amounts_[i] <= 0) continue;
    int64_t total = of.Get(i);
    if (total <= 0) return std::numeric_limits<double>::infinity();
    double s = static_cast<double>(amounts_[i]) / total;
    share = std::max(share, s);
  }
  return share;
}

bool Resource::FitsIn(const Resource& available) const {
  for (size_t i = 0; i < amounts_.size(); ++i) {
    if (amounts_[i] > 0 && amounts_[i] > available.Get(i)) return false;
  }
  return true;
}

bool Resource::IsZero() const {
  return std::all_of(amounts_.begin(), amounts_.end(),
                     [](int64_t v) { return v == 0; });
}

bool Resource::AnyNegative() const {
  return std::any_of(amounts_.begin(), amounts_.end(),
                     [](int64_t v) { return v < 0; });
}

std::string Resource::ToString() const {
  std::vector<std::string> parts;
  for (size_t i = 0; i < amounts_.size(); ++i) {
    if (amounts_[i] == 0) continue;
    ResourceId id = static_cast<ResourceId>(i);
    std::string amount =
        amounts_[i] < 0
            ? absl::StrCat("-", FormatQuantity(-amounts_[i], ScaleOf(id)))
            : FormatQuantity(amounts_[i], ScaleOf(id));
    parts.push_back(absl::StrCat(ResourceName(id), ": ", amount));
  }
  return parts.empty() ? "none" : absl::StrJoin(parts, ", ");
}

}  // namespace shoal::api
