// SPDX-License-Identifier: Apache-2.0
// lance-cpp delete URI --where PRED: delete matching rows, committing a new version.
#include <cstdio>
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lib/cli_options.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

Status RunDelete(const Args& args, const Streams& s) {
  auto target = TargetFromArgs(args, {});
  if (!target.ok()) return target.status();
  const std::string predicate = args.Get("where").value_or("");
  if (predicate.empty()) {
    return Status::Invalid("--where is required (to delete every row use --where true)");
  }
  auto dataset = OpenTarget(*target, args);
  if (!dataset.ok()) return dataset.status();
  Dataset& ds = **dataset;
  auto before = ds.CountRows();
  if (!before.ok()) return before.status();
  if (Status st = ds.Delete(predicate); !st.ok()) return st;
  auto after = ds.CountRows();
  if (!after.ok()) return after.status();
  const int64_t deleted = *before - *after;
  std::fprintf(s.err, "deleted %lld row%s from %s (version %llu)\n",
               static_cast<long long>(deleted), deleted == 1 ? "" : "s",
               target->Label().c_str(), static_cast<unsigned long long>(ds.version()));
  if (args.Has("json")) {
    const std::string out = "{" + TargetJsonFields(*target, ds) +
                            ",\"rows_deleted\":" + std::to_string(deleted) +
                            ",\"version\":" + std::to_string(ds.version()) + "}\n";
    if (Status st = Emit(s.out, out); !st.ok()) return st;
  }
  return FlushOut(s);
}

}  // namespace

Command MakeDeleteCommand() {
  Command command{"delete",
          "Delete the rows matching --where, committing a new version. Prints the number "
          "of rows deleted and the new version to stderr (--json: as JSON to stdout).",
          "delete URI --where PRED" + NamespaceUsage(),
          {WhereOptionSpec("rows to delete (required)"), StorageOptionSpec()},
          RunDelete};
  AddNamespaceOptions(&command);
  return command;
}

}  // namespace lance::cli
