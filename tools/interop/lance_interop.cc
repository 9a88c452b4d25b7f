// SPDX-License-Identifier: Apache-2.0
// lance-interop: a small bridge between lance-cpp and the real-Lance oracles (pylance and
// LanceDB-node) used by tests/interop. Data crosses the boundary as Arrow IPC files; only
// lance-cpp's public API is used.
//
//   lance-interop read URI OUT.arrow [--version N] [--columns a,b] [--filter PRED]
//                                    [--limit N] [--offset N] [--with-row-id] [--zstd]
//   lance-interop count URI [--filter PRED] [--version N]
//   lance-interop versions URI
//   lance-interop info URI [--version N]
//   lance-interop write IN.arrow URI --mode create|append|overwrite
//                       [--max-rows-per-file N] [--max-rows-per-group N] [--v1-names]
//   lance-interop write-fragments IN.arrow URI OUT.json [--max-rows-per-file N]
//                                 [--max-rows-per-group N] [--mode MODE]
//     (MODE, default append, only validates against an existing dataset)
//   lance-interop commit URI FRAGS.json --op overwrite|append [--read-version N]
//                        [--schema-from IN.arrow]
//   lance-interop delete URI PRED
//
// Every command also takes --storage-option KEY=VALUE (repeatable): Lance's storage
// options for the dataset's object store (e.g. aws_endpoint, aws_access_key_id for
// s3:// URIs).
//
// Exit status: 0 on success, 1 on a library error (the Status is printed on stderr),
// 2 on a usage error.

#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "args/arg_parser.h"
#include "lance/core/buffer.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/dataset/dataset.h"
#include "lance/dataset/fragment.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "lance/macros.h"
#include "lance/result.h"
#include "lance/status.h"
#include "lance/str_cat.h"

namespace lance::interop {
namespace {

using Json = nlohmann::json;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

constexpr const char kUsage[] =
    "usage:\n"
    "  lance-interop read URI OUT.arrow [--version N] [--columns a,b] [--filter PRED]\n"
    "                                   [--limit N] [--offset N] [--with-row-id] "
    "[--zstd]\n"
    "  lance-interop count URI [--filter PRED] [--version N]\n"
    "  lance-interop versions URI\n"
    "  lance-interop info URI [--version N]\n"
    "  lance-interop write IN.arrow URI --mode create|append|overwrite\n"
    "                      [--max-rows-per-file N] [--max-rows-per-group N] "
    "[--v1-names]\n"
    "  lance-interop write-fragments IN.arrow URI OUT.json [--max-rows-per-file N]\n"
    "                      [--max-rows-per-group N] [--mode create|append|overwrite]\n"
    "  lance-interop commit URI FRAGS.json --op overwrite|append [--read-version N]\n"
    "                       [--schema-from IN.arrow]\n"
    "  lance-interop delete URI PRED\n"
    "every command: [--storage-option KEY=VALUE]... (object store options)\n";

constexpr std::string_view kUsagePrefix = "usage: ";

// A usage error: an Invalid status that Main reports with the usage text and exit
// status 2 (library errors give exit status 1).
Status UsageError(const std::string& message) {
  return Status::Invalid(kUsagePrefix, message);
}

bool IsUsageError(const Status& status) {
  return status.IsInvalid() && status.message().rfind(kUsagePrefix, 0) == 0;
}

// Positional arguments and --options of one command line (parsed by the parser shared
// with lance-cpp), with the --storage-option pairs as a map.
class Args {
 public:
  // `flags` are options without a value; `valued` take one ("--name value" or
  // "--name=value"). Every command also takes --storage-option KEY=VALUE, repeatable.
  static Result<Args> Parse(const std::vector<std::string>& argv,
                            const std::set<std::string>& flags,
                            const std::set<std::string>& valued) {
    std::vector<cli::OptionSpec> specs;
    for (const std::string& name : flags) specs.push_back({name, false, false, ""});
    for (const std::string& name : valued) specs.push_back({name, true, false, ""});
    specs.push_back({kStorageOption, true, true, ""});
    Result<cli::Args> parsed = cli::ParseArgs(argv, specs);
    if (!parsed.ok()) return UsageError(parsed.status().message());
    Args out;
    out.args_ = std::move(*parsed);
    for (const std::string& pair : out.args_.GetAll(kStorageOption)) {
      // The message never echoes the pair: it may hold a secret.
      auto split = cli::SplitKeyValue(pair, "--storage-option");
      if (!split.ok()) return UsageError(split.status().message());
      out.storage_options_[split->first] = split->second;
    }
    return out;
  }

  const std::vector<std::string>& positional() const { return args_.positionals; }
  const io::StorageOptions& storage_options() const { return storage_options_; }

  Status ExpectPositional(size_t n) const {
    if (positional().size() == n) return Status::OK();
    return UsageError(StrCat("expected ", n, " arguments, got ", positional().size()));
  }

  bool Has(const std::string& name) const { return args_.Has(name); }
  std::optional<std::string> Get(const std::string& name) const {
    return args_.Get(name);
  }

  // The integer value of --name, nullopt when absent; a usage error when not an
  // integer or below `min`.
  Result<std::optional<int64_t>> GetInt(const std::string& name, int64_t min) const {
    auto value = args_.GetInt(name, min);
    if (!value.ok()) return UsageError(value.status().message());
    return *value;
  }

  Result<std::optional<uint64_t>> GetVersion(const std::string& name) const {
    LANCE_ASSIGN_OR_RAISE(std::optional<int64_t> v, GetInt(name, 0));
    if (!v) return std::optional<uint64_t>();
    return std::optional<uint64_t>(static_cast<uint64_t>(*v));
  }

 private:
  static constexpr const char* kStorageOption = "storage-option";

  cli::Args args_;
  io::StorageOptions storage_options_;
};

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(StrCat("cannot open ", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return Status::IOError(StrCat("cannot read ", path));
  return bytes.str();
}

Status WriteWholeFile(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IOError(StrCat("cannot create ", path));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) return Status::IOError(StrCat("cannot write ", path));
  return Status::OK();
}

Result<TablePtr> ReadIpcTable(const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(std::string bytes, ReadWholeFile(path));
  return ipc::ReadIpcFile(Buffer::FromString(std::move(bytes)));
}

RecordBatchReaderPtr ReaderOver(const TablePtr& table) {
  return RecordBatchReader::FromBatches(table->schema(), table->batches());
}

Result<std::shared_ptr<Dataset>> OpenDataset(const std::string& uri, const Args& args) {
  OpenOptions options;
  LANCE_ASSIGN_OR_RAISE(options.version, args.GetVersion("version"));
  options.access.storage_options = args.storage_options();
  return Dataset::Open(uri, options);
}

Result<WriteParams> ParamsFrom(const Args& args, const std::string& default_mode) {
  WriteParams params;
  LANCE_ASSIGN_OR_RAISE(params.mode,
                        ParseWriteMode(args.Get("mode").value_or(default_mode)));
  params.data_storage_version = "2.0";
  LANCE_ASSIGN_OR_RAISE(auto rows_per_file, args.GetInt("max-rows-per-file", 1));
  if (rows_per_file) params.max_rows_per_file = *rows_per_file;
  LANCE_ASSIGN_OR_RAISE(auto rows_per_group, args.GetInt("max-rows-per-group", 1));
  if (rows_per_group) params.max_rows_per_group = *rows_per_group;
  params.enable_v2_manifest_paths = !args.Has("v1-names");
  params.access.storage_options = args.storage_options();
  return params;
}

// The fragments as a JSON array of FragmentMetadata::ToJson() objects.
Result<Json> FragmentsJson(const std::vector<FragmentMetadata>& fragments) {
  Json list = Json::array();
  for (const FragmentMetadata& f : fragments) {
    Json item = Json::parse(f.ToJson(), nullptr, /*allow_exceptions=*/false);
    if (item.is_discarded())
      return Status::Invalid("FragmentMetadata::ToJson() is not JSON");
    list.push_back(std::move(item));
  }
  return list;
}

// --- commands
// ---------------------------------------------------------------------------

Status RunRead(const Args& args) {
  LANCE_RETURN_NOT_OK(args.ExpectPositional(2));
  ScanOptions scan;
  if (auto columns = args.Get("columns")) scan.columns = SplitComma(*columns);
  scan.filter = args.Get("filter").value_or("");
  scan.with_row_id = args.Has("with-row-id");
  LANCE_ASSIGN_OR_RAISE(scan.limit, args.GetInt("limit", 0));
  LANCE_ASSIGN_OR_RAISE(auto offset, args.GetInt("offset", 0));
  if (offset) scan.offset = *offset;
  ipc::IpcWriteOptions options;
  if (args.Has("zstd")) options.compression = ipc::IpcCompression::kZstd;

  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenDataset(args.positional()[0], args));
  LANCE_ASSIGN_OR_RAISE(TablePtr table, dataset->ToTable(scan));
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, ipc::WriteIpcFile(*table, options));
  LANCE_RETURN_NOT_OK(WriteWholeFile(args.positional()[1], bytes->data(),
                                     static_cast<size_t>(bytes->size())));
  std::cout << table->num_rows() << "\n";
  return Status::OK();
}

Status RunCount(const Args& args) {
  LANCE_RETURN_NOT_OK(args.ExpectPositional(1));
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenDataset(args.positional()[0], args));
  LANCE_ASSIGN_OR_RAISE(int64_t n, dataset->CountRows(args.Get("filter").value_or("")));
  std::cout << n << "\n";
  return Status::OK();
}

Status RunVersions(const Args& args) {
  LANCE_RETURN_NOT_OK(args.ExpectPositional(1));
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenDataset(args.positional()[0], args));
  LANCE_ASSIGN_OR_RAISE(auto versions, dataset->Versions());
  Json list = Json::array();
  for (const VersionInfo& v : versions) {
    list.push_back({{"version", v.version},
                    {"timestamp_ms", v.timestamp_ms},
                    {"metadata", v.metadata}});
  }
  std::cout << list.dump() << "\n";
  return Status::OK();
}

Status RunInfo(const Args& args) {
  LANCE_RETURN_NOT_OK(args.ExpectPositional(1));
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenDataset(args.positional()[0], args));
  LANCE_ASSIGN_OR_RAISE(Json fragments, FragmentsJson(dataset->fragments()));
  const Json info = {{"version", dataset->version()},
                     {"data_storage_version", dataset->data_storage_version()},
                     {"schema", dataset->schema()->ToString()},
                     {"fragments", std::move(fragments)}};
  std::cout << info.dump() << "\n";
  return Status::OK();
}

Status RunWrite(const Args& args) {
  LANCE_RETURN_NOT_OK(args.ExpectPositional(2));
  if (!args.Has("mode")) return UsageError("write needs --mode");
  LANCE_ASSIGN_OR_RAISE(WriteParams params, ParamsFrom(args, "create"));
  LANCE_ASSIGN_OR_RAISE(TablePtr input, ReadIpcTable(args.positional()[0]));
  RecordBatchReaderPtr reader = ReaderOver(input);
  LANCE_ASSIGN_OR_RAISE(auto dataset,
                        Dataset::Write(*reader, args.positional()[1], params));
  std::cout << dataset->version() << "\n";
  return Status::OK();
}

Status RunWriteFragments(const Args& args) {
  LANCE_RETURN_NOT_OK(args.ExpectPositional(3));
  LANCE_ASSIGN_OR_RAISE(WriteParams params, ParamsFrom(args, "append"));
  LANCE_ASSIGN_OR_RAISE(TablePtr input, ReadIpcTable(args.positional()[0]));
  RecordBatchReaderPtr reader = ReaderOver(input);
  LANCE_ASSIGN_OR_RAISE(auto fragments,
                        WriteFragments(*reader, args.positional()[1], params));
  LANCE_ASSIGN_OR_RAISE(Json list, FragmentsJson(fragments));
  const std::string text = list.dump();
  return WriteWholeFile(args.positional()[2], text.data(), text.size());
}

Status RunCommit(const Args& args) {
  LANCE_RETURN_NOT_OK(args.ExpectPositional(2));
  const std::string op_name = args.Get("op").value_or("");
  if (op_name != "overwrite" && op_name != "append") {
    return UsageError("commit needs --op overwrite|append");
  }
  const std::optional<std::string> schema_path = args.Get("schema-from");
  if (op_name == "overwrite" && !schema_path) {
    return UsageError("commit --op overwrite needs --schema-from");
  }
  LANCE_ASSIGN_OR_RAISE(std::optional<uint64_t> read_version,
                        args.GetVersion("read-version"));

  const std::string& frags_path = args.positional()[1];
  LANCE_ASSIGN_OR_RAISE(std::string text, ReadWholeFile(frags_path));
  const Json list = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (list.is_discarded() || !list.is_array()) {
    return Status::Invalid(frags_path, " is not a JSON array");
  }
  std::vector<FragmentMetadata> fragments;
  for (const Json& item : list) {
    // Objects, or strings holding one (a list of pylance to_json() strings).
    const std::string one = item.is_string() ? item.get<std::string>() : item.dump();
    LANCE_ASSIGN_OR_RAISE(FragmentMetadata fragment, FragmentMetadata::FromJson(one));
    fragments.push_back(std::move(fragment));
  }
  Operation op = AppendOp{std::move(fragments)};
  if (op_name == "overwrite") {
    LANCE_ASSIGN_OR_RAISE(TablePtr schema_table, ReadIpcTable(*schema_path));
    op = OverwriteOp{schema_table->schema(), std::move(std::get<AppendOp>(op).fragments)};
  }
  LANCE_ASSIGN_OR_RAISE(
      auto dataset,
      Dataset::Commit(args.positional()[0], op, read_version, args.storage_options()));
  std::cout << dataset->version() << "\n";
  return Status::OK();
}

Status RunDelete(const Args& args) {
  LANCE_RETURN_NOT_OK(args.ExpectPositional(2));
  LANCE_ASSIGN_OR_RAISE(auto dataset, OpenDataset(args.positional()[0], args));
  LANCE_RETURN_NOT_OK(dataset->Delete(args.positional()[1]));
  std::cout << dataset->version() << "\n";
  return Status::OK();
}

struct Command {
  Status (*run)(const Args&);
  std::set<std::string> flags;
  std::set<std::string> valued;
};

const std::map<std::string, Command>& Commands() {
  static const auto* const commands = new std::map<std::string, Command>{
      {"read",
       {RunRead,
        {"with-row-id", "zstd"},
        {"version", "columns", "filter", "limit", "offset"}}},
      {"count", {RunCount, {}, {"filter", "version"}}},
      {"versions", {RunVersions, {}, {}}},
      {"info", {RunInfo, {}, {"version"}}},
      {"write",
       {RunWrite, {"v1-names"}, {"mode", "max-rows-per-file", "max-rows-per-group"}}},
      {"write-fragments",
       {RunWriteFragments, {}, {"mode", "max-rows-per-file", "max-rows-per-group"}}},
      {"commit", {RunCommit, {}, {"op", "read-version", "schema-from"}}},
      {"delete", {RunDelete, {}, {}}},
  };
  return *commands;
}

int Main(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::cerr << kUsage;
    return argv.empty() ? kExitUsage : kExitOk;
  }
  const std::string& name = argv[0];
  Status status;
  auto command = Commands().find(name);
  if (command == Commands().end()) {
    status = UsageError("unknown command '" + name + "'");
  } else {
    Result<Args> args =
        Args::Parse(std::vector<std::string>(argv.begin() + 1, argv.end()),
                    command->second.flags, command->second.valued);
    status = args.ok() ? command->second.run(*args) : args.status();
  }
  if (status.ok()) return kExitOk;
  if (IsUsageError(status)) {
    std::cerr << "lance-interop: " << status.message().substr(kUsagePrefix.size()) << "\n"
              << kUsage;
    return kExitUsage;
  }
  std::cerr << "lance-interop " << name << ": " << status.ToString() << "\n";
  return kExitError;
}

}  // namespace
}  // namespace lance::interop

int main(int argc, char** argv) {
  return lance::interop::Main(std::vector<std::string>(argv + 1, argv + argc));
}
