// SPDX-License-Identifier: Apache-2.0
// Pieces every verb uses: the shared options, opening a dataset from them, and writing
// to stdout with error checks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "lance/dataset/dataset.h"
#include "lance/io/storage_options.h"
#include "lance/namespace/namespace.h"
#include "lib/importer.h"
#include "lib/json.h"

namespace lance::cli {

/// \brief --storage-option KEY=VALUE (repeatable).
OptionSpec StorageOptionSpec();
/// \brief --version N: read that dataset version instead of the latest.
OptionSpec VersionOptionSpec();
/// \brief --where PRED.
OptionSpec WhereOptionSpec(const std::string& help);

/// \brief Exactly `names.size()` positionals, else Invalid naming what is missing/extra.
Status ExpectPositionals(const Args& args, const std::vector<std::string>& names);

Result<io::StorageOptions> StorageOptionsFrom(const Args& args);
Result<std::optional<uint64_t>> VersionFrom(const Args& args);

/// \brief Opens `uri` at --version (latest without it) with --storage-option values.
Result<std::shared_ptr<Dataset>> OpenFromArgs(const std::string& uri, const Args& args);

// -- Datasets addressed through a Lance Namespace
// ------------------------------------------
//
// Every dataset verb takes, in place of its URI positional,
//   --namespace IMPL --ns-prop KEY=VALUE ... --table-id PART [--table-id PART ...]
// (Lance's connect arguments and a multi-level table id as repeated parts).

/// \brief --namespace, --ns-prop (repeatable), --table-id (repeatable).
std::vector<OptionSpec> NamespaceOptionSpecs();
/// \brief Appends NamespaceOptionSpecs() to a verb's options.
void AddNamespaceOptions(Command* command);
/// \brief `command` with NamespaceOptionSpecs() appended: the dataset verbs' Make*.
Command WithNamespaceOptions(Command command);
/// \brief The usage tail of a verb whose URI may be replaced by a namespace table.
std::string NamespaceUsage();

/// \brief Where a verb's dataset is: a URI, or a table of a namespace.
struct DatasetTarget {
  /// \brief The URI (empty when through a namespace).
  std::string uri;
  std::shared_ptr<ns::LanceNamespace> ns;
  ns::Identifier table_id;
  /// \brief --ns-prop values (contain secrets: print only through StorageOptionsText /
  /// StorageOptionsJson).
  ns::Properties ns_props;

  bool via_namespace() const { return ns != nullptr; }
  /// \brief For messages: the redacted URI, or "table a$b of DirectoryNamespace {...}".
  std::string Label() const;
};

/// \brief The storage options a verb uses for `target`: --storage-option values, over
/// (for a `dir` namespace) its `storage.KEY` properties. A directory namespace keeps its
/// own credentials to itself (it answers none, or vended ones); the CLI built it and may
/// use them as its own.
Result<io::StorageOptions> TargetStorageOptions(const DatasetTarget& target,
                                                const Args& args);

/// \brief The target of a verb whose positionals are `leading` (e.g. {"FILE"}) followed
/// by URI. With --namespace the URI must be absent; --table-id is required; --ns-prop and
/// --table-id without --namespace, an unknown implementation or bad properties are
/// Invalid (usage errors). Connecting makes no table call.
Result<DatasetTarget> TargetFromArgs(const Args& args,
                                     const std::vector<std::string>& leading);

/// \brief Opens the target at --version with --storage-option values: Dataset::Open for a
/// URI; ns::OpenDataset (one describe_table) for a namespace table.
Result<std::shared_ptr<Dataset>> OpenTarget(const DatasetTarget& target,
                                            const Args& args);

/// \brief Adds the members naming the target to `out`: "uri" (the dataset's location,
/// redacted) and, through a namespace, "table_id": [...].
void AddTargetJson(const DatasetTarget& target, const Dataset& dataset, JsonDoc* out);

/// \brief --columns a,b (repeatable): the row verbs' choice of columns.
OptionSpec ColumnsOptionSpec();
/// \brief --format table|jsonl: how the row verbs print.
OptionSpec RowFormatOptionSpec();
/// \brief The --columns list (ParseColumnList); empty, meaning all columns, without it.
Result<std::vector<std::string>> ColumnsFrom(const Args& args);
/// \brief --format table|jsonl (or --json): how row verbs print. \return Invalid
/// otherwise.
Result<std::string> RowFormatFrom(const Args& args);
/// \brief Prints every row of `reader`: an aligned table (cells cut at 60 characters, row
/// count on stderr) or JSON lines streamed batch by batch (never cut).
Status PrintRows(RecordBatchReader& reader, const std::string& format, const Streams& s);

/// \brief Writes all of `text` to `stream`. \return IOError if the write fails.
Status Emit(std::FILE* stream, std::string_view text);
/// \brief Flushes stdout. \return IOError if that fails (e.g. disk full).
Status FlushOut(const Streams& s);
/// \brief Writes `text` to stdout and flushes it: how a verb ends, so that a full disk
/// is its error rather than lost output.
Status EmitAndFlush(const Streams& s, std::string_view text);
/// \brief EmitAndFlush of `doc` as one JSON line.
Status EmitJsonLine(const Streams& s, const JsonDoc& doc);
/// \brief How the writing verbs (import, delete, update, merge-insert) end once they have
/// told stderr what they did: with --json, one JSON line of the target's members
/// (AddTargetJson) followed by `fields`, in their order; stdout is flushed either way.
Status EmitResultJson(const Args& args, const DatasetTarget& target,
                      const Dataset& dataset, const JsonDoc& fields, const Streams& s);

/// \brief Commit time (ms since the epoch) as ISO-8601 UTC with milliseconds.
std::string FormatCommitTime(int64_t timestamp_ms);

/// \brief The storage options as a JSON object with secret values redacted.
JsonDoc StorageOptionsJson(const io::StorageOptions& options);
/// \brief "k=v, k2=<redacted>".
std::string StorageOptionsText(const io::StorageOptions& options);

// -- input files (import, merge-insert) ------------------------------------------------
/// \brief The whole of `path` ("-" for stdin). \return NotFound / IOError naming it.
Result<std::string> ReadInputFile(const std::string& path);
/// \brief --format (csv, jsonl), else the format of `path`'s extension; stdin ("-")
/// needs --format. \return Invalid otherwise.
Result<InputFormat> InputFormatFrom(const Args& args, const std::string& path);

}  // namespace lance::cli
