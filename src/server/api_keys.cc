// SPDX-License-Identifier: Apache-2.0
// API keys (api_keys.h) and the text form they are configured in (rest_adapter.h
// ParseApiKeys).

#include "server/api_keys.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <cctype>
#include <cstdio>

#include "lance/macros.h"
#include "lance/namespace/credential_vendor.h"

namespace lance::server {

namespace internal {

ApiKeyStore::ApiKeyStore(const std::vector<ApiKey>& keys) {
  for (const ApiKey& key : keys) {
    Entry entry;
    entry.digest = Hash(key.key);
    // A fingerprint names the key in logs: stable, short, and useless to an attacker.
    char name[16];
    std::snprintf(name, sizeof(name), "key:%02x%02x%02x%02x", entry.digest[0],
                  entry.digest[1], entry.digest[2], entry.digest[3]);
    entry.principal.name = name;
    entry.principal.permission = key.permission;
    entry.principal.prefix = key.namespace_prefix;
    entries_.push_back(std::move(entry));
  }
}

ApiKeyStore::Digest ApiKeyStore::Hash(std::string_view token) {
  Digest digest;
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(),
         digest.data());
  return digest;
}

std::optional<Principal> ApiKeyStore::Find(std::string_view token) const {
  const Digest presented = Hash(token);
  const Entry* match = nullptr;
  // Every entry is compared, with CRYPTO_memcmp (no early exit), whatever matched.
  for (const Entry& entry : entries_) {
    const bool equal =
        CRYPTO_memcmp(entry.digest.data(), presented.data(), presented.size()) == 0;
    if (equal && match == nullptr) match = &entry;
  }
  if (match == nullptr) return std::nullopt;
  return match->principal;
}

}  // namespace internal

namespace {

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

}  // namespace

Result<std::vector<ApiKey>> ParseApiKeys(std::string_view text, std::string_view source) {
  std::vector<ApiKey> keys;
  size_t start = 0;
  int entry_number = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of("\n,", start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view entry = text.substr(start, end - start);
    start = end + 1;
    ++entry_number;
    std::vector<std::string_view> fields = Fields(entry);
    if (fields.empty() || fields[0].front() == '#') continue;
    // Errors name the entry by number: its text holds a key.
    const std::string where =
        std::string(source) + ", entry " + std::to_string(entry_number);
    if (fields.size() > 3) {
      return Status::Invalid(where,
                             ": expected 'KEY [read|write|admin [NAMESPACE]]', got ",
                             std::to_string(fields.size()), " fields");
    }
    ApiKey key;
    key.key = std::string(fields[0]);
    if (fields.size() >= 2) {
      auto permission = ns::ParseVendPermission(fields[1]);
      if (!permission.ok()) {
        return Status::Invalid(where, ": the permission must be read, write or admin");
      }
      key.permission = *permission;
    }
    if (fields.size() == 3) {
      // The namespace prefix is its levels joined with '$' (the REST delimiter).
      std::string_view prefix = fields[2];
      size_t level_start = 0;
      while (level_start <= prefix.size()) {
        size_t dollar = prefix.find('$', level_start);
        if (dollar == std::string_view::npos) dollar = prefix.size();
        std::string_view level = prefix.substr(level_start, dollar - level_start);
        if (level.empty()) {
          return Status::Invalid(where, ": empty level in the namespace prefix");
        }
        key.namespace_prefix.emplace_back(level);
        level_start = dollar + 1;
      }
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace lance::server
