// SPDX-License-Identifier: Apache-2.0
#include "tests/testing/temp_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace lance::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/lance-test-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) std::abort();  // a test cannot proceed without it
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace lance::testing
