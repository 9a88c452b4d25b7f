// SPDX-License-Identifier: Apache-2.0
// libFuzzer target "predicate": the body is lance::fuzz::FuzzPredicate (entries/), which
// the corpus replay test calls too. Run through scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)lance::fuzz::FuzzPredicate(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
