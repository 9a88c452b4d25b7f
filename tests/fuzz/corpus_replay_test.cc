// SPDX-License-Identifier: Apache-2.0
// Replays the committed seed corpus (tests/fuzz/corpus/<name>/) and every input a fuzzer
// once crashed on (tests/fuzz/regressions/<name>/) through the same target bodies as
// the libFuzzer binaries, here under gcc (and ASan+UBSan in the sanitizer build). An
// input passes when the body returns, whatever the Status: the regressions are bad
// inputs that must fail cleanly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_entries.h"

namespace lance::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class CorpusReplay : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(CorpusReplay, SeedCorpus) {
  const FuzzTarget& target = GetParam();
  const auto files = FilesIn(fs::path(LANCE_FUZZ_DIR) / "corpus" / target.name);
  // Every target has a seed corpus, and some of it is valid input (seeds that all fail
  // would mean the target no longer reaches past the first check).
  ASSERT_GE(files.size(), 3u) << target.name;
  size_t ok = 0;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    Status st = target.fn(ReadAll(file));
    if (st.ok()) {
      ++ok;
    } else if (std::getenv("LANCE_FUZZ_VERBOSE") != nullptr) {
      std::printf("%s: %s\n", file.filename().c_str(), st.ToString().c_str());
    }
  }
  std::printf("%s: %zu of %zu seeds parse\n", target.name, ok, files.size());
  EXPECT_GT(ok, 0u) << "no seed of " << target.name << " parses";
}

TEST_P(CorpusReplay, Regressions) {
  const FuzzTarget& target = GetParam();
  for (const auto& file :
       FilesIn(fs::path(LANCE_FUZZ_DIR) / "regressions" / target.name)) {
    SCOPED_TRACE(file.string());
    (void)target.fn(ReadAll(file));
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, CorpusReplay, ::testing::ValuesIn(AllFuzzTargets()),
                         [](const ::testing::TestParamInfo<FuzzTarget>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace lance::fuzz
