// SPDX-License-Identifier: Apache-2.0
// lance-cpp scan URI: rows as an aligned table or as JSON lines.
#include <string>
#include <vector>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/cli_options.h"

namespace lance::cli {

namespace {

Status RunScan(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {}));
  LANCE_ASSIGN_OR_RAISE(auto format, RowFormatFrom(args));
  ScanOptions options;
  LANCE_ASSIGN_OR_RAISE(options.columns, ColumnsFrom(args));
  options.filter = args.Get("where").value_or("");
  if (auto limit = args.Get("limit")) {
    LANCE_ASSIGN_OR_RAISE(auto n, ParseCount(*limit, "limit"));
    options.limit = n;
  }
  if (auto offset = args.Get("offset")) {
    LANCE_ASSIGN_OR_RAISE(auto n, ParseCount(*offset, "offset"));
    options.offset = n;
  }
  if (auto batch = args.Get("batch-size")) {
    LANCE_ASSIGN_OR_RAISE(auto n, ParseCount(*batch, "batch-size"));
    if (n == 0) return Status::Invalid("--batch-size must be positive");
    options.batch_size = n;
  }
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenTarget(target, args));
  LANCE_ASSIGN_OR_RAISE(auto reader, dataset->Scan(options));
  return PrintRows(*reader, format, s);
}

}  // namespace

Command MakeScanCommand() {
  return WithNamespaceOptions(Command{
      "scan",
      "Print rows as an aligned table (default) or as JSON lines (--format jsonl, or "
      "--json): one object per row, keys in schema order, exact values (see "
      "docs/cli.md).",
      "scan URI [--columns a,b] [--where PRED] [--limit N] [--offset N] [--version N] "
      "[--format table|jsonl]" +
          NamespaceUsage(),
      {ColumnsOptionSpec(),
       WhereOptionSpec("only rows matching this predicate"),
       {"limit", true, false, "print at most N rows"},
       {"offset", true, false, "skip the first N rows"},
       VersionOptionSpec(),
       RowFormatOptionSpec(),
       {"batch-size", true, false, "rows per read batch (default 8192)"},
       StorageOptionSpec()},
      RunScan});
}

}  // namespace lance::cli
