// SPDX-License-Identifier: Apache-2.0
// Where a cloud client's successful body goes (private): the caller's buffer or a
// string, the slice a ranged read asked for even when the server ignored the range.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lance/io/http/http_client.h"

namespace lance::io::http {

/// \brief The body a request wants; the clients' requests derive from it.
struct BodyTarget {
  /// \brief The caller's buffer (at most `out_capacity` bytes); null: a string.
  uint8_t* out = nullptr;
  int64_t out_capacity = 0;
  /// \brief A ranged read of [range_offset, range_offset + range_length) (-1: to the
  /// end): a full (200) answer to it is cut down to that slice.
  bool ranged = false;
  int64_t range_offset = 0;
  int64_t range_length = -1;
};

/// \brief What a SliceSink received.
struct SliceOutcome {
  /// \brief The body when the target has no buffer.
  std::string body;
  /// \brief Bytes delivered.
  int64_t written = 0;
  /// \brief The server sent more than asked (the transfer was aborted).
  bool overflow = false;
};

/// \brief Receives a 2xx body into the target's buffer or `outcome->body`; bytes past
/// the slice are an overflow, except after a full answer to a range (the rest of the
/// object, not wanted: the transfer stops there).
class SliceSink : public ResponseSink {
 public:
  SliceSink(const BodyTarget& target, SliceOutcome* outcome)
      : target_(target), outcome_(outcome) {}

  void Start(const HttpResponse& head) override;
  Verdict Write(std::string_view data) override;

 private:
  const BodyTarget& target_;
  SliceOutcome* outcome_;
  bool full_answer_to_range_ = false;
  int64_t to_skip_ = 0;
  int64_t limit_ = -1;
};

/// \brief The value of header `name` (case-insensitive) in `headers`; empty when absent.
std::string_view HeaderValue(const Headers& headers, std::string_view name);

/// \brief One attempt's answer as the clients keep it: the success body's outcome (or
/// the error body), the status and headers, or why no answer arrived.
struct SliceAnswer : SliceOutcome {
  /// \brief The HTTP status (0 when no answer arrived).
  int status = 0;
  Headers headers;
  /// \brief Why no answer arrived, when none did (libcurl's code and message, never a
  /// header).
  TransportError transport_error = TransportError::kNone;
  int transport_code = 0;
  std::string transport_message;

  bool answered() const { return transport_error == TransportError::kNone; }
  std::string_view Header(std::string_view name) const {
    return HeaderValue(headers, name);
  }
};

/// \brief Sends `request` through `client`: a 2xx body into `target`'s slice, an error
/// body (at most 1 MiB; an absurd one aborts the transfer) into SliceAnswer::body.
SliceAnswer SendForSlice(const HttpClient& client, HttpRequest request,
                         const BodyTarget& target);

}  // namespace lance::io::http
