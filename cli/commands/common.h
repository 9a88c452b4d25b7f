// SPDX-License-Identifier: Apache-2.0
// Pieces every verb uses: the shared options, opening a dataset from them, and writing
// to stdout with error checks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "command.h"
#include "lance/table/dataset.h"

namespace lance::cli {

/// \brief --storage-option KEY=VALUE (repeatable).
OptionSpec StorageOptionSpec();
/// \brief --version N: read that dataset version instead of the latest.
OptionSpec VersionOptionSpec();
/// \brief --where PRED.
OptionSpec WhereOptionSpec(const std::string& help);

/// \brief Exactly `names.size()` positionals, else Invalid naming what is missing/extra.
Status ExpectPositionals(const Args& args, const std::vector<std::string>& names);

Result<StorageOptions> StorageOptionsFrom(const Args& args);
Result<std::optional<uint64_t>> VersionFrom(const Args& args);

/// \brief Opens `uri` at --version (latest without it) with --storage-option values.
Result<std::shared_ptr<Dataset>> OpenFromArgs(const std::string& uri, const Args& args);

/// \brief Writes all of `text` to `stream`. \return IOError if the write fails.
Status Emit(std::FILE* stream, std::string_view text);
/// \brief Flushes stdout. \return IOError if that fails (e.g. disk full).
Status FlushOut(const Streams& s);

/// \brief Commit time (ms since the epoch) as ISO-8601 UTC with milliseconds.
std::string FormatCommitTime(int64_t timestamp_ms);

/// \brief The storage options as a JSON object with secret values redacted.
std::string StorageOptionsJson(const StorageOptions& options);
/// \brief "k=v, k2=<redacted>".
std::string StorageOptionsText(const StorageOptions& options);

}  // namespace lance::cli
