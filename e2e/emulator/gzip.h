// Compresses an answer as kube-apiserver does for large responses: one
// gzip member at level 1 (its responsewriters' defaultGzipContentEncoding
// Level; earlier releases used 4; zlib's default of 6 costs several times
// the CPU for a slightly smaller page).
#ifndef SHOAL_E2E_EMULATOR_GZIP_H_
#define SHOAL_E2E_EMULATOR_GZIP_H_

#include <string>

namespace shoal::emulator {

std::string Gzip(const std::string& data);

}  // namespace shoal::emulator

#endif  // SHOAL_E2E_EMULATOR_GZIP_H_
