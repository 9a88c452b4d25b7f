// SPDX-License-Identifier: Apache-2.0
// The CLI's verb table. Each verb lives in commands/<verb>.cc and registers itself
// through a function listed in command.cc (no static initializers). Arguments are parsed
// by the parser shared with tools/ (args/arg_parser.h).
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "args/arg_parser.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::cli {

/// \brief Where a verb writes. Data goes to `out` only; logs and progress to `err`.
struct Streams {
  std::FILE* out;
  std::FILE* err;
};

struct Command {
  std::string name;
  std::string summary;
  std::string usage;  ///< e.g. "count URI"
  std::vector<OptionSpec> options;
  /// Returns the process exit code; errors are printed by the runner from the Status.
  std::function<Status(const Args&, const Streams&)> run;
};

/// \brief Options every verb accepts.
const std::vector<OptionSpec>& GlobalOptions();
/// \brief Every verb, in help order.
const std::vector<Command>& Commands();

/// \brief Runs the CLI; returns the process exit code (0 ok, 1 failure, 2 usage error).
int Main(const std::vector<std::string>& argv, const Streams& streams);

}  // namespace lance::cli
