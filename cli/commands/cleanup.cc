// SPDX-License-Identifier: Apache-2.0
// lance-cpp cleanup URI --older-than DURATION: Lance's cleanup_old_versions, printing
// pylance's CleanupStats as JSON; with --dry-run, what it would remove (stats and the
// paths) without deleting anything.
#include <cctype>
#include <string>
#include <string_view>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

// "90s", "15m", "12h", "7d", "2w" or plain seconds ("0").
Result<int64_t> ParseDurationMs(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) ++i;
  if (i == 0 || i > 9) {  // at most 9 digits: no overflow even in weeks
    return Status::Invalid(
        "--older-than must be a duration such as 0, 90s, 15m, 12h, 7d "
        "or 2w");
  }
  const int64_t n = std::stoll(text.substr(0, i));
  const std::string unit = text.substr(i);
  // Milliseconds per unit; no unit means seconds.
  struct Unit {
    std::string_view name;
    int64_t ms;
  };
  static constexpr Unit kUnits[] = {{"", 1000},
                                    {"s", 1000},
                                    {"ms", 1},
                                    {"m", 60 * 1000},
                                    {"h", 3600 * 1000},
                                    {"d", 24LL * 3600 * 1000},
                                    {"w", 7LL * 24 * 3600 * 1000}};
  for (const Unit& u : kUnits) {
    if (unit == u.name) return n * u.ms;
  }
  return Status::Invalid("--older-than: unknown unit '", unit,
                         "' (use ms, s, m, h, d or w)");
}

Status RunCleanup(const Args& args, const Streams& s) {
  LANCE_RETURN_NOT_OK(ExpectPositionals(args, {"URI"}));
  const auto older = args.Get("older-than");
  LANCE_ASSIGN_OR_RAISE(auto retain, args.GetInt("retain-versions", 1));
  if (!older && !retain) {
    return Status::Invalid(
        "--older-than (e.g. --older-than 14d) or --retain-versions N is required");
  }
  CleanupOptions o;
  o.older_than_ms.reset();
  if (older) {
    LANCE_ASSIGN_OR_RAISE(o.older_than_ms, ParseDurationMs(*older));
  }
  o.retain_versions = retain;
  o.delete_unverified = args.Has("delete-unverified");
  o.error_if_tagged_old_versions = !args.Has("ignore-tagged");
  o.dry_run = args.Has("dry-run");
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenFromArgs(args.positionals[0], args));
  LANCE_ASSIGN_OR_RAISE(CleanupStats st, dataset->CleanupOldVersions(o));
  JsonDoc doc =
      JsonDoc::object({{"bytes_removed", st.bytes_removed},
                       {"old_versions", st.old_versions},
                       {"data_files_removed", st.data_files_removed},
                       {"transaction_files_removed", st.transaction_files_removed},
                       {"index_files_removed", st.index_files_removed},
                       {"deletion_files_removed", st.deletion_files_removed},
                       {"failed_deletes", st.failed_deletes}});
  if (o.dry_run) {
    // What a real run would remove now, relative to the dataset root; nothing was.
    doc["dry_run"] = true;
    JsonDoc paths = JsonDoc::array();
    for (const std::string& p : st.removed_paths) paths.push_back(p);
    doc["paths"] = std::move(paths);
  }
  return EmitJsonLine(s, doc);
}

}  // namespace

Command MakeCleanupCommand() {
  return Command{
      "cleanup",
      "Remove versions older than --older-than (never the latest nor tagged ones) and "
      "the files only they referenced, as Lance's cleanup_old_versions; prints the "
      "cleanup stats as JSON.",
      "cleanup URI --older-than DURATION [--retain-versions N] [--delete-unverified] "
      "[--ignore-tagged] [--dry-run]",
      {{"older-than", true, false, "age of versions to remove: 0, 90s, 15m, 12h, 7d, 2w"},
       {"retain-versions", true, false, "keep the newest N versions whatever their age"},
       {"delete-unverified", false, false,
        "also delete unreferenced files younger than 7 days"},
       {"ignore-tagged", false, false,
        "keep old tagged versions silently instead of failing"},
       {"dry-run", false, false,
        "delete nothing: print what would be removed (stats and \"paths\")"},
       StorageOptionSpec()},
      RunCleanup};
}

}  // namespace lance::cli
