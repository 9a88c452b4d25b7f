// SPDX-License-Identifier: Apache-2.0
/// \file remote_tuning.h
/// \brief RemoteTuning: the retries, timeouts and connection limits of a cloud store's
/// client. S3Options, AzureOptions and GcsOptions all carry it, read from the same keys
/// with the same defaults.

#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace lance::io {

/// \brief The settings every cloud client reads alike ("client_max_retries",
/// "client_retry_timeout", "connect_timeout", "timeout", "lance_cpp_initial_backoff_ms",
/// "lance_cpp_max_backoff_ms", "lance_cpp_stall_timeout", "lance_cpp_read_chunk_size",
/// "lance_cpp_max_connections"; keys case-insensitive).
struct RemoteTuning {
  /// \brief Retries after the first attempt ("client_max_retries",
  /// OBJECT_STORE_CLIENT_MAX_RETRIES for S3 and Azure). Default 10 as in Lance.
  int max_retries = 10;
  /// \brief Give up retrying once this much time has passed since the first attempt
  /// ("client_retry_timeout", seconds; OBJECT_STORE_CLIENT_RETRY_TIMEOUT for S3 and
  /// Azure). Default 180 s.
  std::chrono::milliseconds retry_timeout{180'000};
  /// \brief First backoff delay; doubles per retry with full jitter, capped by
  /// max_backoff. Not Lance keys ("lance_cpp_initial_backoff_ms",
  /// "lance_cpp_max_backoff_ms").
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{15'000};
  /// \brief TCP+TLS connect timeout ("connect_timeout", a duration). Default 5 s.
  std::chrono::milliseconds connect_timeout{5'000};
  /// \brief Whole-request timeout ("timeout", a duration). Default 0 = none; the
  /// low-speed check below still catches stalled transfers.
  std::chrono::milliseconds request_timeout{0};
  /// \brief A transfer slower than 1 byte/s for this long is aborted and retried
  /// ("lance_cpp_stall_timeout", a duration). Default 30 s.
  std::chrono::milliseconds stall_timeout{30'000};
  /// \brief Reads longer than this are split into parallel ranged reads of this size
  /// ("lance_cpp_read_chunk_size", bytes). Default 8 MiB.
  int64_t read_chunk_size = 8 << 20;
  /// \brief Most concurrent requests of one store ("lance_cpp_max_connections").
  /// Default 32.
  int max_connections = 32;

  /// \brief "max_retries=10, retry_timeout=180s, connect_timeout=5s, timeout=none,
  /// stall_timeout=30s": the retry and timeout part of the options' ToString.
  std::string RetryToString() const;
};

}  // namespace lance::io
