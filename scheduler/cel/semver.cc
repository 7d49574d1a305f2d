#include "scheduler/cel/semver.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace shoal::cel {
namespace {

absl::Status Bad(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("semver \"", text, "\": ", why));
}

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

bool IdentChars(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '-') return false;
  }
  return true;
}

absl::Status ParseNumber(absl::string_view text, absl::string_view part,
                         absl::string_view what, uint64_t* out) {
  if (!AllDigits(part)) return Bad(text, absl::StrCat("invalid ", what));
  if (part.size() > 1 && part[0] == '0') {
    return Bad(text,
               absl::StrCat(what, " number must not contain leading zeroes"));
  }
  if (!absl::SimpleAtoi(part, out)) {
    return Bad(text, absl::StrCat(what, " number out of range"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Semver> Semver::Parse(absl::string_view text) {
  if (text.empty()) return Bad(text, "version string empty");
  std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits('.', 2));
  if (parts.size() != 3) {
    return Bad(text, "no major, minor and patch version");
  }
  Semver v;
  absl::Status s = ParseNumber(text, parts[0], "major", &v.major_);
  if (!s.ok()) return s;
  s = ParseNumber(text, parts[1], "minor", &v.minor_);
  if (!s.ok()) return s;
  absl::string_view rest = parts[2];
  size_t cut = rest.find_first_of("+-");
  s = ParseNumber(text, rest.substr(0, cut), "patch", &v.patch_);
  if (!s.ok()) return s;
  if (cut == absl::string_view::npos) return v;
  rest = rest.substr(cut);
  absl::string_view build;
  size_t plus = rest.find('+');
  if (plus != absl::string_view::npos) {
    build = rest.substr(plus + 1);
    rest = rest.substr(0, plus);
    for (absl::string_view id : absl::StrSplit(build, '.')) {
      if (!IdentChars(id)) return Bad(text, "invalid build metadata");
      v.build_.emplace_back(id);
    }
  }
  if (!rest.empty()) {  // "-prerelease"
    for (absl::string_view id : absl::StrSplit(rest.substr(1), '.')) {
      if (!IdentChars(id)) return Bad(text, "invalid prerelease identifier");
      if (AllDigits(id) && id.size() > 1 && id[0] == '0') {
        return Bad(text, "numeric prerelease identifier has leading zeroes");
      }
      v.pre_.emplace_back(id);
    }
  }
  return v;
}

absl::StatusOr<Semver> Semver::ParseNormalized(absl::string_view text) {
  absl::string_view s = text;
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  std::vector<std::string> parts = absl::StrSplit(s, absl::MaxSplits('.', 2));
  for (std::string& p : parts) {
    if (p.size() > 1) {
      size_t lead = p.find_first_not_of('0');
      p = lead == std::string::npos ? "" : p.substr(lead);
      if (p.empty() || !absl::ascii_isdigit(p[0])) p = "0" + p;
    }
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return Bad(text,
                 "short version cannot contain PreRelease/Build meta data");
    }
    while (parts.size() < 3) parts.push_back("0");
  }
  return Parse(absl::StrJoin(parts, "."));
}

int Semver::Compare(const Semver& o) const {
  if (major_ != o.major_) return major_ < o.major_ ? -1 : 1;
  if (minor_ != o.minor_) return minor_ < o.minor_ ? -1 : 1;
  if (patch_ != o.patch_) return patch_ < o.patch_ ? -1 : 1;
  // A version without prerelease ranks above one with.
  if (pre_.empty() != o.pre_.empty()) return pre_.empty() ? 1 : -1;
  for (size_t i = 0; i < pre_.size() && i < o.pre_.size(); ++i) {
    const std::string& a = pre_[i];
    const std::string& b = o.pre_[i];
    bool an = AllDigits(a), bn = AllDigits(b);
    if (an && bn) {
      if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
      if (a != b) return a < b ? -1 : 1;
    } else if (an != bn) {
      return an ? -1 : 1;  // numeric identifiers rank below alphanumeric
    } else if (a != b) {
      return a < b ? -1 : 1;
    }
  }
  if (pre_.size() != o.pre_.size()) return pre_.size() < o.pre_.size() ? -1 : 1;
  return 0;
}

std::string Semver::ToString() const {
  std::string s = absl::StrCat(major_, ".", minor_, ".", patch_);
  if (!pre_.empty()) absl::StrAppend(&s, "-", absl::StrJoin(pre_, "."));
  if (!build_.empty()) absl::StrAppend(&s, "+", absl::StrJoin(build_, "."));
  return s;
}

}  // namespace shoal::cel
