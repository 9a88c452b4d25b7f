// SPDX-License-Identifier: Apache-2.0
// The REST server's request handling (src/server/request_handler.h): everything a client
// controls -- method, target (path ids, query parameters), the authentication headers
// and the body (JSON or Arrow IPC) -- handed to the socket-free handler of a server over
// a directory namespace in memory, with API keys of each permission and a namespace
// prefix configured. Input layout (fields separated by '\n', the rest is the body):
//   byte 0:  bits 0-2 pick the method, bits 3-4 the key presented (none, read, write,
//            admin confined to namespace "a"), bit 5 sends it as a bearer token
//   line 1:  the request target ("/v1/table/a%24t/describe?delimiter=%24")
//   rest:    the body
// Every answer must be a valid HTTP status with a JSON body (an Arrow IPC stream for a
// successful query_table): a crash, a hang, a sanitizer report or a non-JSON error is
// the bug.
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz/fuzz_entries.h"
#include "lance/macros.h"
#include "lance/namespace/directory_namespace.h"
#include "server/request_handler.h"
#include "server/routes.h"

namespace lance::fuzz {

namespace {

using server::internal::HttpRequest;
using server::internal::Reply;
using server::internal::RequestHandler;

constexpr const char* kMethods[] = {"GET", "POST",   "POST", "POST",
                                    "PUT", "DELETE", "HEAD", "PATCH"};
constexpr const char* kKeys[] = {nullptr, "fuzz-read-key", "fuzz-write-key",
                                 "fuzz-admin-a-key"};

/// One handler per process, over a fresh memory namespace every 512 inputs (so that
/// what earlier inputs created does not grow without bound).
class Harness {
 public:
  Result<Reply> Handle(const HttpRequest& request) {
    std::lock_guard<std::mutex> lock(mu_);
    if (handler_ == nullptr || ++calls_ % 512 == 0) {
      const std::string root = "memory://fuzz-rest-" + std::to_string(generation_++);
      auto made = ns::DirectoryNamespace::FromProperties({{"root", root}});
      if (!made.ok()) return made.status();
      server::RestAdapterOptions options;
      auto keys = server::ParseApiKeys(
          "fuzz-read-key read\nfuzz-write-key write\nfuzz-admin-a-key admin a", "fuzz");
      if (!keys.ok()) return keys.status();
      options.api_keys = std::move(*keys);
      options.limits.max_body_bytes = 1 << 20;
      options.limits.max_ipc_decoded_bytes = 8 << 20;
      options.limits.max_ipc_rows = 1 << 16;
      handler_ = std::make_unique<RequestHandler>(std::move(*made), options);
    }
    return handler_->Handle(request);
  }

 private:
  std::mutex mu_;
  std::unique_ptr<RequestHandler> handler_;
  int64_t calls_ = 0;
  int64_t generation_ = 0;
};

}  // namespace

Status FuzzRestRequest(std::string_view data) {
  if (data.size() < 2) return Status::Invalid("input too short");
  const auto control = static_cast<uint8_t>(data[0]);
  std::string_view rest = data.substr(1);
  const size_t newline = rest.find('\n');
  HttpRequest request;
  request.method = kMethods[control & 7];
  request.target = std::string(rest.substr(0, newline));
  if (newline != std::string_view::npos)
    request.body = std::string(rest.substr(newline + 1));
  if (const char* key = kKeys[(control >> 3) & 3]) {
    if ((control & 0x20) != 0) {
      request.authorization = std::string("Bearer ") + key;
    } else {
      request.api_key = key;
    }
  }
  request.remote = "127.0.0.1";

  static Harness harness;
  LANCE_ASSIGN_OR_RAISE(Reply reply, harness.Handle(request));
  FUZZ_CHECK(reply.status >= 200 && reply.status <= 599, "an invalid HTTP status");
  FUZZ_CHECK(!reply.body.empty(), "an empty answer");
  if (reply.content_type == "application/json") {
    auto j = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
    FUZZ_CHECK(!j.is_discarded(), "an answer that is not JSON: " + reply.body);
    if (reply.status >= 400) {
      FUZZ_CHECK(j.is_object() && j.contains("code") && j["code"].is_number_integer(),
                 "an error without a spec code: " + reply.body);
    }
  } else {
    FUZZ_CHECK(reply.status == 200, "a non-JSON error answer");
  }
  // The keys of this harness are not secret, but no answer may echo a presented one
  // (unless the request itself carried the text elsewhere: answers name the ids asked).
  const std::string decoded_target = server::internal::FormDecode(request.target);
  for (const char* key : kKeys) {
    if (key == nullptr || reply.body.find(key) == std::string::npos) continue;
    const bool asked = request.target.find(key) != std::string::npos ||
                       decoded_target.find(key) != std::string::npos ||
                       request.body.find(key) != std::string::npos;
    FUZZ_CHECK(asked,
               "an answer echoes a key the request presented only as a credential");
  }
  return reply.status < 400 ? Status::OK() : Status::Invalid("HTTP ", reply.status);
}

}  // namespace lance::fuzz
