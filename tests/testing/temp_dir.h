// SPDX-License-Identifier: Apache-2.0
// A unique temporary directory removed (recursively) when it goes out of scope.
#pragma once

#include <string>

namespace lance::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  /// path() + "/" + name
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace lance::testing
