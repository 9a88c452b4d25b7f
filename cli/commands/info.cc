// SPDX-License-Identifier: Apache-2.0
// lance-cpp info URI: what a dataset version holds.
#include <string>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lib/cli_options.h"
#include "lib/json.h"
#include "lib/schema_spec.h"

namespace lance::cli {

namespace {

Status RunInfo(const Args& args, const Streams& s) {
  LANCE_ASSIGN_OR_RAISE(auto target, TargetFromArgs(args, {}));
  auto storage = StorageOptionsFrom(args);
  if (!storage.ok()) return storage.status();
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenTarget(target, args));
  const Dataset& ds = *dataset;
  LANCE_ASSIGN_OR_RAISE(auto rows, ds.CountRows());
  const Schema& schema = *ds.schema();
  std::string out;
  if (args.Has("json")) {
    JsonDoc doc = JsonDoc::object();
    AddTargetJson(target, ds, &doc);
    doc["version"] = ds.version();
    doc["data_storage_version"] = ds.data_storage_version();
    doc["num_rows"] = rows;
    doc["num_fragments"] = ds.fragments().size();
    doc["schema"] = SchemaJson(schema);
    if (!storage->empty()) doc["storage_options"] = StorageOptionsJson(*storage);
    if (target.via_namespace()) {
      doc["namespace"] = target.ns->namespace_id();
      doc["namespace_properties"] = StorageOptionsJson(target.ns_props);
    }
    out = DumpJson(doc) + "\n";
  } else {
    if (target.via_namespace()) {
      out = "table:                " + ns::JoinIdentifier(target.table_id) + "\n" +
            "namespace:            " + target.ns->namespace_id() + "\n" +
            "namespace properties: " + StorageOptionsText(target.ns_props) + "\n";
    }
    out += "uri:                  " +
           RedactUri(target.via_namespace() ? ds.uri() : target.uri) + "\n" +
           "version:              " + std::to_string(ds.version()) + "\n" +
           "data storage version: " + ds.data_storage_version() + "\n" +
           "rows:                 " + std::to_string(rows) + "\n" +
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
  return EmitAndFlush(s, out);
}

}  // namespace

Command MakeInfoCommand() {
  return WithNamespaceOptions(Command{
      "info",
      "Show a dataset's version, data storage version, row and fragment counts and "
      "schema. --json prints one JSON object whose \"schema\" can be passed to "
      "import --schema.",
      "info URI [--version N] [--json]" + NamespaceUsage(),
      {VersionOptionSpec(), StorageOptionSpec()},
      RunInfo});
}

}  // namespace lance::cli
