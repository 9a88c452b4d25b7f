// SPDX-License-Identifier: Apache-2.0
// lance-cpp import FILE URI: CSV or JSON lines into a dataset (create, append,
// overwrite).
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
#include "lib/json.h"
#include "lib/schema_spec.h"

namespace lance::cli {

namespace {

const char* ModeName(WriteMode mode) {
  switch (mode) {
    case WriteMode::kCreate:
      return "create";
    case WriteMode::kAppend:
      return "append";
    case WriteMode::kOverwrite:
      return "overwrite";
  }
  return "?";
}

Status RunImport(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {"FILE"}));
  const std::string& file = args.positionals[0];

  ImportOptions options;
  LANCE_ASSIGN_OR_RAISE(options.format, InputFormatFrom(args, file));

  WriteParams params;
  LANCE_ASSIGN_OR_RAISE(auto mode, ParseWriteMode(args.Get("mode").value_or("create")));
  params.mode = mode;
  auto storage = StorageOptionsFrom(args);
  if (!storage.ok()) return storage.status();
  params.access.storage_options = *storage;
  if (auto dsv = args.Get("data-storage-version")) params.data_storage_version = *dsv;

  if (auto schema_path = args.Get("schema")) {
    LANCE_ASSIGN_OR_RAISE(auto text, ReadInputFile(*schema_path));
    LANCE_ASSIGN_OR_RAISE(auto schema, ParseSchemaJson(text));
    options.schema = schema;
  } else if (params.mode == WriteMode::kAppend) {
    // Appending without --schema: read values as the dataset's own columns.
    auto existing = OpenTarget(target, args);
    if (existing.ok()) {
      options.schema = (*existing)->schema();
    } else if (!existing.status().IsNotFound()) {
      return existing.status();
    }
  }

  LANCE_ASSIGN_OR_RAISE(auto text, ReadInputFile(file));
  LANCE_ASSIGN_OR_RAISE(auto reader, ImportReader::Make(std::move(text), options));
  // Through a namespace, create declares the table (one declare_table) and append /
  // overwrite locate it (one describe_table), as the library's WriteDataset does.
  LANCE_ASSIGN_OR_RAISE(
      auto dataset, target.via_namespace()
                        ? ns::WriteDataset(*reader, target.ns, target.table_id, params)
                        : Dataset::Write(*reader, target.uri, params));
  const int64_t rows = reader->rows_read();
  const uint64_t version = dataset->version();
  std::fprintf(s.err, "imported %lld row%s into %s (%s, version %llu)\n",
               static_cast<long long>(rows), rows == 1 ? "" : "s", target.Label().c_str(),
               ModeName(params.mode), static_cast<unsigned long long>(version));
  if (args.Has("json")) {
    JsonDoc doc = JsonDoc::object();
    AddTargetJson(target, *dataset, &doc);
    doc["mode"] = ModeName(params.mode);
    doc["rows_written"] = rows;
    doc["version"] = version;
    LANCE_RETURN_NOT_OK(Emit(s.out, DumpJson(doc) + "\n"));
  }
  return FlushOut(s);
}

}  // namespace

Command MakeImportCommand() {
  Command command{
      "import",
      "Write CSV or JSON lines (FILE, or - for stdin) to a dataset. The format comes "
      "from the extension (.csv, .jsonl, .ndjson, .json) unless --format is given; "
      "without --schema, types are inferred (appends use the dataset's schema). "
      "Prints a summary to stderr; --json prints it as JSON to stdout.",
      "import FILE URI [--mode create|append|overwrite] [--schema SCHEMA.json] "
      "[--format csv|jsonl]" +
          NamespaceUsage(),
      {{"mode", true, false, "create (default), append or overwrite"},
       {"schema", true, false, "JSON schema file: [{\"name\", \"type\", \"nullable\"}]"},
       {"format", true, false, "csv or jsonl (default: from the file extension)"},
       {"data-storage-version", true, false,
        "file format of a new dataset: 2.0, 2.1, 2.2 or stable (default 2.2, as pylance "
        "14); "
        "appends keep the dataset's own"},
       StorageOptionSpec()},
      RunImport};
  AddNamespaceOptions(&command);
  return command;
}

}  // namespace lance::cli
