// SPDX-License-Identifier: Apache-2.0
// The parameters of the DirectoryNamespace suites: both layouts (plain directories, the
// manifest table) on both kinds of root (a local directory, a memory:// root).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "tests/testing/temp_dir.h"

namespace lance::testing {

enum class RootKind { kLocal, kMemory };
struct LayoutParam {
  bool manifest;
  RootKind root;
};

inline std::string LayoutName(const ::testing::TestParamInfo<LayoutParam>& info) {
  return std::string(info.param.manifest ? "Manifest" : "Plain") +
         (info.param.root == RootKind::kLocal ? "Local" : "Memory");
}

/// Every layout on every kind of root.
inline std::vector<LayoutParam> AllLayouts() {
  return {{false, RootKind::kLocal},
          {true, RootKind::kLocal},
          {false, RootKind::kMemory},
          {true, RootKind::kMemory}};
}

/// A suite run in every layout: root_, a fresh root of the kind of the parameter
/// ("<tmp>/ns", or "memory://<tag>-<pid>-<n>/root").
class LayoutTest : public ::testing::TestWithParam<LayoutParam> {
 protected:
  explicit LayoutTest(std::string memory_tag) : memory_tag_(std::move(memory_tag)) {}

  void SetUp() override {
    static std::atomic<int> counter{0};
    root_ = local() ? tmp_.Join("ns")
                    : "memory://" + memory_tag_ + "-" + std::to_string(::getpid()) + "-" +
                          std::to_string(counter++) + "/root";
  }

  bool manifest() const { return GetParam().manifest; }
  bool local() const { return GetParam().root == RootKind::kLocal; }

  TempDir tmp_;
  std::string root_;

 private:
  std::string memory_tag_;
};

}  // namespace lance::testing
