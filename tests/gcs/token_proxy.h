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
//
// It also stands in for Google's Security Token Service as far as downscoping goes
// (POST /v1/token, sts_url()): an RFC 8693 token exchange of a token it knows, with a
// Credential Access Boundary in `options` (access_boundary.h), answers a new random token
// that it then enforces with that boundary: one bucket, the object and listing prefixes
// of the condition, and the permissions of the roles (objectViewer: get + list;
// objectCreator: create, and overwriting an existing object needs delete as well, as on
// GCS; objectAdmin: everything). Its lifetime is what Google gives (the source token's
// remaining lifetime, at most an hour), capped by Options::sts_max_lifetime and by a
// `max_lifetime_ms` query parameter of the request URL (tests make tokens that really
// expire during a test with it).
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
#include "tests/gcs/access_boundary.h"

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
    /// \brief Longest lifetime of a token the STS stand-in mints (Google: 1 h).
    std::chrono::milliseconds sts_max_lifetime{3'600'000};
  };
  /// \brief Starts serving on an ephemeral loopback port.
  static Result<std::unique_ptr<GcsTokenProxy>> Start(Options options);
  ~GcsTokenProxy();

  /// \brief "http://127.0.0.1:<port>".
  std::string endpoint() const;
  /// \brief The STS stand-in: endpoint() + "/v1/token".
  std::string sts_url() const { return endpoint() + "/v1/token"; }
  int port() const { return port_; }

  /// \brief Accepts `token` for `ttl` from now (on the steady clock), on every object
  /// or, with a non-empty `boundary_prefix`, on objects and list prefixes that start
  /// with it.
  void AddToken(const std::string& token, std::chrono::milliseconds ttl,
                const std::string& boundary_prefix = "");
  /// \brief Accepts `token` for `ttl` within `boundary` only (what the STS stand-in
  /// registers for the tokens it mints).
  void AddDownscopedToken(const std::string& token, std::chrono::milliseconds ttl,
                          GcsBoundary boundary);
  /// \brief `token` is refused from now on.
  void ExpireToken(const std::string& token);
  /// \brief The next `count` requests are answered `status` (503, 429, ...) without
  /// reaching the server.
  void FailNext(int count, int status);

  struct Counters {
    int64_t forwarded = 0;
    int64_t unauthorized = 0;   ///< 401s sent
    int64_t forbidden = 0;      ///< 403s sent
    int64_t translated = 0;     ///< XML writes carried over to the JSON API
    int64_t injected = 0;       ///< failures sent by FailNext
    int64_t sts_exchanges = 0;  ///< tokens minted by the STS stand-in
    int64_t sts_refused = 0;    ///< token exchanges refused (400)
  };
  Counters counters() const;
  /// \brief The distinct tokens of accepted requests, in the order first seen.
  std::vector<std::string> tokens_seen() const;
  /// \brief The boundaries of the tokens the STS stand-in minted, oldest first.
  std::vector<GcsBoundary> minted_boundaries() const;

 private:
  GcsTokenProxy() = default;
  void Handle(const httplib::Request& req, httplib::Response& res);
  // What a request does, on which bucket and object (or listing prefix), decoded.
  struct Access {
    GcsPermission needs = kGcsGet;
    bool bucket_level = false;  // a bucket operation: only an unbounded token may
    bool create_only = false;   // ifGenerationMatch=0: never overwrites
    std::string bucket;
    std::string name;  // the object, or the listing prefix for kGcsList
  };
  std::vector<Access> Accesses(const httplib::Request& req) const;
  // Why `grant` may not do `access` ("" when it may).
  struct TokenGrant;
  static std::string Denied(const TokenGrant& grant, const Access& access);
  bool Authorize(const httplib::Request& req, httplib::Response& res);
  bool Exists(const std::string& bucket, const std::string& object);
  void HandleSts(const httplib::Request& req, httplib::Response& res);
  void NoteResumableSession(const httplib::Request& req, const std::string& location);
  void Forward(const httplib::Request& req, httplib::Response& res);
  bool TranslateXmlWrite(const httplib::Request& req, httplib::Response& res);
  bool TranslateXmlMultipart(const httplib::Request& req, httplib::Response& res,
                             const std::string& bucket, const std::string& object);
  httplib::Result MediaUpload(const std::string& bucket, const std::string& object,
                              std::string body, const std::string& if_generation_match);
  static void Answer(httplib::Response& res, const httplib::Result& result);

  struct TokenGrant {
    std::chrono::steady_clock::time_point expires;
    bool downscoped = false;  // false: every bucket, object and operation
    GcsBoundary boundary;
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
  std::vector<GcsBoundary> minted_;
  // Resumable upload sessions (upload_id) -> {bucket, object} they write.
  std::map<std::string, std::pair<std::string, std::string>> sessions_;
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
