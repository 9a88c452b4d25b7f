// SPDX-License-Identifier: Apache-2.0
// A token-checking proxy in front of fake-gcs-server, which checks no credentials at all:
// it accepts a request only with "Authorization: Bearer <token>" for a token it was told
// about and that has not expired, and, for a token with a boundary prefix (a downscoped
// token, as Lance's GCP vendor mints with a Credential Access Boundary), only on objects
// and listing prefixes inside that prefix. Other requests get the answers GCS gives: 401
// (unknown or expired token) and 403 (outside the boundary), as JSON API errors.
//
// With `xml_writes`, it also carries the XML API writes of object_store (real Lance),
// which fake-gcs-server does not implement, over to its JSON API: a PUT of
// /<bucket>/<object> becomes a media upload (x-goog-if-generation-match -> the
// ifGenerationMatch parameter), a PUT with x-goog-copy-source a rewrite, and an XML
// multipart upload (POST ?uploads, PUT ?partNumber&uploadId, POST ?uploadId, DELETE
// ?uploadId) is held here and becomes one media upload when it completes. Everything else
// is forwarded as is (fake-gcs-server serves XML reads, HEAD, DELETE and listings).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lance/result.h"

namespace httplib {
class Server;
class Result;
struct Request;
struct Response;
}  // namespace httplib

namespace lance::testing {

class GcsTokenProxy {
 public:
  struct Options {
    std::string target;  ///< fake-gcs-server, e.g. "http://127.0.0.1:4443"
    bool xml_writes = false;
  };
  /// \brief Starts serving on an ephemeral loopback port.
  static Result<std::unique_ptr<GcsTokenProxy>> Start(Options options);
  ~GcsTokenProxy();

  /// \brief "http://127.0.0.1:<port>".
  std::string endpoint() const;
  int port() const { return port_; }

  /// \brief Accepts `token` for `ttl` from now (on the steady clock), on every object
  /// or, with a non-empty `boundary_prefix`, on objects and list prefixes that start
  /// with it.
  void AddToken(const std::string& token, std::chrono::milliseconds ttl,
                const std::string& boundary_prefix = "");
  /// \brief `token` is refused from now on.
  void ExpireToken(const std::string& token);
  /// \brief The next `count` requests are answered `status` (503, 429, ...) without
  /// reaching the server.
  void FailNext(int count, int status);

  struct Counters {
    int64_t forwarded = 0;
    int64_t unauthorized = 0;  ///< 401s sent
    int64_t forbidden = 0;     ///< 403s sent
    int64_t translated = 0;    ///< XML writes carried over to the JSON API
    int64_t injected = 0;      ///< failures sent by FailNext
  };
  Counters counters() const;
  /// \brief The distinct tokens of accepted requests, in the order first seen.
  std::vector<std::string> tokens_seen() const;

 private:
  GcsTokenProxy() = default;
  void Handle(const httplib::Request& req, httplib::Response& res);
  // The objects or list prefixes `req` touches (object names, decoded).
  std::vector<std::string> Resources(const httplib::Request& req) const;
  bool Authorize(const httplib::Request& req, httplib::Response& res);
  void Forward(const httplib::Request& req, httplib::Response& res);
  bool TranslateXmlWrite(const httplib::Request& req, httplib::Response& res);
  bool TranslateXmlMultipart(const httplib::Request& req, httplib::Response& res,
                             const std::string& bucket, const std::string& object);
  httplib::Result MediaUpload(const std::string& bucket, const std::string& object,
                              std::string body, const std::string& if_generation_match);
  static void Answer(httplib::Response& res, const httplib::Result& result);

  struct TokenGrant {
    std::chrono::steady_clock::time_point expires;
    std::string boundary;
  };
  Options options_;
  std::string target_host_;
  int target_port_ = 0;
  int port_ = 0;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<std::string, TokenGrant> tokens_;
  std::vector<std::string> seen_;
  Counters counters_;
  struct Upload {
    std::string key;                   // "<bucket>/<encoded object>"
    std::map<int, std::string> parts;  // part number -> bytes
  };
  std::map<std::string, Upload> uploads_;
  int64_t next_upload_ = 0;
  int fail_next_ = 0;
  int fail_status_ = 503;
};

/// \brief A JSON 401/403 body as GCS sends it.
std::string GcsErrorJson(int code, const std::string& reason, const std::string& message);

}  // namespace lance::testing
