// SPDX-License-Identifier: Apache-2.0

#include "lance/io/http_error.h"

#include <utility>

#include "lance/str_cat.h"

namespace lance::io {

HttpErrorDetail::HttpErrorDetail(int http_status, std::string service_code,
                                 std::string request_id)
    : http_status_(http_status),
      service_code_(std::move(service_code)),
      request_id_(std::move(request_id)) {}

std::string HttpErrorDetail::ToString() const {
  return StrCat("HTTP ", http_status_, service_code_.empty() ? "" : " ", service_code_,
                " (request id ",
                request_id_.empty() ? std::string_view("none") : request_id_, ")");
}

Status WithHttpErrorDetail(const Status& status, int http_status,
                           std::string service_code, std::string request_id) {
  return status.WithDetail(std::make_shared<HttpErrorDetail>(
      http_status, std::move(service_code), std::move(request_id)));
}

}  // namespace lance::io
