// SPDX-License-Identifier: Apache-2.0
// lance-cpp scan URI: rows as an aligned table or as JSON lines.
#include <string>
#include <vector>

#include "command.h"
#include "commands/common.h"
#include "lib/cli_options.h"
#include "lib/table_printer.h"
#include "lib/value_format.h"

namespace lance::cli {

namespace {

// Table cells longer than this are cut ("..."); JSON lines are never cut.
constexpr size_t kMaxTableCell = 60;

// Right-aligned columns: numbers, decimals, durations, and dictionaries of those.
bool IsNumeric(const DataType& type) {
  if (type.id() == TypeId::kDictionary) return IsNumeric(*type.value_type());
  return type.is_integer() || type.is_floating() || type.is_decimal() ||
         type.id() == TypeId::kDuration;
}

Status RunScan(const Args& args, const Streams& s) {
  auto target = TargetFromArgs(args, {});
  if (!target.ok()) return target.status();
  const std::string format =
      args.Get("format").value_or(args.Has("json") ? "jsonl" : "table");
  if (format != "table" && format != "jsonl") {
    return Status::Invalid("--format must be table or jsonl");
  }
  ScanOptions options;
  if (args.Has("columns")) {
    auto columns = ParseColumnList(args.GetAll("columns"));
    if (!columns.ok()) return columns.status();
    options.columns = std::move(*columns);
  }
  options.filter = args.Get("where").value_or("");
  if (auto limit = args.Get("limit")) {
    auto n = ParseCount(*limit, "limit");
    if (!n.ok()) return n.status();
    options.limit = *n;
  }
  if (auto offset = args.Get("offset")) {
    auto n = ParseCount(*offset, "offset");
    if (!n.ok()) return n.status();
    options.offset = *n;
  }
  if (auto batch = args.Get("batch-size")) {
    auto n = ParseCount(*batch, "batch-size");
    if (!n.ok()) return n.status();
    if (*n == 0) return Status::Invalid("--batch-size must be positive");
    options.batch_size = *n;
  }
  auto dataset = OpenTarget(*target, args);
  if (!dataset.ok()) return dataset.status();
  auto reader = (*dataset)->Scan(options);
  if (!reader.ok()) return reader.status();
  SchemaPtr schema = (*reader)->schema();

  std::vector<std::string> header;
  std::vector<bool> right;
  for (const auto& f : schema->fields()) {
    header.push_back(f->name());
    right.push_back(IsNumeric(*f->type()));
  }
  TablePrinter table(header, right, kMaxTableCell);
  int64_t rows = 0;
  std::string out;
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) return batch.status();
    if (*batch == nullptr) break;
    const RecordBatch& b = **batch;
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      if (format == "jsonl") {
        AppendJsonRow(b, r, &out);
        out.push_back('\n');
      } else {
        std::vector<std::string> cells;
        cells.reserve(static_cast<size_t>(b.num_columns()));
        for (int c = 0; c < b.num_columns(); ++c) {
          cells.push_back(FormatTextValue(*b.column(c), r));
        }
        table.AddRow(std::move(cells));
      }
    }
    rows += b.num_rows();
    if (format == "jsonl") {
      // Stream JSON lines batch by batch.
      if (Status st = Emit(s.out, out); !st.ok()) return st;
      out.clear();
    }
  }
  if (format == "table") {
    if (Status st = Emit(s.out, table.Render()); !st.ok()) return st;
    std::fprintf(s.err, "(%lld row%s)\n", static_cast<long long>(rows),
                 rows == 1 ? "" : "s");
  }
  return FlushOut(s);
}

}  // namespace

Command MakeScanCommand() {
  Command command{
      "scan",
      "Print rows as an aligned table (default) or as JSON lines (--format jsonl, or "
      "--json): one object per row, keys in schema order, exact values (see "
      "docs/cli.md).",
      "scan URI [--columns a,b] [--where PRED] [--limit N] [--offset N] [--version N] "
      "[--format table|jsonl]" + NamespaceUsage(),
      {{"columns", true, true, "comma-separated columns to print, in this order"},
       WhereOptionSpec("only rows matching this predicate"),
       {"limit", true, false, "print at most N rows"},
       {"offset", true, false, "skip the first N rows"},
       VersionOptionSpec(),
       {"format", true, false, "table (default) or jsonl"},
       {"batch-size", true, false, "rows per read batch (default 8192)"},
       StorageOptionSpec()},
      RunScan};
  AddNamespaceOptions(&command);
  return command;
}

}  // namespace lance::cli
