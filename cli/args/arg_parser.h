// SPDX-License-Identifier: Apache-2.0
// The one command-line parser of lance-cpp, lance-interop and lance-ns. It knows options
// ("--name", "--name VALUE", "--name=VALUE", repeatable ones) and positionals; what the
// values mean is up to each tool. Public lance/ headers only, so that tools/ may link it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/result.h"
#include "lance/status.h"

namespace lance::cli {

/// \brief One option a command accepts ("--columns a,b"). Flags take no value.
struct OptionSpec {
  std::string name;  ///< without the leading dashes
  bool takes_value = false;
  bool repeatable = false;
  std::string help;
};

/// \brief Parsed command line: positionals in order, options by name (repeatable ones
/// keep every value in order; a flag maps to no values).
struct Args {
  std::vector<std::string> positionals;
  std::map<std::string, std::vector<std::string>> options;

  bool Has(const std::string& name) const { return options.count(name) > 0; }
  /// \brief The last value given for `name`, if any.
  std::optional<std::string> Get(const std::string& name) const;
  /// \brief Every value given for `name`, in order (empty when absent).
  const std::vector<std::string>& GetAll(const std::string& name) const;
  /// \brief The integer value of --name (nullopt when absent). \return Invalid naming the
  /// option when the value is not a decimal integer or is below `min`.
  Result<std::optional<int64_t>> GetInt(const std::string& name, int64_t min) const;
};

/// \brief Parses `argv` against `specs`.
///
/// Options may come before, between or after positionals. "--" ends the options: every
/// later argument is positional, and so is any argument not starting with "--" (a lone
/// "-" or "-x" included). \return Invalid naming the option for an unknown option, a
/// missing value, a value given to a flag, or a non-repeatable option given twice.
Result<Args> ParseArgs(const std::vector<std::string>& argv,
                       const std::vector<OptionSpec>& specs);

/// \brief Help lines for `specs`, one per option: "  --name VALUE   help (repeatable)",
/// the name column `width` characters wide.
std::string FormatOptionHelp(const std::vector<OptionSpec>& specs, int width = 28);

/// \brief Splits "KEY=VALUE" at the first '='. \return Invalid naming `flag` (never the
/// text, which may be a secret) when there is no '=' or the key is empty.
Result<std::pair<std::string, std::string>> SplitKeyValue(std::string_view text,
                                                          std::string_view flag);

}  // namespace lance::cli
