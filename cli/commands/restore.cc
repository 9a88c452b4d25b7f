// SPDX-License-Identifier: Apache-2.0
// lance-cpp restore URI --version N | --tag NAME: Lance's Restore.
#include <cstdio>
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

Status RunRestore(const Args& args, const Streams& s) {
  LANCE_RETURN_NOT_OK(ExpectPositionals(args, {"URI"}));
  const bool by_tag = args.Has("tag");
  if (by_tag == args.Has("version")) {
    return Status::Invalid("restore needs exactly one of --version N and --tag NAME");
  }
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenFromArgs(args.positionals[0], args));
  if (by_tag) {
    LANCE_ASSIGN_OR_RAISE(dataset, dataset->CheckoutTag(*args.Get("tag")));
  }
  const uint64_t restored = dataset->version();
  LANCE_RETURN_NOT_OK(dataset->Restore());
  JsonDoc doc = JsonDoc::object();
  doc["restored_version"] = restored;
  doc["version"] = dataset->version();
  return EmitJsonLine(s, doc);
}

}  // namespace

Command MakeRestoreCommand() {
  return Command{"restore",
                 "Commit an old version (--version N or --tag NAME) as the newest one "
                 "(Lance's Restore); prints the restored and the new version as JSON.",
                 "restore URI --version N | --tag NAME",
                 {{"version", true, false, "the version to restore"},
                  {"tag", true, false, "restore the version this tag points at"},
                  StorageOptionSpec()},
                 RunRestore};
}

}  // namespace lance::cli
