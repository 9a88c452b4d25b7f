// SPDX-License-Identifier: Apache-2.0
// lance-cpp import FILE URI: CSV, JSON lines or Arrow IPC into a dataset (create,
// append, overwrite), streamed: the input is read in chunks and its batches go to the
// dataset writer as they are made, with a progress bar on a terminal.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/str_cat.h"
#include "lib/cli_options.h"
#include "lib/importer.h"
#include "lib/input_source.h"
#include "lib/ipc_input.h"
#include "lib/json.h"
#include "lib/progress.h"
#include "lib/scalar_codec.h"
#include "lib/schema_spec.h"

namespace lance::cli {

namespace {

Status RunImport(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {"FILE"}));
  const std::string& file = args.positionals[0];

  ImportOptions options;
  LANCE_ASSIGN_OR_RAISE(options.format, InputFormatFrom(args, file));
  if (options.format == InputFormat::kParquet) {
    return Status::NotImplemented(
        "cannot read ", JsonQuote(file),
        ": Parquet input is not supported, this build has no Parquet library (Debian 12 "
        "packages none); convert it to Arrow IPC, CSV or JSON lines first");
  }
  const bool text_input = IsTextFormat(options.format);
  if (auto rows = args.Get("infer-rows")) {
    auto n = ParseInteger<int64_t>(*rows);
    if (!n.ok() || *n < 1) {
      return Status::Invalid("--infer-rows must be a positive number of rows, got ",
                             JsonQuote(*rows));
    }
    options.infer_rows = *n;
    options.infer_bytes = 0;  // the rows asked for, however many bytes they take
  }
  if (!text_input && args.Get("schema")) {
    return Status::Invalid(
        "--schema applies to CSV and JSON lines; Arrow IPC input "
        "carries its own schema");
  }

  WriteParams params;
  // ParseWriteMode takes exactly the mode's name, so the text is also what the summary
  // prints.
  const std::string mode_name = args.Get("mode").value_or("create");
  LANCE_ASSIGN_OR_RAISE(params.mode, ParseWriteMode(mode_name));
  LANCE_ASSIGN_OR_RAISE(params.access.storage_options,
                        TargetStorageOptions(target, args));
  if (auto dsv = args.Get("data-storage-version")) params.data_storage_version = *dsv;
  if (auto rows = args.Get("max-rows-per-file")) {
    auto n = ParseInteger<int64_t>(*rows);
    if (!n.ok() || *n < 1) {
      return Status::Invalid(
          "--max-rows-per-file must be a positive number of rows, got ",
          JsonQuote(*rows));
    }
    params.max_rows_per_file = *n;
  }

  if (auto schema_path = args.Get("schema")) {
    LANCE_ASSIGN_OR_RAISE(auto text, ReadInputFile(*schema_path));
    LANCE_ASSIGN_OR_RAISE(auto schema, ParseSchemaJson(text));
    options.schema = schema;
  } else if (text_input && params.mode == WriteMode::kAppend) {
    // Appending without --schema: read values as the dataset's own columns.
    auto existing = OpenTarget(target, args);
    if (existing.ok()) {
      options.schema = (*existing)->schema();
    } else if (!existing.status().IsNotFound()) {
      return existing.status();
    }
  }

  // The input is read in chunks (CSV, JSON lines, the IPC stream format) or by blocks
  // (the IPC file format) while the writer pulls batches: nothing accumulates.
  LANCE_ASSIGN_OR_RAISE(auto source, FileSource::Open(file));
  std::unique_ptr<RecordBatchReader> reader;
  if (text_input) {
    LANCE_ASSIGN_OR_RAISE(reader, ImportReader::Make(source.get(), options));
  } else if (options.format == InputFormat::kArrowStream) {
    LANCE_ASSIGN_OR_RAISE(reader, OpenIpcStreamInput(source.get()));
  } else {
    LANCE_ASSIGN_OR_RAISE(reader, OpenIpcInput(source.get()));
  }
  // The bar goes to stderr only when it is a terminal (never into a pipe or a file).
  ProgressBar bar(s.err, !args.Has("quiet") && IsTerminal(s.err), "importing",
                  source->size());
  FileSource* counted = source.get();
  ProgressReader progress(reader.get(), &bar,
                          [counted] { return counted->bytes_read(); });
  // Through a namespace, create declares the table (one declare_table) and append /
  // overwrite locate it (one describe_table), as the library's WriteDataset does.
  auto written = target.via_namespace()
                     ? ns::WriteDataset(progress, target.ns, target.table_id, params)
                     : Dataset::Write(progress, target.uri, params);
  bar.Finish();
  LANCE_ASSIGN_OR_RAISE(auto dataset, std::move(written));
  const int64_t rows = progress.rows();
  const uint64_t version = dataset->version();
  std::fprintf(s.err, "imported %lld row%s into %s (%s, version %llu)\n",
               static_cast<long long>(rows), rows == 1 ? "" : "s", target.Label().c_str(),
               mode_name.c_str(), static_cast<unsigned long long>(version));
  return EmitResultJson(
      args, target, *dataset,
      {{"mode", mode_name}, {"rows_written", rows}, {"version", version}}, s);
}

}  // namespace

Command MakeImportCommand() {
  return WithNamespaceOptions(Command{
      "import",
      "Write CSV, JSON lines or Arrow IPC (FILE, or - for stdin) to a dataset, "
      "streamed with bounded memory. The format comes from the extension (.csv, "
      ".jsonl, .ndjson, .json, .arrow, .ipc, .feather, .arrows) unless --format is "
      "given; without --schema, CSV and JSON types are inferred from the first "
      "20480 rows (at most 16 MiB; appends use the dataset's schema). Shows a "
      "progress bar on stderr when it is a terminal (--quiet: none); prints a summary "
      "to stderr; --json prints it as JSON to stdout.",
      "import FILE URI [--mode create|append|overwrite] [--schema SCHEMA.json] "
      "[--format csv|jsonl|arrow|arrows] [--infer-rows N] [--quiet] [--max-rows-per-file "
      "N]" +
          NamespaceUsage(),
      {{"mode", true, false, "create (default), append or overwrite"},
       {"schema", true, false, "JSON schema file: [{\"name\", \"type\", \"nullable\"}]"},
       {"format", true, false,
        "csv, jsonl, arrow (IPC file or stream) or arrows (IPC stream); default: from "
        "the file extension"},
       {"infer-rows", true, false,
        "infer CSV / JSON types from the first N rows (default 20480, within 16 MiB)"},
       {"quiet", false, false, "no progress bar"},
       {"max-rows-per-file", true, false,
        "rows per data file (fragment) before a new one starts (default 1048576)"},
       {"data-storage-version", true, false,
        "file format of a new dataset: 2.0, 2.1, 2.2 or stable (default 2.2, as pylance "
        "14); "
        "appends keep the dataset's own"},
       StorageOptionSpec()},
      RunImport});
}

}  // namespace lance::cli
