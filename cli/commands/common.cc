// SPDX-License-Identifier: Apache-2.0
#include "commands/common.h"

#include <cerrno>
#include <cstring>

#include "lance/core/type.h"
#include "lib/cli_options.h"
#include "lib/json.h"
#include "lib/scalar_codec.h"

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
    return Status::Invalid("missing " + names[args.positionals.size()]);
  }
  if (args.positionals.size() > names.size()) {
    return Status::Invalid("unexpected argument " +
                           QuoteForMessage(args.positionals[names.size()]));
  }
  return Status::OK();
}

Result<StorageOptions> StorageOptionsFrom(const Args& args) {
  auto parsed = ParseStorageOptions(args.GetAll("storage-option"));
  if (!parsed.ok()) return parsed.status();
  return StorageOptions(parsed->begin(), parsed->end());
}

Result<std::optional<uint64_t>> VersionFrom(const Args& args) {
  auto text = args.Get("version");
  if (!text) return std::optional<uint64_t>();
  auto n = ParseCount(*text, "version");
  if (!n.ok()) return n.status();
  return std::optional<uint64_t>(static_cast<uint64_t>(*n));
}

Result<std::shared_ptr<Dataset>> OpenFromArgs(const std::string& uri, const Args& args) {
  OpenOptions options;
  auto storage = StorageOptionsFrom(args);
  if (!storage.ok()) return storage.status();
  options.storage_options = std::move(*storage);
  auto version = VersionFrom(args);
  if (!version.ok()) return version.status();
  options.version = *version;
  return Dataset::Open(uri, std::move(options));
}

Status Emit(std::FILE* stream, std::string_view text) {
  if (text.empty()) return Status::OK();
  if (std::fwrite(text.data(), 1, text.size(), stream) != text.size()) {
    return Status::IOError(std::string("writing output failed: ") + std::strerror(errno));
  }
  return Status::OK();
}

Status FlushOut(const Streams& s) {
  if (std::fflush(s.out) != 0) {
    return Status::IOError(std::string("writing output failed: ") + std::strerror(errno));
  }
  return Status::OK();
}

std::string FormatCommitTime(int64_t timestamp_ms) {
  return FormatTimestamp(timestamp_ms, TimeUnit::kMilli, "UTC");
}

std::string StorageOptionsJson(const StorageOptions& options) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : options) {
    if (!first) out.push_back(',');
    first = false;
    out += JsonQuote(key) + ":" + JsonQuote(RedactValue(key, value));
  }
  out.push_back('}');
  return out;
}

std::string StorageOptionsText(const StorageOptions& options) {
  std::string out;
  for (const auto& [key, value] : options) {
    if (!out.empty()) out += ", ";
    out += key + "=" + RedactValue(key, value);
  }
  return out;
}

}  // namespace lance::cli
