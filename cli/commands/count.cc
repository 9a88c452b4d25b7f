// SPDX-License-Identifier: Apache-2.0
// lance-cpp count URI: the number of rows, and nothing else on stdout.
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"

namespace lance::cli {

namespace {

Status RunCount(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {}));
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenTarget(target, args));
  LANCE_ASSIGN_OR_RAISE(auto rows, dataset->CountRows(args.Get("where").value_or("")));
  return EmitAndFlush(s, std::to_string(rows) + "\n");
}

}  // namespace

Command MakeCountCommand() {
  return WithNamespaceOptions(Command{
      "count",
      "Print the number of rows (matching --where) as a bare integer.",
      "count URI [--where PRED] [--version N]" + NamespaceUsage(),
      {WhereOptionSpec("count only rows matching this predicate, e.g. \"x > 10\""),
       VersionOptionSpec(), StorageOptionSpec()},
      RunCount});
}

}  // namespace lance::cli
