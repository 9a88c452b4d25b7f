// SPDX-License-Identifier: Apache-2.0

#include "lance/io/storage_options_provider.h"

#include <charconv>

namespace lance::io {

namespace {

// nullopt when the key is absent or blank; Invalid when the value is not a non-negative
// decimal integer. The values are lifetimes, never secrets, so they may be quoted.
Result<std::optional<int64_t>> NonNegativeMillis(const StorageOptions& options,
                                                 std::string_view key) {
  auto it = options.find(std::string(key));
  if (it == options.end()) return std::optional<int64_t>();
  std::string_view text = it->second;
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty()) return std::optional<int64_t>();
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return Status::Invalid("storage option '" + std::string(key) +
                           "' must be a non-negative integer number of milliseconds, got '" +
                           it->second + "'");
  }
  return std::optional<int64_t>(value);
}

}  // namespace

Result<std::optional<int64_t>> ExpiresAtMillis(const StorageOptions& options) {
  return NonNegativeMillis(options, kExpiresAtMillisKey);
}

Result<std::chrono::milliseconds> RefreshOffset(const StorageOptions& options,
                                                std::chrono::milliseconds default_offset) {
  auto value = NonNegativeMillis(options, kRefreshOffsetMillisKey);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return default_offset;
  return std::chrono::milliseconds(**value);
}

}  // namespace lance::io
