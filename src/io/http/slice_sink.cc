// SPDX-License-Identifier: Apache-2.0
// The successful-body sink the cloud clients share (see slice_sink.h).

#include "io/http/slice_sink.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <utility>

#include "lance/core/ascii.h"

namespace lance::io::http {

namespace {

// Most a Content-Length may make us reserve up front (larger bodies grow as they come).
constexpr int64_t kMaxBodyReserve = int64_t{1} << 30;

// A Content-Length: digits only, at most 18 of them (they always fit).
bool ParseLength(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && *out >= 0;
}

}  // namespace

void SliceSink::Start(const HttpResponse& head) {
  full_answer_to_range_ = target_.ranged && head.status == 200;
  // A full answer to a range: the server ignored it, take the slice out of the object.
  to_skip_ = full_answer_to_range_ ? target_.range_offset : 0;
  limit_ = target_.range_length;
  if (target_.out != nullptr && (limit_ < 0 || limit_ > target_.out_capacity)) {
    limit_ = target_.out_capacity;
  }
  if (target_.out == nullptr) {
    // A whole-object GET into the string: size it once from Content-Length instead of
    // growing (and copying) it as the body arrives.
    int64_t announced = 0;
    if (ParseLength(head.Header("content-length"), &announced) && announced > 0) {
      if (limit_ >= 0) announced = std::min(announced, limit_);
      outcome_->body.reserve(static_cast<size_t>(std::min(announced, kMaxBodyReserve)));
    }
  }
}

ResponseSink::Verdict SliceSink::Write(std::string_view data) {
  if (to_skip_ > 0) {
    const auto skip = static_cast<size_t>(
        std::min<int64_t>(to_skip_, static_cast<int64_t>(data.size())));
    to_skip_ -= static_cast<int64_t>(skip);
    data.remove_prefix(skip);
  }
  if (data.empty()) return Verdict::kContinue;
  const int64_t room =
      limit_ < 0 ? std::numeric_limits<int64_t>::max() : limit_ - outcome_->written;
  bool done = false;
  if (static_cast<int64_t>(data.size()) > room) {
    if (!full_answer_to_range_) {
      outcome_->overflow = true;
      return Verdict::kAbort;
    }
    // We have the whole slice; the rest of the object is not wanted.
    data = data.substr(0, static_cast<size_t>(room));
    done = true;
  }
  if (target_.out != nullptr) {
    std::memcpy(target_.out + outcome_->written, data.data(), data.size());
  } else {
    outcome_->body.append(data);
  }
  outcome_->written += static_cast<int64_t>(data.size());
  return done ? Verdict::kDone : Verdict::kContinue;
}

SliceAnswer SendForSlice(const HttpClient& client, HttpRequest request,
                         const BodyTarget& target) {
  SliceAnswer out;
  SliceSink sink(target, &out);
  request.success_sink = &sink;
  request.max_buffered_body = int64_t{1} << 20;
  HttpResponse answer = client.Send(request);
  out.status = answer.status;
  out.headers = std::move(answer.headers);
  // An error body (the success body is the sink's).
  if (!answer.body.empty()) out.body = std::move(answer.body);
  out.transport_error = answer.error;
  out.transport_code = answer.transport_code;
  out.transport_message = std::move(answer.transport_message);
  return out;
}

std::string_view HeaderValue(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreAsciiCase(key, name)) return value;
  }
  return {};
}

}  // namespace lance::io::http
