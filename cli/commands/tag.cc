// SPDX-License-Identifier: Apache-2.0
// lance-cpp tag URI create|delete|list|update ...: tags in `_refs/tags/` as Lance.
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/cli_options.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

Status RunTag(const Args& args, const Streams& s) {
  if (args.positionals.size() < 2) {
    return Status::Invalid(
        "usage: tag URI create NAME VERSION | update NAME VERSION | "
        "delete NAME | list");
  }
  const std::string& action = args.positionals[1];
  const size_t want = action == "list" ? 2 : action == "delete" ? 3 : 4;
  if ((action != "list" && action != "delete" && action != "create" &&
       action != "update") ||
      args.positionals.size() != want) {
    return Status::Invalid(
        "usage: tag URI create NAME VERSION | update NAME VERSION | "
        "delete NAME | list");
  }
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenFromArgs(args.positionals[0], args));
  if (action == "list") {
    LANCE_ASSIGN_OR_RAISE(auto tags, dataset->ListTags());
    JsonDoc doc = JsonDoc::object();
    for (const auto& [name, t] : tags) {
      JsonDoc entry = JsonDoc::object();
      entry["version"] = t.version;
      entry["manifest_size"] = t.manifest_size;
      entry["created_at"] = t.created_at;
      entry["updated_at"] = t.updated_at;
      doc[name] = std::move(entry);
    }
    return EmitJsonLine(s, doc);
  }
  const std::string& name = args.positionals[2];
  if (action == "delete") return dataset->DeleteTag(name);
  LANCE_ASSIGN_OR_RAISE(int64_t version, ParseCount(args.positionals[3], "VERSION"));
  if (action == "create") return dataset->CreateTag(name, static_cast<uint64_t>(version));
  return dataset->UpdateTag(name, static_cast<uint64_t>(version));
}

}  // namespace

Command MakeTagCommand() {
  return Command{
      "tag",
      "Create, update, delete or list the dataset's tags (_refs/tags/NAME.json, as "
      "Lance); list prints them as JSON.",
      "tag URI create NAME VERSION | tag URI update NAME VERSION | tag URI delete NAME | "
      "tag URI list",
      {StorageOptionSpec()},
      RunTag};
}

}  // namespace lance::cli
