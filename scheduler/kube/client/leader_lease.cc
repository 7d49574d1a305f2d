#include "scheduler/kube/client/leader_lease.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "scheduler/kube/client/timestamps.h"

namespace shoal::kube {
namespace {

using nlohmann::json;

absl::Status Unexpected(const char* what, const HttpResponse& r) {
  return absl::UnavailableError(absl::StrCat(what, " lease: HTTP ", r.status,
                                             ": ", StatusMessage(r.body)));
}

}  // namespace

LeaderLease::LeaderLease(HttpClient& client, std::string ns, std::string name,
                         std::string identity, absl::Duration duration)
    : client_(client),
      ns_(std::move(ns)),
      name_(std::move(name)),
      identity_(std::move(identity)),
      duration_(duration) {}

std::string LeaderLease::Path() const {
  return absl::StrCat("/apis/coordination.k8s.io/v1/namespaces/", ns_,
                      "/leases");
}

absl::StatusOr<bool> LeaderLease::TryAcquireOrRenew(absl::Time now) {
  json mine = {{"holderIdentity", identity_},
               {"leaseDurationSeconds", absl::ToInt64Seconds(duration_)},
               {"acquireTime", MicroTime(now)},
               {"renewTime", MicroTime(now)},
               {"leaseTransitions", 0}};
  auto got = client_.Request("GET", absl::StrCat(Path(), "/", name_));
  if (!got.ok()) return got.status();
  if (got->status == 404) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", name_}, {"namespace", ns_}}},
                  {"spec", mine}};
    auto created = client_.Request("POST", Path(), lease.dump());
    if (!created.ok()) return created.status();
    if (created->status == 409) return false;  // someone else was quicker
    if (created->status != 201) return Unexpected("create", *created);
    holder_ = identity_;
    return true;
  }
  if (got->status != 200) return Unexpected("read", *got);
  json lease = json::parse(got->body, nullptr, /*allow_exceptions=*/false);
  if (!lease.is_object()) return absl::UnavailableError("read lease: not JSON");
  json spec = lease.value("spec", json::object());
  std::string holder = spec.value("holderIdentity", "");
  std::string record = spec.dump();
  if (record != record_) {
    record_ = record;
    record_seen_at_ = now;
  }
  holder_ = holder;
  absl::Duration their_duration =
      absl::Seconds(spec.value("leaseDurationSeconds", 0));
  if (their_duration <= absl::ZeroDuration()) their_duration = duration_;
  bool expired = now >= record_seen_at_ + their_duration;
  if (holder != identity_ && !holder.empty() && !expired) return false;
  if (holder == identity_) {
    mine["acquireTime"] = spec.value("acquireTime", MicroTime(now));
    mine["leaseTransitions"] = spec.value("leaseTransitions", 0);
  } else {
    mine["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
  }
  lease["spec"] = mine;
  // The resourceVersion read above makes this a compare-and-swap.
  auto put =
      client_.Request("PUT", absl::StrCat(Path(), "/", name_), lease.dump());
  if (!put.ok()) return put.status();
  if (put->status == 409) return false;
  if (put->status != 200) return Unexpected("update", *put);
  record_ = mine.dump();
  record_seen_at_ = now;
  holder_ = identity_;
  return true;
}

absl::Status LeaderLease::Release() {
  auto got = client_.Request("GET", absl::StrCat(Path(), "/", name_));
  if (!got.ok()) return got.status();
  if (got->status != 200) return Unexpected("read", *got);
  json lease = json::parse(got->body, nullptr, /*allow_exceptions=*/false);
  if (!lease.is_object() ||
      lease["spec"].value("holderIdentity", "") != identity_) {
    return absl::OkStatus();  // not ours
  }
  lease["spec"]["holderIdentity"] = "";
  auto put =
      client_.Request("PUT", absl::StrCat(Path(), "/", name_), lease.dump());
  if (!put.ok()) return put.status();
  if (put->status != 200) return Unexpected("release", *put);
  holder_.clear();
  return absl::OkStatus();
}

}  // namespace shoal::kube
