// SPDX-License-Identifier: Apache-2.0
// lance-ns: drives a DirectoryNamespace from the command line and prints JSON, for the
// namespace interop tests (tests/interop/test_namespace_dir.py). Public API only.
//
//   lance-ns COMMAND --prop root=PATH [--prop KEY=VALUE ...] [--id PART ...] [options]
//
// Commands (one JSON object on stdout; exit 0):
//   list-tables       [--limit N] [--page-token T]  {"tables": [...], "page_token": ...}
//   list-namespaces   [--limit N] [--page-token T]  {"namespaces": [...], "page_token":
//   ...} create-namespace  [--property K=V ...]          {"properties": {...}} describe
//   [--detailed]                  the DescribeTable response declare [--property K=V ...]
//   the DeclareTable response create --rows N                                 declare,
//   then write N rows (x: int64
//                                                   = 0..N-1, s: utf8 = "row<x>") at the
//                                                   declared location; {"location",
//                                                   "version"}
//   read                                            describe, open the location and read:
//                                                   {"location", "version", "x": [...],
//                                                   "s": [...]}
//   exists | drop | deregister                      {} or the response
// Options for every command:
//   --prop storage.KEY=VALUE   options for the namespace's own I/O (e.g.
//   storage.aws_endpoint
//                              for an s3:// root), as Lance's DirectoryNamespace takes
//                              them
//   --start-at MS              after opening the namespace, wait until this Unix time in
//                              milliseconds before running the command: several processes
//                              started with one value race on the same instant (the
//                              multi-process declaration tests)
// A failed operation prints {"error": "<spec error name>", "code": <spec code>,
// "message": "..."} and exits 1; a usage error exits 2.

#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "args/arg_parser.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/namespace/directory_namespace.h"

namespace {

using lance::Result;
using lance::Status;
using nlohmann::json;
namespace ns = lance::ns;

struct Args {
  std::string command;
  ns::Properties props;
  ns::Identifier id;
  ns::Properties table_properties;
  std::optional<int32_t> limit;
  std::optional<std::string> page_token;
  std::optional<int64_t> rows;
  std::optional<int64_t> start_at_ms;
  bool detailed = false;
};

constexpr const char kUsage[] =
    "usage: lance-ns COMMAND --prop root=PATH [--prop K=V] [--id PART ...]\n";

const std::vector<lance::cli::OptionSpec>& OptionSpecs() {
  static const std::vector<lance::cli::OptionSpec> kSpecs = {
      {"prop", true, true, "namespace property KEY=VALUE (root=PATH, storage.KEY=VALUE)"},
      {"id", true, true, "one level of the table or namespace id, outermost first"},
      {"property", true, true, "table or namespace property KEY=VALUE"},
      {"limit", true, false, "page size of list-tables / list-namespaces"},
      {"page-token", true, false, "page token of list-tables / list-namespaces"},
      {"rows", true, false, "rows to write (create)"},
      {"start-at", true, false, "Unix time in ms to wait for before running the command"},
      {"detailed", false, false, "describe: the detailed response"},
  };
  return kSpecs;
}

Status ParseKeyValues(const std::vector<std::string>& pairs, ns::Properties* out,
                      const char* flag) {
  for (const std::string& pair : pairs) {
    // The message never echoes the pair: a storage.* value may be a secret.
    LANCE_ASSIGN_OR_RAISE(auto split, lance::cli::SplitKeyValue(pair, flag));
    (*out)[split.first] = split.second;
  }
  return Status::OK();
}

Result<Args> Parse(const std::vector<std::string>& argv) {
  if (argv.empty()) return Status::Invalid("missing command");
  Args args;
  args.command = argv[0];
  LANCE_ASSIGN_OR_RAISE(
      lance::cli::Args parsed,
      lance::cli::ParseArgs(std::vector<std::string>(argv.begin() + 1, argv.end()),
                            OptionSpecs()));
  if (!parsed.positionals.empty()) {
    return Status::Invalid("unexpected argument '", parsed.positionals[0], "'");
  }
  LANCE_RETURN_NOT_OK(ParseKeyValues(parsed.GetAll("prop"), &args.props, "--prop"));
  LANCE_RETURN_NOT_OK(
      ParseKeyValues(parsed.GetAll("property"), &args.table_properties, "--property"));
  const auto& id = parsed.GetAll("id");
  args.id.assign(id.begin(), id.end());
  LANCE_ASSIGN_OR_RAISE(auto limit, parsed.GetInt("limit", 0));
  if (limit) {
    if (*limit > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("--limit must be at most ",
                             std::numeric_limits<int32_t>::max());
    }
    args.limit = static_cast<int32_t>(*limit);
  }
  args.page_token = parsed.Get("page-token");
  LANCE_ASSIGN_OR_RAISE(args.rows, parsed.GetInt("rows", 0));
  LANCE_ASSIGN_OR_RAISE(args.start_at_ms, parsed.GetInt("start-at", 0));
  args.detailed = parsed.Has("detailed");
  return args;
}

/// The tool's own storage options: the namespace's `storage.*` properties (the
/// namespace keeps them to itself unless it vends), under what an answer carries.
lance::io::StorageOptions AccessOptions(const Args& args,
                                        const std::optional<ns::Properties>& answered) {
  lance::io::StorageOptions out;
  for (const auto& [key, value] : args.props) {
    if (key.rfind("storage.", 0) == 0) out[key.substr(8)] = value;
  }
  if (answered) {
    for (const auto& [key, value] : *answered) out[key] = value;
  }
  return out;
}

template <typename T>
void Put(json& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = *value;
}

// Storage options as printed: a secret value (io::IsSecretOptionKey: secret keys, session
// tokens) never reaches stdout; it is replaced by "<secret fnv1a64:HEX>", a fingerprint
// that lets the tests check which secret was answered (test_namespace_s3.py) without it.
std::optional<ns::Properties> Printable(const std::optional<ns::Properties>& options) {
  if (!options) return std::nullopt;
  ns::Properties out = *options;
  for (auto& [key, value] : out) {
    if (!lance::io::IsSecretOptionKey(key)) continue;
    uint64_t h = 14695981039346656037ULL;  // FNV-1a, 64 bits
    for (unsigned char c : value) h = (h ^ c) * 1099511628211ULL;
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
    value = std::string("<secret fnv1a64:") + hex + ">";
  }
  return out;
}

// The request of list-tables / list-namespaces: one page of the listing of args.id.
template <typename Request>
Request PageRequest(const Args& args) {
  return {.id = args.id, .page_token = args.page_token, .limit = args.limit};
}

// A listing page: its names under `key` and the next page's token (null on the last).
void PutPage(json& out, const char* key, const std::vector<std::string>& names,
             const std::optional<std::string>& page_token) {
  out[key] = names;
  out["page_token"] = page_token ? json(*page_token) : json(nullptr);
}

json ToJson(const ns::DescribeTableResponse& r) {
  json out = json::object();
  Put(out, "table", r.table);
  Put(out, "namespace", r.namespace_);
  Put(out, "version", r.version);
  Put(out, "location", r.location);
  Put(out, "table_uri", r.table_uri);
  Put(out, "storage_options", Printable(r.storage_options));
  Put(out, "properties", r.properties);
  Put(out, "is_only_declared", r.is_only_declared);
  return out;
}

std::optional<ns::Properties> TableProperties(const Args& args) {
  if (args.table_properties.empty()) return std::nullopt;
  return args.table_properties;
}

Result<lance::RecordBatchReaderPtr> MakeRows(int64_t n) {
  lance::Int64Builder xs;
  lance::StringBuilder ss;
  for (int64_t i = 0; i < n; ++i) {
    LANCE_RETURN_NOT_OK(xs.Append(i));
    LANCE_RETURN_NOT_OK(ss.Append("row" + std::to_string(i)));
  }
  auto s = lance::schema(
      {lance::field("x", lance::int64(), false), lance::field("s", lance::utf8(), true)});
  std::vector<lance::ArrayPtr> columns(2);
  LANCE_ASSIGN_OR_RAISE(columns[0], xs.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[1], ss.Finish());
  LANCE_ASSIGN_OR_RAISE(auto batch, lance::RecordBatch::Make(s, n, std::move(columns)));
  return lance::RecordBatchReader::FromBatches(s, {batch});
}

Result<json> Run(const Args& args) {
  LANCE_ASSIGN_OR_RAISE(auto dir, ns::DirectoryNamespace::FromProperties(args.props));
  if (args.start_at_ms) {
    // Opening the namespace (and its __manifest) is the slow part of start-up; racing
    // processes line up after it so that their commands really overlap.
    std::this_thread::sleep_until(std::chrono::system_clock::time_point(
        std::chrono::milliseconds(*args.start_at_ms)));
  }
  const std::string& cmd = args.command;
  json out = json::object();
  if (cmd == "list-tables") {
    LANCE_ASSIGN_OR_RAISE(auto r,
                          dir->ListTables(PageRequest<ns::ListTablesRequest>(args)));
    PutPage(out, "tables", r.tables, r.page_token);
  } else if (cmd == "list-namespaces") {
    LANCE_ASSIGN_OR_RAISE(
        auto r, dir->ListNamespaces(PageRequest<ns::ListNamespacesRequest>(args)));
    PutPage(out, "namespaces", r.namespaces, r.page_token);
  } else if (cmd == "create-namespace") {
    LANCE_ASSIGN_OR_RAISE(
        auto r,
        dir->CreateNamespace({.id = args.id, .properties = TableProperties(args)}));
    Put(out, "properties", r.properties);
  } else if (cmd == "describe") {
    LANCE_ASSIGN_OR_RAISE(
        auto r,
        dir->DescribeTable({.id = args.id, .load_detailed_metadata = args.detailed}));
    out = ToJson(r);
  } else if (cmd == "declare") {
    LANCE_ASSIGN_OR_RAISE(
        auto r, dir->DeclareTable({.id = args.id, .properties = TableProperties(args)}));
    Put(out, "location", r.location);
    Put(out, "storage_options", Printable(r.storage_options));
    Put(out, "properties", r.properties);
  } else if (cmd == "create") {
    if (!args.rows) return Status::Invalid("create needs --rows");
    LANCE_ASSIGN_OR_RAISE(
        auto r, dir->DeclareTable({.id = args.id, .properties = TableProperties(args)}));
    LANCE_ASSIGN_OR_RAISE(auto data, MakeRows(*args.rows));
    lance::WriteParams params;
    params.mode = lance::WriteMode::kCreate;
    params.access.storage_options = AccessOptions(args, r.storage_options);
    LANCE_ASSIGN_OR_RAISE(auto ds, lance::Dataset::Write(*data, *r.location, params));
    out["location"] = *r.location;
    out["version"] = ds->version();
  } else if (cmd == "read") {
    LANCE_ASSIGN_OR_RAISE(auto r, dir->DescribeTable({.id = args.id}));
    lance::OpenOptions open;
    open.access.storage_options = AccessOptions(args, r.storage_options);
    LANCE_ASSIGN_OR_RAISE(auto ds, lance::Dataset::Open(*r.location, open));
    LANCE_ASSIGN_OR_RAISE(auto table, ds->ToTable());
    json xs = json::array(), ss = json::array();
    for (const auto& batch : table->batches()) {
      auto x = std::dynamic_pointer_cast<lance::Int64Array>(batch->GetColumnByName("x"));
      auto s = std::dynamic_pointer_cast<lance::StringArray>(batch->GetColumnByName("s"));
      if (!x || !s) return Status::Invalid("read expects columns x: int64 and s: utf8");
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        xs.push_back(x->Value(i));
        ss.push_back(s->IsNull(i) ? json(nullptr) : json(s->GetString(i)));
      }
    }
    out["location"] = *r.location;
    out["version"] = ds->version();
    out["x"] = xs;
    out["s"] = ss;
  } else if (cmd == "exists") {
    LANCE_RETURN_NOT_OK(dir->TableExists({.id = args.id}));
  } else if (cmd == "drop") {
    LANCE_ASSIGN_OR_RAISE(auto r, dir->DropTable({.id = args.id}));
    Put(out, "location", r.location);
  } else if (cmd == "deregister") {
    LANCE_ASSIGN_OR_RAISE(auto r, dir->DeregisterTable({.id = args.id}));
    Put(out, "location", r.location);
  } else {
    return Status::Invalid("unknown command '", cmd, "'");
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> argv_list(argv + 1, argv + argc);
  if (argv_list.size() == 1 && (argv_list[0] == "--help" || argv_list[0] == "-h")) {
    std::cout << kUsage << "options:\n" << lance::cli::FormatOptionHelp(OptionSpecs());
    return 0;
  }
  auto args = Parse(argv_list);
  if (!args.ok()) {
    std::cerr << "usage error: " << args.status().message() << "\n" << kUsage;
    return 2;
  }
  auto result = Run(*args);
  if (!result.ok()) {
    const ns::ErrorCode code = ns::NamespaceErrorCode(result.status());
    json err = {{"error", std::string(ns::ErrorCodeName(code))},
                {"code", static_cast<int>(code)},
                {"message", result.status().message()}};
    std::cout << err.dump() << "\n";
    return 1;
  }
  std::cout << result->dump() << "\n";
  return 0;
}
