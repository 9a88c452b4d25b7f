// SPDX-License-Identifier: Apache-2.0
// lance-cpp info URI: what a dataset version holds.
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lib/cli_options.h"
#include "lib/json.h"
#include "lib/schema_spec.h"

namespace lance::cli {

namespace {

Status RunInfo(const Args& args, const Streams& s) {
  if (Status st = ExpectPositionals(args, {"URI"}); !st.ok()) return st;
  const std::string& uri = args.positionals[0];
  auto storage = StorageOptionsFrom(args);
  if (!storage.ok()) return storage.status();
  auto dataset = OpenFromArgs(uri, args);
  if (!dataset.ok()) return dataset.status();
  const Dataset& ds = **dataset;
  auto rows = ds.CountRows();
  if (!rows.ok()) return rows.status();
  const Schema& schema = *ds.schema();
  std::string out;
  if (args.Has("json")) {
    out = "{\"uri\":" + JsonQuote(RedactUri(uri)) +
          ",\"version\":" + std::to_string(ds.version()) +
          ",\"data_storage_version\":" + JsonQuote(ds.data_storage_version()) +
          ",\"num_rows\":" + std::to_string(*rows) +
          ",\"num_fragments\":" + std::to_string(ds.fragments().size()) +
          ",\"schema\":" + FormatSchemaJson(schema);
    if (!storage->empty()) out += ",\"storage_options\":" + StorageOptionsJson(*storage);
    out += "}\n";
  } else {
    out = "uri:                  " + RedactUri(uri) + "\n" +
          "version:              " + std::to_string(ds.version()) + "\n" +
          "data storage version: " + ds.data_storage_version() + "\n" +
          "rows:                 " + std::to_string(*rows) + "\n" +
          "fragments:            " + std::to_string(ds.fragments().size()) + "\n";
    if (!storage->empty()) {
      out += "storage options:      " + StorageOptionsText(*storage) + "\n";
    }
    out += "schema:\n";
    for (const auto& f : schema.fields()) {
      out += "  " + f->name() + ": " + FormatTypeString(*f->type()) +
             (f->nullable() ? "" : " not null") + "\n";
    }
  }
  if (Status st = Emit(s.out, out); !st.ok()) return st;
  return FlushOut(s);
}

}  // namespace

Command MakeInfoCommand() {
  return {"info",
          "Show a dataset's version, data storage version, row and fragment counts and "
          "schema. --json prints one JSON object whose \"schema\" can be passed to "
          "import --schema.",
          "info URI [--version N] [--json]",
          {VersionOptionSpec(), StorageOptionSpec()},
          RunInfo};
}

}  // namespace lance::cli
