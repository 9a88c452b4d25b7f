// SPDX-License-Identifier: Apache-2.0
// lance-cpp versions URI: every committed version with its commit time.
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/table_printer.h"

namespace lance::cli {

namespace {

Status RunVersions(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {}));
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenTarget(target, args));
  LANCE_ASSIGN_OR_RAISE(auto versions, dataset->Versions());
  std::string out;
  if (args.Has("json")) {
    JsonDoc doc = JsonDoc::array();
    for (const VersionInfo& v : versions) {
      doc.push_back(JsonDoc{{"version", v.version},
                            {"timestamp", FormatCommitTime(v.timestamp_ms)}});
    }
    out = DumpJson(doc) + "\n";
  } else {
    TablePrinter table({"version", "timestamp"}, {true, false});
    for (const VersionInfo& v : versions) {
      table.AddRow({std::to_string(v.version), FormatCommitTime(v.timestamp_ms)});
    }
    out = table.Render();
  }
  return EmitAndFlush(s, out);
}

}  // namespace

Command MakeVersionsCommand() {
  return WithNamespaceOptions(
      Command{"versions",
              "List a dataset's versions with their commit times (ISO-8601, UTC). --json "
              "prints a list of {\"version\", \"timestamp\"}.",
              "versions URI [--json]" + NamespaceUsage(),
              {StorageOptionSpec()},
              RunVersions});
}

}  // namespace lance::cli
