// SPDX-License-Identifier: Apache-2.0
// libFuzzer target "s3_xml": the body is lance::fuzz::FuzzS3Xml (entries/), which the
// corpus replay test calls too. Run through scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)lance::fuzz::FuzzS3Xml(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
