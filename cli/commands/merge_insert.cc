// SPDX-License-Identifier: Apache-2.0
// lance-cpp merge-insert URI --on KEY --input FILE: upsert CSV / JSON lines into a
// dataset (Lance's merge_insert; see docs/mutations.md).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lance/str_cat.h"
#include "lib/cli_options.h"
#include "lib/importer.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

Status RunMergeInsert(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {}));
  const std::vector<std::string>& on = args.GetAll("on");
  if (on.empty())
    return Status::Invalid("--on KEY is required (repeat it for several keys)");
  const std::string input = args.Get("input").value_or("");
  if (input.empty()) return Status::Invalid("--input FILE is required (- for stdin)");

  ImportOptions options;
  LANCE_ASSIGN_OR_RAISE(options.format, InputFormatFrom(args, input));
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenTarget(target, args));
  LANCE_ASSIGN_OR_RAISE(std::string text, ReadInputFile(input));
  // The input's columns, typed as the dataset types them (others as inferred: the
  // merge names them as unknown).
  LANCE_ASSIGN_OR_RAISE(SchemaPtr inferred, InferSchema(text, options.format));
  std::vector<FieldPtr> fields;
  for (const FieldPtr& f : inferred->fields()) {
    const int index = dataset->schema()->GetFieldIndex(f->name());
    fields.push_back(index >= 0 ? dataset->schema()->field(index) : f);
  }
  options.schema = std::make_shared<Schema>(fields);

  MergeInsertBuilder builder = dataset->MergeInsert(on);
  const std::string matched = args.Get("when-matched").value_or("update-all");
  if (matched == "update-all") {
    builder.WhenMatchedUpdateAll(args.Get("when-matched-where").value_or(""));
  } else if (matched == "do-nothing") {
    builder.WhenMatchedDoNothing();
  } else if (matched == "delete") {
    builder.WhenMatchedDelete();
  } else if (matched == "fail") {
    builder.WhenMatchedFail();
  } else {
    return Status::Invalid(
        "--when-matched takes update-all, do-nothing, delete or fail (got '", matched,
        "')");
  }
  const std::string not_matched = args.Get("when-not-matched").value_or("insert-all");
  if (not_matched == "insert-all") {
    builder.WhenNotMatchedInsertAll();
  } else if (not_matched == "do-nothing") {
    builder.WhenNotMatchedDoNothing();
  } else {
    return Status::Invalid("--when-not-matched takes insert-all or do-nothing (got '",
                           not_matched, "')");
  }
  if (args.Has("delete-not-matched-by-source") ||
      args.Has("not-matched-by-source-where")) {
    builder.WhenNotMatchedBySourceDelete(
        args.Get("not-matched-by-source-where").value_or(""));
  }
  // The input is parsed again for each attempt (a retry after a conflict).
  MergeSourceFactory factory = [&]() -> Result<RecordBatchReaderPtr> {
    LANCE_ASSIGN_OR_RAISE(auto reader, ImportReader::Make(text, options));
    return RecordBatchReaderPtr(std::move(reader));
  };
  LANCE_ASSIGN_OR_RAISE(MergeInsertResult r, builder.Execute(factory));
  std::fprintf(
      s.err, "merged into %s: %llu inserted, %llu updated, %llu deleted (version %llu)\n",
      target.Label().c_str(), static_cast<unsigned long long>(r.num_inserted_rows),
      static_cast<unsigned long long>(r.num_updated_rows),
      static_cast<unsigned long long>(r.num_deleted_rows),
      static_cast<unsigned long long>(dataset->version()));
  return EmitResultJson(args, target, *dataset,
                        {{"num_inserted_rows", r.num_inserted_rows},
                         {"num_updated_rows", r.num_updated_rows},
                         {"num_deleted_rows", r.num_deleted_rows},
                         {"num_attempts", r.num_attempts},
                         {"version", dataset->version()}},
                        s);
}

}  // namespace

Command MakeMergeInsertCommand() {
  return WithNamespaceOptions(Command{
      "merge-insert",
      "Merge CSV or JSON lines (--input FILE, - for stdin; the formats `import` reads) "
      "into a dataset on the key columns --on: matched rows are updated (or kept, "
      "deleted, refused), new rows inserted, and optionally rows the input lacks "
      "deleted. Defaults: --when-matched update-all --when-not-matched insert-all (an "
      "upsert). Prints the counts and the new version to stderr (--json: to stdout).",
      "merge-insert URI --on KEY [--on KEY2] --input FILE "
      "[--when-matched update-all|do-nothing|delete|fail] "
      "[--when-not-matched insert-all|do-nothing] [--delete-not-matched-by-source] "
      "[--not-matched-by-source-where EXPR]" +
          NamespaceUsage(),
      {{"on", true, true, "a key column"},
       {"input", true, false, "CSV or JSON lines file, - for stdin"},
       {"format", true, false, "csv or jsonl (default: from the file extension)"},
       {"when-matched", true, false, "update-all (default), do-nothing, delete or fail"},
       {"when-matched-where", true, false,
        "update only matched rows where this holds (over source.COL / target.COL)"},
       {"when-not-matched", true, false, "insert-all (default) or do-nothing"},
       {"delete-not-matched-by-source", false, false,
        "delete the dataset's rows the input has no match for"},
       {"not-matched-by-source-where", true, false,
        "... only those matching this predicate (implies the flag above)"},
       StorageOptionSpec()},
      RunMergeInsert});
}

}  // namespace lance::cli
