// SPDX-License-Identifier: Apache-2.0
// The reading of a cloud store's storage options (private): each store names its keys
// (lower case, aliases included) and the setting each one gives; OptionReader groups the
// options by setting, refuses two spellings of one setting with different values, and
// reads typed values from the options or the environment. ReadRemoteTuning reads the
// settings all stores share (RemoteTuning).
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lance/io/credentials.h"
#include "lance/io/remote_tuning.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/result.h"

namespace lance::io::internal {

/// \brief A storage-option key (lower case) and the setting it gives.
struct OptionAlias {
  std::string_view key;
  std::string_view setting;
};

/// \brief The setting of every key that contains "allow_http" (Lance's rule).
inline constexpr std::string_view kAllowHttpSetting = "allow_http";

using EnvNames = std::initializer_list<std::string_view>;

class OptionReader {
 public:
  /// \brief Groups `options` by setting: the keys of `tables` (matched
  /// case-insensitively, surrounding blanks ignored), the keys of RemoteTuning, and any
  /// key containing "allow_http". Blank values count as absent. `env` (null for none)
  /// fills in what the options leave out where a read names variables.
  /// \return Invalid (ConflictingSettingsError naming `kind`, e.g. "S3 setting") when
  /// two keys of one setting carry different values; the `boolean` settings are compared
  /// parsed ("1" equals "true").
  static Result<OptionReader> Make(
      const StorageOptions& options,
      std::initializer_list<std::span<const OptionAlias>> tables, std::string_view kind,
      std::initializer_list<std::string_view> boolean, const EnvLookup& env);

  /// \brief The setting's value from the options, else from the first set variable of
  /// `env_names`.
  std::optional<OptionSetting> Lookup(std::string_view setting,
                                      EnvNames env_names = {}) const;
  /// \brief Typed reads: `out` is left as is when the setting is absent. \return
  /// Invalid naming the key for a malformed value.
  Status Text(std::string_view setting, EnvNames env_names, std::string* out) const;
  Status Bool(std::string_view setting, EnvNames env_names, bool* out) const;
  Status Duration(std::string_view setting, EnvNames env_names,
                  std::chrono::milliseconds* out) const;
  /// \brief A whole number of milliseconds in [0, 1 h].
  Status Millis(std::string_view setting, std::chrono::milliseconds* out) const;
  /// \brief A decimal integer in [min, max].
  Result<std::optional<int64_t>> Integer(std::string_view setting, EnvNames env_names,
                                         int64_t min, int64_t max) const;
  template <typename Int>
  Status Integer(std::string_view setting, EnvNames env_names, int64_t min, int64_t max,
                 Int* out) const {
    LANCE_ASSIGN_OR_RAISE(std::optional<int64_t> v,
                          Integer(setting, env_names, min, max));
    if (v) *out = static_cast<Int>(*v);
    return Status::OK();
  }

  const EnvLookup& env() const { return *env_; }

 private:
  OptionReader(std::map<std::string_view, std::vector<OptionSetting>, std::less<>> given,
               const EnvLookup* env)
      : given_(std::move(given)), env_(env) {}

  std::map<std::string_view, std::vector<OptionSetting>, std::less<>> given_;
  const EnvLookup* env_;
};

/// \brief How a store reads RemoteTuning.
struct TuningRules {
  /// \brief Whether OBJECT_STORE_CLIENT_MAX_RETRIES / _RETRY_TIMEOUT fill in the retries.
  bool retry_env = true;
  /// \brief The largest read chunk.
  int64_t max_read_chunk = std::numeric_limits<int64_t>::max();
};

/// \brief Reads the RemoteTuning settings; a max_backoff below initial_backoff is raised
/// to it (a smaller cap would make the first delay meaningless).
Status ReadRemoteTuning(const OptionReader& read, const TuningRules& rules,
                        RemoteTuning* out);

/// \brief "30s" for whole seconds, else "1500ms".
std::string FormatDuration(std::chrono::milliseconds d);

}  // namespace lance::io::internal
