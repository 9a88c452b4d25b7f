// SPDX-License-Identifier: Apache-2.0
// lance-cpp delete URI --where PRED: delete matching rows, committing a new version.
#include <cstdio>
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/cli_options.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

Status RunDelete(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {}));
  const std::string predicate = args.Get("where").value_or("");
  if (predicate.empty()) {
    return Status::Invalid("--where is required (to delete every row use --where true)");
  }
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenTarget(target, args));
  Dataset& ds = *dataset;
  LANCE_ASSIGN_OR_RAISE(auto before, ds.CountRows());
  LANCE_RETURN_NOT_OK(ds.Delete(predicate));
  LANCE_ASSIGN_OR_RAISE(auto after, ds.CountRows());
  const int64_t deleted = before - after;
  std::fprintf(s.err, "deleted %lld row%s from %s (version %llu)\n",
               static_cast<long long>(deleted), deleted == 1 ? "" : "s",
               target.Label().c_str(), static_cast<unsigned long long>(ds.version()));
  return EmitResultJson(args, target, ds,
                        {{"rows_deleted", deleted}, {"version", ds.version()}}, s);
}

}  // namespace

Command MakeDeleteCommand() {
  return WithNamespaceOptions(Command{
      "delete",
      "Delete the rows matching --where, committing a new version. Prints the number "
      "of rows deleted and the new version to stderr (--json: as JSON to stdout).",
      "delete URI --where PRED" + NamespaceUsage(),
      {WhereOptionSpec("rows to delete (required)"), StorageOptionSpec()},
      RunDelete});
}

}  // namespace lance::cli
