// SPDX-License-Identifier: Apache-2.0
// lance-cpp compact URI: Lance's compaction (a Rewrite transaction), printing pylance's
// CompactionMetrics as JSON.
#include <cstdlib>
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

Status RunCompact(const Args& args, const Streams& s) {
  LANCE_RETURN_NOT_OK(ExpectPositionals(args, {"URI"}));
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenFromArgs(args.positionals[0], args));
  CompactionOptions o;
  LANCE_ASSIGN_OR_RAISE(auto target, args.GetInt("target-rows-per-fragment", 1));
  if (target) o.target_rows_per_fragment = *target;
  LANCE_ASSIGN_OR_RAISE(auto group, args.GetInt("max-rows-per-group", 1));
  if (group) o.max_rows_per_group = *group;
  if (args.Has("no-materialize-deletions")) o.materialize_deletions = false;
  if (auto t = args.Get("materialize-deletions-threshold")) {
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (t->empty() || end != t->c_str() + t->size() || !(v >= 0.0)) {
      return Status::Invalid("--materialize-deletions-threshold must be a number >= 0");
    }
    o.materialize_deletions_threshold = v;
  }
  LANCE_ASSIGN_OR_RAISE(auto batch, args.GetInt("batch-size", 1));
  if (batch) o.batch_size = *batch;
  const uint64_t before = dataset->version();
  LANCE_ASSIGN_OR_RAISE(CompactionMetrics m, dataset->CompactFiles(o));
  JsonDoc doc = JsonDoc::object({{"fragments_removed", m.fragments_removed},
                                 {"fragments_added", m.fragments_added},
                                 {"files_removed", m.files_removed},
                                 {"files_added", m.files_added},
                                 {"read_version", before},
                                 {"version", dataset->version()}});
  return EmitJsonLine(s, doc);
}

}  // namespace

Command MakeCompactCommand() {
  return Command{
      "compact",
      "Compact small fragments (and fragments with many deleted rows) into larger ones "
      "as Lance does, committing a Rewrite; prints the compaction metrics as JSON.",
      "compact URI [--target-rows-per-fragment N] [--max-rows-per-group N] "
      "[--materialize-deletions-threshold F] [--no-materialize-deletions] "
      "[--batch-size N]",
      {{"target-rows-per-fragment", true, false,
        "rows per new fragment; smaller fragments are candidates (default 1048576)"},
       {"max-rows-per-group", true, false, "rows per row group (default 1024)"},
       {"materialize-deletions-threshold", true, false,
        "deleted fraction above which a fragment is rewritten alone (default 0.1)"},
       {"no-materialize-deletions", false, false,
        "do not rewrite fragments only because of their deleted rows"},
       {"batch-size", true, false, "rows per read batch"},
       StorageOptionSpec()},
      RunCompact};
}

}  // namespace lance::cli
