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

// The whole of `path` ("-" for stdin).
Result<std::string> ReadInput(const std::string& path) {
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    std::string msg = "cannot open " + JsonQuote(path) + ": " + std::strerror(err);
    return err == ENOENT ? Status::NotFound(msg) : Status::IOError(msg);
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  if (f != stdin) std::fclose(f);
  if (failed) {
    return Status::IOError(
        StrCat("cannot read ", JsonQuote(path), ": ", std::strerror(err)));
  }
  return text;
}

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
  if (auto format = args.Get("format")) {
    LANCE_ASSIGN_OR_RAISE(auto parsed, ParseInputFormat(*format));
    options.format = parsed;
  } else if (file == "-") {
    return Status::Invalid("reading stdin ('-') needs --format csv or --format jsonl");
  } else {
    LANCE_ASSIGN_OR_RAISE(auto parsed, InputFormatFromPath(file));
    options.format = parsed;
  }

  WriteParams params;
  LANCE_ASSIGN_OR_RAISE(auto mode, ParseWriteMode(args.Get("mode").value_or("create")));
  params.mode = mode;
  auto storage = StorageOptionsFrom(args);
  if (!storage.ok()) return storage.status();
  params.access.storage_options = *storage;
  if (auto dsv = args.Get("data-storage-version")) params.data_storage_version = *dsv;

  if (auto schema_path = args.Get("schema")) {
    LANCE_ASSIGN_OR_RAISE(auto text, ReadInput(*schema_path));
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

  LANCE_ASSIGN_OR_RAISE(auto text, ReadInput(file));
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
