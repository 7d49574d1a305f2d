// Dominant resource fairness between jobs: the job with the smallest
// dominant share goes first, and a job may preempt one whose share stays
// higher afterwards.
#ifndef SHOAL_PLUGINS_DRF_DRF_H_
#define SHOAL_PLUGINS_DRF_DRF_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/framework/arguments.h"
#include "scheduler/framework/plugin.h"

namespace shoal::plugins::drf {

absl::StatusOr<std::unique_ptr<framework::Plugin>> New(
    const framework::Arguments& args);

}  // namespace shoal::plugins::drf

#endif  // SHOAL_PLUGINS_DRF_DRF_H_
