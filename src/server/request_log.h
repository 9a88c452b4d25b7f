// SPDX-License-Identifier: Apache-2.0
// The access log: one JSON line per answered request (time, method, route template, id,
// key name, status, spec error code, duration, bytes in and out, peer), handed to the
// RestAdapterOptions::access_log callback one line at a time. Never a key or a body.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "server/routes.h"

namespace lance::server::internal {

/// \brief What one line says about the request (the reply says the rest).
struct AccessEntry {
  std::string method;
  /// \brief The route template ("/v1/table/{id}/describe"), or the raw path when the
  /// request matched none.
  std::string route;
  std::string id;         ///< the joined id, when the route has one
  std::string principal;  ///< the key's name, when one was accepted
  int64_t bytes_in = 0;
  std::string remote;
  std::chrono::steady_clock::time_point start;
};

/// \brief Thread-safe: lines are written one at a time.
class AccessLog {
 public:
  explicit AccessLog(std::function<void(const std::string&)> sink)
      : sink_(std::move(sink)) {}

  /// \brief Writes the line of `entry` answered with `reply` (nothing without a sink).
  void Write(const AccessEntry& entry, const Reply& reply);

 private:
  std::function<void(const std::string&)> sink_;
  std::mutex mu_;
};

}  // namespace lance::server::internal
