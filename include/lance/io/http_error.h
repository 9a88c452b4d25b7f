// SPDX-License-Identifier: Apache-2.0
/// \file http_error.h
/// \brief HttpErrorDetail: the typed detail of a Status built from an HTTP error answer
/// (S3 today; REST catalogs later), so that callers decide on fields, never on text.
///
///   if (const auto* http = status.detail_as<io::HttpErrorDetail>()) {
///     if (http->service_code() == "SlowDown") ...
///   }

#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "lance/status.h"

namespace lance::io {

class HttpErrorDetail final : public StatusDetail {
 public:
  /// \brief `http_status`: the answer's status (404, 403, 503...). `service_code`: the
  /// service's error code ("NoSuchKey", "AccessDenied", "SlowDown"; empty when the answer
  /// had none, e.g. a HEAD). `request_id`: the server's id of the request (S3's
  /// x-amz-request-id / <RequestId>; empty when absent).
  HttpErrorDetail(int http_status, std::string service_code, std::string request_id);

  static constexpr std::string_view kTypeId = "lance::io::HttpErrorDetail";

  int http_status() const { return http_status_; }
  const std::string& service_code() const { return service_code_; }
  const std::string& request_id() const { return request_id_; }

  std::string_view type_id() const override { return kTypeId; }
  /// \brief "HTTP 404 NoSuchKey (request id tx00...)": status, code and request id only;
  /// never a header, URL query or credential.
  std::string ToString() const override;

 private:
  int http_status_;
  std::string service_code_;
  std::string request_id_;
};

/// \brief `status` carrying a new HttpErrorDetail (OK stays OK).
Status WithHttpErrorDetail(const Status& status, int http_status,
                           std::string service_code, std::string request_id);

}  // namespace lance::io
