// SPDX-License-Identifier: Apache-2.0
// The CLI's verb table and argument model. Each verb lives in commands/<verb>.cc and
// registers itself through a function listed in command.cc (no static initializers).
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lance/result.h"
#include "lance/status.h"

namespace lance::cli {

/// \brief One option a verb accepts ("--columns a,b"). Flags take no value.
struct OptionSpec {
  std::string name;  ///< without the leading dashes
  bool takes_value = false;
  bool repeatable = false;
  std::string help;
};

/// \brief Parsed command line: positionals in order, options by name (repeatable ones keep
/// every value in order). Options may appear before or after positionals; "--" ends them.
struct Args {
  std::vector<std::string> positionals;
  std::map<std::string, std::vector<std::string>> options;

  bool Has(const std::string& name) const { return options.count(name) > 0; }
  /// \brief The last value given for `name`, if any.
  std::optional<std::string> Get(const std::string& name) const;
  const std::vector<std::string>& GetAll(const std::string& name) const;
};

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

/// \brief Parses argv against `specs`. Unknown options and missing values are Invalid.
Result<Args> ParseArgs(const std::vector<std::string>& argv,
                       const std::vector<OptionSpec>& specs);

/// \brief Runs the CLI; returns the process exit code (0 ok, 1 failure, 2 usage error).
int Main(const std::vector<std::string>& argv, const Streams& streams);

}  // namespace lance::cli
