// SPDX-License-Identifier: Apache-2.0
// libFuzzer target "rest_request": the body is lance::fuzz::FuzzRestRequest (entries/),
// which the corpus replay test calls too. Run through scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)lance::fuzz::FuzzRestRequest(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
