// SPDX-License-Identifier: Apache-2.0
#include "commands/common.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "lance/core/type.h"
#include "lance/macros.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/str_cat.h"
#include "lib/cli_options.h"
#include "lib/json.h"
#include "lib/scalar_codec.h"
#include "lib/table_printer.h"
#include "lib/value_format.h"

namespace lance::cli {

OptionSpec StorageOptionSpec() {
  return {"storage-option", true, true,
          "object store option KEY=VALUE (secret values are never printed)"};
}

OptionSpec VersionOptionSpec() {
  return {"version", true, false, "read version N instead of the latest"};
}

OptionSpec WhereOptionSpec(const std::string& help) {
  return {"where", true, false, help};
}

Status ExpectPositionals(const Args& args, const std::vector<std::string>& names) {
  if (args.positionals.size() < names.size()) {
    return Status::Invalid("missing ", names[args.positionals.size()]);
  }
  if (args.positionals.size() > names.size()) {
    return Status::Invalid("unexpected argument ",
                           QuoteForMessage(args.positionals[names.size()]));
  }
  return Status::OK();
}

Result<io::StorageOptions> StorageOptionsFrom(const Args& args) {
  auto parsed = ParseStorageOptions(args.GetAll("storage-option"));
  if (!parsed.ok()) return parsed.status();
  return io::StorageOptions(parsed->begin(), parsed->end());
}

Result<std::optional<uint64_t>> VersionFrom(const Args& args) {
  auto text = args.Get("version");
  if (!text) return std::optional<uint64_t>();
  LANCE_ASSIGN_OR_RAISE(auto n, ParseCount(*text, "version"));
  return std::optional<uint64_t>(static_cast<uint64_t>(n));
}

Result<std::shared_ptr<Dataset>> OpenFromArgs(const std::string& uri, const Args& args) {
  OpenOptions options;
  auto storage = StorageOptionsFrom(args);
  if (!storage.ok()) return storage.status();
  options.access.storage_options = std::move(*storage);
  LANCE_ASSIGN_OR_RAISE(auto version, VersionFrom(args));
  options.version = version;
  return Dataset::Open(uri, std::move(options));
}

std::vector<OptionSpec> NamespaceOptionSpecs() {
  return {
      {"namespace", true, false,
       "open the table through a Lance Namespace instead of a URI: dir (a directory "
       "namespace) or rest (a REST namespace server: --ns-prop uri=URL)"},
      {"ns-prop", true, true,
       "namespace property KEY=VALUE: dir: root=PATH|s3://..., "
       "manifest_enabled=true|false, storage.KEY=VALUE, credential_vendor.KEY=VALUE; "
       "rest: "
       "uri=URL, header.NAME=VALUE, tls.ssl_ca_cert=PEM, tls.cert_file=, tls.key_file= "
       "(secret values are never printed)"},
      {"table-id", true, true,
       "one level of the table id, outermost first (--table-id team --table-id events)"},
  };
}

void AddNamespaceOptions(Command* command) {
  for (auto& spec : NamespaceOptionSpecs()) command->options.push_back(std::move(spec));
}

Command WithNamespaceOptions(Command command) {
  AddNamespaceOptions(&command);
  return command;
}

std::string NamespaceUsage() {
  return "\n       (in place of URI: --namespace dir --ns-prop root=PATH [--ns-prop K=V "
         "...] "
         "--table-id PART [--table-id PART ...])";
}

std::string DatasetTarget::Label() const {
  if (!via_namespace()) return RedactUri(uri);
  return "table " + QuoteForMessage(ns::JoinIdentifier(table_id)) + " of " +
         ns->namespace_id();
}

Result<DatasetTarget> TargetFromArgs(const Args& args,
                                     const std::vector<std::string>& leading) {
  DatasetTarget target;
  std::vector<std::string> names = leading;
  if (!args.Has("namespace")) {
    for (const char* only_with : {"ns-prop", "table-id"}) {
      if (args.Has(only_with)) {
        return Status::Invalid("--", only_with, " needs --namespace");
      }
    }
    names.push_back("URI (or --namespace dir --ns-prop root=PATH --table-id NAME)");
    LANCE_RETURN_NOT_OK(ExpectPositionals(args, names));
    target.uri = args.positionals.back();
    return target;
  }
  if (args.positionals.size() > leading.size()) {
    return Status::Invalid("give either a URI or --namespace, not both (got ",
                           QuoteForMessage(RedactUri(args.positionals[leading.size()])),
                           " and --namespace)");
  }
  LANCE_RETURN_NOT_OK(ExpectPositionals(args, leading));
  const std::string impl = *args.Get("namespace");
  const auto& parts = args.GetAll("table-id");
  if (parts.empty()) {
    return Status::Invalid(
        "--namespace needs --table-id (repeat it for a multi-level id: "
        "--table-id team --table-id events)");
  }
  for (const auto& part : parts) {
    if (part.empty()) return Status::Invalid("--table-id must not be empty");
  }
  target.table_id.assign(parts.begin(), parts.end());
  auto props = ParseStorageOptions(args.GetAll("ns-prop"));
  if (!props.ok()) return props.status().WithContext("--ns-prop");
  target.ns_props = ns::Properties(props->begin(), props->end());
  auto connected = ns::ConnectNamespace(impl, target.ns_props);
  if (!connected.ok()) {
    if (connected.status().IsNotImplemented()) {
      return Status::Invalid("unknown namespace implementation ", QuoteForMessage(impl),
                             " (supported: dir, rest)");
    }
    // Bad properties (a missing root, ...) are usage errors; I/O failures (connecting
    // may read the root's __manifest) are not.
    if (connected.status().IsInvalid()) {
      return Status::Invalid("--namespace ", impl, ": ", connected.status().message());
    }
    return connected.status().WithContext("connecting to the " + impl + " namespace");
  }
  target.ns = std::move(*connected);
  return target;
}

Result<io::StorageOptions> TargetStorageOptions(const DatasetTarget& target,
                                                const Args& args) {
  LANCE_ASSIGN_OR_RAISE(io::StorageOptions options, StorageOptionsFrom(args));
  const std::string impl = args.Get("namespace").value_or("");
  if (!target.via_namespace() ||
      (impl != "dir" && impl != "directory" && impl != "DirectoryNamespace")) {
    return options;
  }
  constexpr std::string_view kStorage = "storage.";
  for (const auto& [key, value] : target.ns_props) {
    if (key.size() > kStorage.size() && key.compare(0, kStorage.size(), kStorage) == 0) {
      options.emplace(key.substr(kStorage.size()), value);  // --storage-option wins
    }
  }
  return options;
}

Result<std::shared_ptr<Dataset>> OpenTarget(const DatasetTarget& target,
                                            const Args& args) {
  if (!target.via_namespace()) return OpenFromArgs(target.uri, args);
  OpenOptions options;
  LANCE_ASSIGN_OR_RAISE(options.access.storage_options,
                        TargetStorageOptions(target, args));
  LANCE_ASSIGN_OR_RAISE(auto version, VersionFrom(args));
  options.version = version;
  return ns::OpenDataset(target.ns, target.table_id, std::move(options));
}

void AddTargetJson(const DatasetTarget& target, const Dataset& dataset, JsonDoc* out) {
  (*out)["uri"] = RedactUri(target.via_namespace() ? dataset.uri() : target.uri);
  if (target.via_namespace()) (*out)["table_id"] = target.table_id;
}

Status Emit(std::FILE* stream, std::string_view text) {
  if (text.empty()) return Status::OK();
  if (std::fwrite(text.data(), 1, text.size(), stream) != text.size()) {
    return Status::IOError(StrCat("writing output failed: ", std::strerror(errno)));
  }
  return Status::OK();
}

Status FlushOut(const Streams& s) {
  if (std::fflush(s.out) != 0) {
    return Status::IOError(StrCat("writing output failed: ", std::strerror(errno)));
  }
  return Status::OK();
}

Status EmitAndFlush(const Streams& s, std::string_view text) {
  LANCE_RETURN_NOT_OK(Emit(s.out, text));
  return FlushOut(s);
}

Status EmitJsonLine(const Streams& s, const JsonDoc& doc) {
  return EmitAndFlush(s, DumpJson(doc) + "\n");
}

Status EmitResultJson(const Args& args, const DatasetTarget& target,
                      const Dataset& dataset, const JsonDoc& fields, const Streams& s) {
  if (!args.Has("json")) return FlushOut(s);
  JsonDoc doc = JsonDoc::object();
  AddTargetJson(target, dataset, &doc);
  for (const auto& [key, value] : fields.items()) doc[key] = value;
  return EmitJsonLine(s, doc);
}

std::string FormatCommitTime(int64_t timestamp_ms) {
  return FormatIsoTimestamp(timestamp_ms, TimeUnit::kMilli, "UTC");
}

JsonDoc StorageOptionsJson(const io::StorageOptions& options) {
  JsonDoc out = JsonDoc::object();
  for (const auto& [key, value] : options) out[key] = RedactValue(key, value);
  return out;
}

std::string StorageOptionsText(const io::StorageOptions& options) {
  std::string out;
  for (const auto& [key, value] : options) {
    if (!out.empty()) out += ", ";
    out += key + "=" + RedactValue(key, value);
  }
  return out;
}

}  // namespace lance::cli

namespace lance::cli {

namespace {

// Table cells longer than this are cut ("..."); JSON lines are never cut.
constexpr size_t kMaxTableCell = 60;

// Right-aligned columns: numbers, decimals, durations, and dictionaries of those.
bool IsNumeric(const DataType& type) {
  if (type.id() == TypeId::kDictionary) return IsNumeric(*type.value_type());
  return type.is_integer() || type.is_floating() || type.is_decimal() ||
         type.id() == TypeId::kDuration;
}

}  // namespace

OptionSpec ColumnsOptionSpec() {
  return {"columns", true, true, "comma-separated columns to print, in this order"};
}

OptionSpec RowFormatOptionSpec() {
  return {"format", true, false, "table (default) or jsonl"};
}

Result<std::vector<std::string>> ColumnsFrom(const Args& args) {
  if (!args.Has("columns")) return std::vector<std::string>{};
  return ParseColumnList(args.GetAll("columns"));
}

Result<std::string> RowFormatFrom(const Args& args) {
  std::string format = args.Get("format").value_or(args.Has("json") ? "jsonl" : "table");
  if (format != "table" && format != "jsonl") {
    return Status::Invalid("--format must be table or jsonl");
  }
  return format;
}

Status PrintRows(RecordBatchReader& reader, const std::string& format, const Streams& s) {
  SchemaPtr schema = reader.schema();
  std::vector<std::string> header;
  std::vector<bool> right;
  for (const auto& f : schema->fields()) {
    header.push_back(f->name());
    right.push_back(IsNumeric(*f->type()));
  }
  TablePrinter table(header, right, kMaxTableCell);
  int64_t rows = 0;
  std::string out;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(auto batch, reader.Next());
    if (batch == nullptr) break;
    const RecordBatch& b = *batch;
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      if (format == "jsonl") {
        AppendJsonRow(b, r, &out);
        out.push_back('\n');
      } else {
        std::vector<std::string> cells;
        cells.reserve(static_cast<size_t>(b.num_columns()));
        for (int c = 0; c < b.num_columns(); ++c) {
          cells.push_back(FormatTextValue(*b.column(c), r));
        }
        table.AddRow(std::move(cells));
      }
    }
    rows += b.num_rows();
    if (format == "jsonl") {
      // Stream JSON lines batch by batch.
      LANCE_RETURN_NOT_OK(Emit(s.out, out));
      out.clear();
    }
  }
  if (format == "table") {
    LANCE_RETURN_NOT_OK(Emit(s.out, table.Render()));
    std::fprintf(s.err, "(%lld row%s)\n", static_cast<long long>(rows),
                 rows == 1 ? "" : "s");
  }
  return FlushOut(s);
}

Result<std::string> ReadInputFile(const std::string& path) {
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    std::string msg = StrCat("cannot open ", JsonQuote(path), ": ", std::strerror(err));
    return err == ENOENT ? Status::NotFound(msg) : Status::IOError(msg);
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  if (f != stdin) std::fclose(f);
  if (failed) {
    return Status::IOError(
        StrCat("cannot read ", JsonQuote(path), ": ", std::strerror(err)));
  }
  return text;
}

Result<InputFormat> InputFormatFrom(const Args& args, const std::string& path) {
  if (auto format = args.Get("format")) return ParseInputFormat(*format);
  if (path == "-") {
    return Status::Invalid("reading stdin ('-') needs --format csv or --format jsonl");
  }
  return InputFormatFromPath(path);
}

}  // namespace lance::cli
