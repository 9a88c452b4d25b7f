// SPDX-License-Identifier: Apache-2.0
// lance-cpp update URI --set COL=EXPR ... [--where PRED]: UPDATE t SET ... WHERE ...,
// committing a new version (Lance's Update operation; see docs/mutations.md).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/cli_options.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

Status RunUpdate(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {}));
  std::vector<std::pair<std::string, std::string>> updates;
  for (const std::string& text : args.GetAll("set")) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("--set takes COLUMN=EXPRESSION (got '", text, "')");
    }
    updates.emplace_back(text.substr(0, eq), text.substr(eq + 1));
  }
  if (updates.empty()) return Status::Invalid("--set COLUMN=EXPRESSION is required");
  UpdateOptions options;
  LANCE_ASSIGN_OR_RAISE(auto retries, args.GetInt("conflict-retries", 0));
  if (retries) options.retry.conflict_retries = static_cast<int>(*retries);
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenTarget(target, args));
  LANCE_ASSIGN_OR_RAISE(
      UpdateResult result,
      dataset->Update(updates, args.Get("where").value_or(""), options));
  std::fprintf(s.err, "updated %llu row%s of %s (version %llu)\n",
               static_cast<unsigned long long>(result.num_rows_updated),
               result.num_rows_updated == 1 ? "" : "s", target.Label().c_str(),
               static_cast<unsigned long long>(dataset->version()));
  return EmitResultJson(
      args, target, *dataset,
      {{"num_rows_updated", result.num_rows_updated}, {"version", dataset->version()}},
      s);
}

}  // namespace

Command MakeUpdateCommand() {
  return WithNamespaceOptions(Command{
      "update",
      "Set columns to SQL expressions of the old row (UPDATE ... SET ... WHERE ...), "
      "committing a new version; only fragments holding matched rows are rewritten. "
      "Prints the number of rows updated and the new version to stderr (--json: as "
      "JSON to stdout).",
      "update URI --set COL=EXPR [--set COL=EXPR ...] [--where PRED]" + NamespaceUsage(),
      {{"set", true, true, "COL=EXPR: the new value of a column"},
       WhereOptionSpec("rows to update (default: every row)"),
       {"conflict-retries", true, false,
        "re-plans after a retryable commit conflict (default 10)"},
       StorageOptionSpec()},
      RunUpdate});
}

}  // namespace lance::cli
