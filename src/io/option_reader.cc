// SPDX-License-Identifier: Apache-2.0
// The storage-option reader the cloud stores share (see option_reader.h).

#include "io/option_reader.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/core/text.h"
#include "lance/io/s3/s3_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

std::string RemoteTuning::RetryToString() const {
  using internal::FormatDuration;
  return StrCat("max_retries=", max_retries,
                ", retry_timeout=", FormatDuration(retry_timeout),
                ", connect_timeout=", FormatDuration(connect_timeout), ", timeout=",
                request_timeout.count() == 0 ? std::string("none")
                                             : FormatDuration(request_timeout),
                ", stall_timeout=", FormatDuration(stall_timeout));
}

namespace internal {

namespace {

// The keys of RemoteTuning, the same for every store.
constexpr OptionAlias kTuningKeys[] = {
    {"client_max_retries", "max_retries"},
    {"client_retry_timeout", "retry_timeout"},
    {"connect_timeout", "connect_timeout"},
    {"timeout", "request_timeout"},
    {"lance_cpp_initial_backoff_ms", "initial_backoff"},
    {"lance_cpp_max_backoff_ms", "max_backoff"},
    {"lance_cpp_stall_timeout", "stall_timeout"},
    {"lance_cpp_read_chunk_size", "read_chunk_size"},
    {"lance_cpp_max_connections", "max_connections"},
};

// Keys not listed (and not matching the allow_http rule) are ignored, as object_store
// drops keys it does not parse.
std::optional<std::string_view> SettingOfKey(
    std::string_view key, std::initializer_list<std::span<const OptionAlias>> tables) {
  for (std::span<const OptionAlias> table : tables) {
    for (const OptionAlias& alias : table) {
      if (alias.key == key) return alias.setting;
    }
  }
  for (const OptionAlias& alias : kTuningKeys) {
    if (alias.key == key) return alias.setting;
  }
  if (key.find("allow_http") != std::string_view::npos) return kAllowHttpSetting;
  return std::nullopt;
}

}  // namespace

// Empty values count as absent: namespaces and config files often carry "aws_region": ""
// meaning "not set". Two spellings of one setting with different values (e.g.
// "aws_region" and "region") are ambiguous; picking one silently would depend on map
// order.
Result<OptionReader> OptionReader::Make(
    const StorageOptions& options,
    std::initializer_list<std::span<const OptionAlias>> tables, std::string_view kind,
    std::initializer_list<std::string_view> boolean, const EnvLookup& env) {
  std::map<std::string_view, std::vector<OptionSetting>, std::less<>> given;
  for (const auto& [key, value] : options) {
    if (TrimAscii(value).empty()) continue;
    if (auto setting = SettingOfKey(AsciiToLower(TrimAscii(key)), tables)) {
      given[*setting].push_back(OptionSetting{key, value});
    }
  }
  for (const auto& [setting, settings] : given) {
    const bool is_bool =
        std::find(boolean.begin(), boolean.end(), setting) != boolean.end();
    for (size_t i = 1; i < settings.size(); ++i) {
      bool same = TrimAscii(settings[i].value) == TrimAscii(settings[0].value);
      if (!same && is_bool) {
        auto a = s3::ParseBoolOption(settings[0].source, settings[0].value);
        auto b = s3::ParseBoolOption(settings[i].source, settings[i].value);
        same = a.ok() && b.ok() && *a == *b;
      }
      if (!same) return ConflictingSettingsError(settings[0], settings[i], kind);
    }
  }
  return OptionReader(std::move(given), &env);
}

std::optional<OptionSetting> OptionReader::Lookup(std::string_view setting,
                                                  EnvNames env_names) const {
  if (auto it = given_.find(setting); it != given_.end()) return it->second.front();
  for (std::string_view name : env_names) {
    if (!*env_) break;
    if (auto v = (*env_)(name); v.has_value() && !TrimAscii(*v).empty()) {
      return OptionSetting{std::string(name), *v};
    }
  }
  return std::nullopt;
}

Status OptionReader::Text(std::string_view setting, EnvNames env_names,
                          std::string* out) const {
  if (auto s = Lookup(setting, env_names)) *out = std::string(TrimAscii(s->value));
  return Status::OK();
}

Status OptionReader::Bool(std::string_view setting, EnvNames env_names, bool* out) const {
  if (auto s = Lookup(setting, env_names)) {
    LANCE_ASSIGN_OR_RAISE(*out, s3::ParseBoolOption(s->source, s->value));
  }
  return Status::OK();
}

Status OptionReader::Duration(std::string_view setting, EnvNames env_names,
                              std::chrono::milliseconds* out) const {
  if (auto s = Lookup(setting, env_names)) {
    LANCE_ASSIGN_OR_RAISE(*out, s3::ParseDurationOption(s->source, s->value));
  }
  return Status::OK();
}

Result<std::optional<int64_t>> OptionReader::Integer(std::string_view setting,
                                                     EnvNames env_names, int64_t min,
                                                     int64_t max) const {
  auto s = Lookup(setting, env_names);
  if (!s) return std::optional<int64_t>();
  const std::string_view v = TrimAscii(s->value);
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
    return Status::Invalid("storage option '", s->source, "': '", s->value,
                           "' is not a decimal integer");
  }
  if (out < min || out > max) {
    return Status::Invalid("storage option '", s->source, "': ", out,
                           " is out of range [", min, ", ", max, "]");
  }
  return std::optional<int64_t>(out);
}

Status OptionReader::Millis(std::string_view setting,
                            std::chrono::milliseconds* out) const {
  LANCE_ASSIGN_OR_RAISE(std::optional<int64_t> ms, Integer(setting, {}, 0, 3'600'000));
  if (ms) *out = std::chrono::milliseconds(*ms);
  return Status::OK();
}

Status ReadRemoteTuning(const OptionReader& read, const TuningRules& rules,
                        RemoteTuning* out) {
  LANCE_RETURN_NOT_OK(read.Integer(
      "max_retries",
      rules.retry_env ? EnvNames{"OBJECT_STORE_CLIENT_MAX_RETRIES"} : EnvNames{}, 0, 1000,
      &out->max_retries));
  LANCE_RETURN_NOT_OK(read.Duration(
      "retry_timeout",
      rules.retry_env ? EnvNames{"OBJECT_STORE_CLIENT_RETRY_TIMEOUT"} : EnvNames{},
      &out->retry_timeout));
  LANCE_RETURN_NOT_OK(read.Millis("initial_backoff", &out->initial_backoff));
  LANCE_RETURN_NOT_OK(read.Millis("max_backoff", &out->max_backoff));
  LANCE_RETURN_NOT_OK(read.Duration("connect_timeout", {}, &out->connect_timeout));
  LANCE_RETURN_NOT_OK(read.Duration("request_timeout", {}, &out->request_timeout));
  LANCE_RETURN_NOT_OK(read.Duration("stall_timeout", {}, &out->stall_timeout));
  LANCE_RETURN_NOT_OK(read.Integer("read_chunk_size", {}, 1, rules.max_read_chunk,
                                   &out->read_chunk_size));
  LANCE_RETURN_NOT_OK(
      read.Integer("max_connections", {}, 1, 1024, &out->max_connections));
  if (out->max_backoff < out->initial_backoff) out->max_backoff = out->initial_backoff;
  return Status::OK();
}

std::string FormatDuration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return StrCat(d.count() / 1000, "s");
  return StrCat(d.count(), "ms");
}

}  // namespace internal
}  // namespace lance::io
