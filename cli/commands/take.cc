// SPDX-License-Identifier: Apache-2.0
// lance-cpp take URI --rows 1,5,9: rows by position (random access), as pylance's
// LanceDataset.take.
#include <string>
#include <vector>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/cli_options.h"

namespace lance::cli {

namespace {

Result<std::vector<int64_t>> ParseRows(const std::vector<std::string>& lists) {
  std::vector<int64_t> rows;
  for (const std::string& list : lists) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      const std::string item = list.substr(start, comma - start);
      if (item.empty())
        return Status::Invalid("--rows: empty row position in '", list, "'");
      LANCE_ASSIGN_OR_RAISE(auto n, ParseCount(item, "rows"));
      rows.push_back(n);
      start = comma + 1;
    }
  }
  if (rows.empty()) return Status::Invalid("--rows needs at least one row position");
  return rows;
}

Status RunTake(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {}));
  LANCE_ASSIGN_OR_RAISE(auto format, RowFormatFrom(args));
  if (!args.Has("rows")) return Status::Invalid("take needs --rows N[,N...]");
  LANCE_ASSIGN_OR_RAISE(auto rows, ParseRows(args.GetAll("rows")));
  TakeOptions options;
  LANCE_ASSIGN_OR_RAISE(options.columns, ColumnsFrom(args));
  options.with_row_id = args.Has("with-row-id");
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenTarget(target, args));
  LANCE_ASSIGN_OR_RAISE(auto table, dataset->Take(rows, options));
  auto reader = RecordBatchReader::FromBatches(table->schema(), table->batches());
  return PrintRows(*reader, format, s);
}

}  // namespace

Command MakeTakeCommand() {
  return WithNamespaceOptions(Command{
      "take",
      "Print the rows at the given positions (0-based, among the live rows, in scan "
      "order; any order, repeats allowed), reading only the parts of the data files that "
      "hold them. Output as in scan.",
      "take URI --rows N[,N...] [--columns a,b] [--with-row-id] [--version N] "
      "[--format table|jsonl]" +
          NamespaceUsage(),
      {{"rows", true, true, "comma-separated row positions"},
       ColumnsOptionSpec(),
       {"with-row-id", false, false, "add the _rowid column (row address)"},
       VersionOptionSpec(),
       RowFormatOptionSpec(),
       StorageOptionSpec()},
      RunTake});
}

}  // namespace lance::cli
