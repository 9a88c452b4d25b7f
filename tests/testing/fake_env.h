// SPDX-License-Identifier: Apache-2.0
// An environment for the option parsers' tests: the variables they are given, nothing of
// the process's own.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "lance/io/credentials.h"

namespace lance::testing {

/// An EnvLookup that sees exactly `vars`.
inline io::EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace lance::testing
