// SPDX-License-Identifier: Apache-2.0
#include "args/arg_parser.h"

#include <charconv>
#include <cstdio>
#include <system_error>

#include "lance/str_cat.h"

namespace lance::cli {

std::optional<std::string> Args::Get(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

const std::vector<std::string>& Args::GetAll(const std::string& name) const {
  static const std::vector<std::string> kNone;
  auto it = options.find(name);
  return it == options.end() ? kNone : it->second;
}

Result<std::optional<int64_t>> Args::GetInt(const std::string& name, int64_t min) const {
  const std::optional<std::string> text = Get(name);
  if (!text) return std::optional<int64_t>();
  int64_t value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (text->empty() || ec != std::errc() || ptr != end) {
    return Status::Invalid("--", name, " needs an integer, got '", *text, "'");
  }
  if (value < min) return Status::Invalid("--", name, " must be at least ", min);
  return std::optional<int64_t>(value);
}

Result<Args> ParseArgs(const std::vector<std::string>& argv,
                       const std::vector<OptionSpec>& specs) {
  Args args;
  auto find_spec = [&](const std::string& name) -> const OptionSpec* {
    for (const auto& s : specs) {
      if (s.name == name) return &s;
    }
    return nullptr;
  };
  bool options_done = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (!options_done && a == "--") {
      options_done = true;
      continue;
    }
    if (options_done || a.size() < 3 || a.rfind("--", 0) != 0) {
      args.positionals.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const OptionSpec* spec = find_spec(name);
    if (spec == nullptr) return Status::Invalid("unknown option '--", name, "'");
    if (spec->takes_value) {
      if (!value) {
        if (i + 1 >= argv.size())
          return Status::Invalid("option '--", name, "' needs a value");
        value = argv[++i];
      }
      auto& slot = args.options[name];
      if (!spec->repeatable && !slot.empty()) {
        return Status::Invalid("option '--", name, "' given more than once");
      }
      slot.push_back(std::move(*value));
    } else {
      if (value) return Status::Invalid("option '--", name, "' takes no value");
      args.options[name];  // present, no values
    }
  }
  return args;
}

std::string FormatOptionHelp(const std::vector<OptionSpec>& specs, int width) {
  std::string out;
  for (const auto& o : specs) {
    std::string left = StrCat("--", o.name, o.takes_value ? " VALUE" : "");
    if (left.size() < static_cast<size_t>(width))
      left.resize(static_cast<size_t>(width), ' ');
    out += StrCat("  ", left, " ", o.help, o.repeatable ? " (repeatable)" : "", "\n");
  }
  return out;
}

Result<std::pair<std::string, std::string>> SplitKeyValue(std::string_view text,
                                                          std::string_view flag) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Status::Invalid(flag, " needs KEY=VALUE");
  }
  return std::make_pair(std::string(text.substr(0, eq)),
                        std::string(text.substr(eq + 1)));
}

}  // namespace lance::cli
