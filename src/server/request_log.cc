// SPDX-License-Identifier: Apache-2.0
// AccessLog (request_log.h).

#include "server/request_log.h"

#include <nlohmann/json.hpp>

namespace lance::server::internal {

void AccessLog::Write(const AccessEntry& entry, const Reply& reply) {
  if (!sink_) return;
  const auto now = std::chrono::system_clock::now();
  const int64_t ts_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch())
          .count();
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                        entry.start)
                  .count();
  if (ms < 0) ms = 0;
  nlohmann::json j = nlohmann::json::object();
  j["ts_ms"] = ts_ms;
  j["method"] = entry.method;
  j["route"] = entry.route;
  if (!entry.id.empty()) j["id"] = entry.id;
  if (!entry.principal.empty()) j["key"] = entry.principal;
  j["status"] = reply.status;
  if (reply.code >= 0) j["code"] = reply.code;
  j["duration_ms"] = static_cast<int64_t>(ms * 1000) / 1000.0;
  j["bytes_in"] = entry.bytes_in;
  j["bytes_out"] = static_cast<int64_t>(reply.body.size());
  j["remote"] = entry.remote;
  const std::string line = DumpJson(j);
  std::lock_guard<std::mutex> lock(mu_);
  sink_(line);
}

}  // namespace lance::server::internal
