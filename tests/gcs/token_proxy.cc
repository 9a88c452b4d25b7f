// SPDX-License-Identifier: Apache-2.0
// The tests' token-checking proxy in front of fake-gcs-server; see token_proxy.h.

#include "tests/gcs/token_proxy.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <utility>

namespace lance::testing {

namespace {

std::string Decode(const std::string& s) { return httplib::detail::decode_url(s, false); }

// An S3 multipart answer: <element><Bucket>bucket</Bucket><Key>key</Key><field>value
// </field></element>.
std::string MultipartXml(const std::string& element, const std::string& bucket,
                         const std::string& key, const std::string& field,
                         const std::string& value) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><" + element + "><Bucket>" + bucket +
         "</Bucket><Key>" + key + "</Key><" + field + ">" + value + "</" + field + "></" +
         element + ">";
}

// The raw query value of `name` in `target` (still encoded), or nullopt.
std::optional<std::string> QueryParam(const std::string& target,
                                      const std::string& name) {
  const size_t q = target.find('?');
  if (q == std::string::npos) return std::nullopt;
  size_t pos = q + 1;
  while (pos <= target.size()) {
    size_t amp = target.find('&', pos);
    if (amp == std::string::npos) amp = target.size();
    const std::string pair = target.substr(pos, amp - pos);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      return eq == std::string::npos ? std::string() : pair.substr(eq + 1);
    }
    pos = amp + 1;
  }
  return std::nullopt;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string PathOf(const std::string& target) {
  return target.substr(0, target.find('?'));
}

bool Inside(const std::string& name, const std::string& boundary) {
  return name.compare(0, boundary.size(), boundary) == 0;
}

// Percent-encodes all but the unreserved characters (an object name as one path
// segment).
std::string EncodeComponent(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The error answer of a token exchange (RFC 6749 section 5.2).
void StsError(httplib::Response& res, const std::string& error,
              const std::string& description) {
  res.status = 400;
  nlohmann::json body = {{"error", error}, {"error_description", description}};
  res.set_content(body.dump(), "application/json; charset=utf-8");
}

std::string RandomToken() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device rd;
  std::string out = "ya29.d.";
  for (int i = 0; i < 40; ++i) out += kHex[rd() & 15];
  return out;
}

}  // namespace

std::string GcsErrorJson(int code, const std::string& reason,
                         const std::string& message) {
  nlohmann::json body = {
      {"error",
       {{"code", code},
        {"message", message},
        {"errors", {{{"domain", "global"}, {"reason", reason}, {"message", message}}}}}}};
  return body.dump();
}

Result<std::unique_ptr<GcsTokenProxy>> GcsTokenProxy::Start(Options options) {
  std::unique_ptr<GcsTokenProxy> proxy(new GcsTokenProxy());
  static const std::regex kUrl(R"(^http://([^/:]+):(\d+)/?$)");
  std::smatch m;
  if (!std::regex_match(options.target, m, kUrl)) {
    return Status::Invalid("token proxy: target '" + options.target +
                           "' is not http://host:port");
  }
  proxy->target_host_ = m[1];
  proxy->target_port_ = std::stoi(m[2]);
  proxy->options_ = std::move(options);
  proxy->server_ = std::make_unique<httplib::Server>();
  GcsTokenProxy* self = proxy.get();
  auto handler = [self](const httplib::Request& req, httplib::Response& res) {
    self->Handle(req, res);
  };
  httplib::Server& s = *proxy->server_;
  s.Get(".*", handler);
  s.Post(".*", handler);
  s.Put(".*", handler);
  s.Delete(".*", handler);
  s.Patch(".*", handler);
  proxy->port_ = s.bind_to_any_port("127.0.0.1");
  if (proxy->port_ <= 0) return Status::IOError("token proxy: cannot bind a port");
  proxy->thread_ = std::thread([self] { self->server_->listen_after_bind(); });
  for (int i = 0; i < 500 && !s.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return proxy;
}

GcsTokenProxy::~GcsTokenProxy() {
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string GcsTokenProxy::endpoint() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void GcsTokenProxy::AddToken(const std::string& token, std::chrono::milliseconds ttl,
                             const std::string& boundary_prefix) {
  std::lock_guard lock(mu_);
  TokenGrant grant{std::chrono::steady_clock::now() + ttl, !boundary_prefix.empty(), {}};
  grant.boundary.permissions = kGcsAll;
  grant.boundary.object_prefixes = {boundary_prefix};
  grant.boundary.list_prefixes = {boundary_prefix};
  grant.boundary.bucket = "";
  tokens_[token] = grant;
}

void GcsTokenProxy::AddDownscopedToken(const std::string& token,
                                       std::chrono::milliseconds ttl,
                                       GcsBoundary boundary) {
  std::lock_guard lock(mu_);
  tokens_[token] =
      TokenGrant{std::chrono::steady_clock::now() + ttl, true, std::move(boundary)};
}

std::vector<GcsBoundary> GcsTokenProxy::minted_boundaries() const {
  std::lock_guard lock(mu_);
  return minted_;
}

void GcsTokenProxy::ExpireToken(const std::string& token) {
  std::lock_guard lock(mu_);
  auto it = tokens_.find(token);
  if (it != tokens_.end()) it->second.expires = std::chrono::steady_clock::now();
}

GcsTokenProxy::Counters GcsTokenProxy::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

std::vector<std::string> GcsTokenProxy::tokens_seen() const {
  std::lock_guard lock(mu_);
  return seen_;
}

std::vector<GcsTokenProxy::Access> GcsTokenProxy::Accesses(
    const httplib::Request& req) const {
  const std::string path = PathOf(req.target);
  const std::string& method = req.method;
  const bool reads = method == "GET" || method == "HEAD";
  const bool if_absent =
      QueryParam(req.target, "ifGenerationMatch").value_or("") == "0" ||
      req.get_header_value("x-goog-if-generation-match") == "0";
  std::smatch m;
  static const std::regex kJsonObject(
      R"(^/(?:download/)?storage/v1/b/([^/]+)/o/([^/]+)(.*)$)");
  static const std::regex kRewrite(R"(^/(?:rewriteTo|copyTo)/b/([^/]+)/o/([^/]+)$)");
  static const std::regex kJsonList(R"(^/storage/v1/b/([^/]+)/o/?$)");
  static const std::regex kUpload(R"(^/upload/storage/v1/b/([^/]+)/o/?$)");
  static const std::regex kXmlObject(R"(^/([^/]+)/(.+)$)");
  static const std::regex kXmlBucket(R"(^/([^/]+)/?$)");
  std::vector<Access> out;
  auto add = [&](GcsPermission needs, const std::string& bucket, const std::string& name,
                 bool create_only = false) {
    out.push_back(Access{needs, false, create_only, Decode(bucket), Decode(name)});
  };
  // A change to the bucket itself (its metadata): the bucket's owner only.
  auto bucket_update = [&](const std::string& bucket) {
    out.push_back(Access{kGcsUpdate, true, false, Decode(bucket), ""});
  };
  // A call on the bucket: a listing (of the prefix asked for) to read, else an update.
  auto bucket_call = [&](const std::string& bucket) {
    if (reads) {
      add(kGcsList, bucket, QueryParam(req.target, "prefix").value_or(""));
    } else {
      bucket_update(bucket);
    }
  };
  if (std::regex_match(path, m, kJsonObject)) {
    const std::string bucket = m[1], object = m[2], rest = m[3];
    std::smatch r;
    if (rest.empty()) {
      add(reads ? kGcsGet : method == "DELETE" ? kGcsDelete : kGcsUpdate, bucket, object);
    } else if (std::regex_match(rest, r, kRewrite)) {
      add(kGcsGet, bucket, object);
      add(kGcsCreate, r[1], r[2], if_absent);
    } else {
      bucket_update(bucket);
    }
  } else if (std::regex_match(path, m, kJsonList)) {
    bucket_call(m[1]);
  } else if (std::regex_match(path, m, kUpload)) {
    const std::optional<std::string> session = QueryParam(req.target, "upload_id");
    std::string bucket = m[1], object = QueryParam(req.target, "name").value_or("");
    if (session) {
      // Chunks and the cancel of a session write the object the session was opened for.
      std::lock_guard lock(mu_);
      auto it = sessions_.find(Decode(*session));
      object = it == sessions_.end() ? "" : it->second.second;
    }
    add(kGcsCreate, bucket, object, if_absent || (session && method != "POST"));
  } else if (path.rfind("/storage/", 0) == 0 || path.rfind("/upload/", 0) == 0 ||
             path.rfind("/download/", 0) == 0) {
    out.push_back(Access{kGcsUpdate, true, false, "", ""});
  } else if (std::regex_match(path, m, kXmlBucket)) {
    bucket_call(m[1]);
  } else if (std::regex_match(path, m, kXmlObject)) {
    const std::string bucket = m[1], object = m[2];
    if (QueryParam(req.target, "uploads") || QueryParam(req.target, "uploadId")) {
      // The steps of an XML multipart upload (the abort too) are the creator's.
      add(kGcsCreate, bucket, object, method != "POST" || if_absent);
    } else if (reads) {
      add(kGcsGet, bucket, object);
    } else if (method == "DELETE") {
      add(kGcsDelete, bucket, object);
    } else if (method == "PUT") {
      add(kGcsCreate, bucket, object, if_absent);
      if (req.has_header("x-goog-copy-source")) {
        std::string src = req.get_header_value("x-goog-copy-source");
        if (!src.empty() && src.front() == '/') src.erase(0, 1);
        const size_t slash = src.find('/');
        if (slash != std::string::npos) {
          add(kGcsGet, src.substr(0, slash), src.substr(slash + 1));
        }
      }
    } else {
      add(kGcsUpdate, bucket, object);
    }
  } else {
    out.push_back(Access{kGcsUpdate, true, false, "", ""});
  }
  return out;
}

std::string GcsTokenProxy::Denied(const TokenGrant& grant, const Access& access) {
  if (!grant.downscoped) return "";
  const GcsBoundary& b = grant.boundary;
  if (access.bucket_level) return "bucket operations are outside every access boundary";
  if (!b.bucket.empty() && access.bucket != b.bucket) {
    return "the token's access boundary covers bucket '" + b.bucket + "', not '" +
           access.bucket + "'";
  }
  static const std::map<unsigned, std::string> kNames = {
      {kGcsGet, "storage.objects.get"},
      {kGcsList, "storage.objects.list"},
      {kGcsCreate, "storage.objects.create"},
      {kGcsDelete, "storage.objects.delete"},
      {kGcsUpdate, "storage.objects.update"}};
  if ((b.permissions & access.needs) == 0) {
    return "the token's access boundary does not grant " + kNames.at(access.needs);
  }
  const auto& prefixes = access.needs == kGcsList ? b.list_prefixes : b.object_prefixes;
  const bool inside = std::any_of(prefixes.begin(), prefixes.end(),
                                  [&](const auto& p) { return Inside(access.name, p); });
  if (!inside) {
    return "the token's access boundary does not cover '" + access.name + "'";
  }
  return "";
}

bool GcsTokenProxy::Authorize(const httplib::Request& req, httplib::Response& res) {
  const std::string auth = req.get_header_value("Authorization");
  const std::string kBearer = "Bearer ";
  const std::string token =
      auth.compare(0, kBearer.size(), kBearer) == 0 ? auth.substr(kBearer.size()) : "";
  const std::vector<Access> accesses = Accesses(req);
  auto forbid = [&](const std::string& why) {
    std::lock_guard lock(mu_);
    ++counters_.forbidden;
    res.status = 403;
    res.set_content(GcsErrorJson(403, "forbidden", why),
                    "application/json; charset=UTF-8");
    return false;
  };
  TokenGrant grant;
  {
    std::lock_guard lock(mu_);
    auto it = tokens_.find(token);
    if (token.empty() || it == tokens_.end() ||
        std::chrono::steady_clock::now() >= it->second.expires) {
      ++counters_.unauthorized;
      res.status = 401;
      res.set_header("WWW-Authenticate", "Bearer realm=\"https://accounts.google.com/\"");
      res.set_content(GcsErrorJson(401, "authError", "Invalid Credentials"),
                      "application/json; charset=UTF-8");
      return false;
    }
    grant = it->second;
  }
  for (const Access& access : accesses) {
    const std::string why = Denied(grant, access);
    if (!why.empty()) return forbid(why);
    // As on GCS, replacing an existing object also needs storage.objects.delete.
    if (grant.downscoped && access.needs == kGcsCreate && !access.create_only &&
        (grant.boundary.permissions & kGcsDelete) == 0 &&
        Exists(access.bucket, access.name)) {
      return forbid("overwriting '" + access.name +
                    "' needs storage.objects.delete, which the token's access boundary "
                    "does not grant");
    }
  }
  std::lock_guard lock(mu_);
  if (std::find(seen_.begin(), seen_.end(), token) == seen_.end()) seen_.push_back(token);
  return true;
}

bool GcsTokenProxy::Exists(const std::string& bucket, const std::string& object) {
  httplib::Client client(target_host_, target_port_);
  client.set_url_encode(false);
  auto result = client.Get("/storage/v1/b/" + EncodeComponent(bucket) + "/o/" +
                           EncodeComponent(object));
  return result && result->status == 200;
}

void GcsTokenProxy::FailNext(int count, int status) {
  std::lock_guard lock(mu_);
  fail_next_ = count;
  fail_status_ = status;
}

void GcsTokenProxy::Handle(const httplib::Request& req, httplib::Response& res) {
  {
    std::lock_guard lock(mu_);
    if (fail_next_ > 0) {
      --fail_next_;
      ++counters_.injected;
      res.status = fail_status_;
      res.set_content(
          GcsErrorJson(fail_status_,
                       fail_status_ == 429 ? "rateLimitExceeded" : "backendError",
                       "injected by the test"),
          "application/json; charset=UTF-8");
      return;
    }
  }
  if (req.method == "POST" && PathOf(req.target) == "/v1/token") {
    return HandleSts(req, res);
  }
  if (!Authorize(req, res)) return;
  if (options_.xml_writes && TranslateXmlWrite(req, res)) return;
  Forward(req, res);
}

void GcsTokenProxy::Forward(const httplib::Request& req, httplib::Response& res) {
  httplib::Client client(target_host_, target_port_);
  client.set_url_encode(false);
  client.set_read_timeout(60, 0);
  httplib::Request out;
  out.method = req.method;
  out.path = req.target;
  out.body = req.body;
  for (const auto& [name, value] : req.headers) {
    const std::string lower = Lower(name);
    if (lower == "authorization" || lower == "host" || lower == "content-length" ||
        lower == "connection" || lower.rfind("remote_", 0) == 0 ||
        lower.rfind("local_", 0) == 0) {
      continue;
    }
    out.headers.emplace(name, value);
  }
  httplib::Result result = client.send(out);
  {
    std::lock_guard lock(mu_);
    ++counters_.forwarded;
  }
  if (!result) {
    res.status = 502;
    res.set_content(GcsErrorJson(502, "backendError", "fake-gcs-server did not answer"),
                    "application/json");
    return;
  }
  res.status = result->status;
  if (req.method == "POST" && result->status == 200 &&
      QueryParam(req.target, "uploadType").value_or("") == "resumable") {
    NoteResumableSession(req, result->get_header_value("Location"));
  }
  // fake-gcs-server already answered the Range header: keep httplib from applying it a
  // second time to the partial body.
  const_cast<httplib::Request&>(req).ranges.clear();
  const std::string target_base =
      "http://" + target_host_ + ":" + std::to_string(target_port_);
  for (const auto& [name, value] : result->headers) {
    const std::string lower = Lower(name);
    if (lower == "content-length" || lower == "transfer-encoding" ||
        lower == "connection" || lower == "content-type") {
      continue;
    }
    std::string v = value;
    // Resumable session URIs name the server: keep them on the proxy.
    if (lower == "location" && v.compare(0, target_base.size(), target_base) == 0) {
      v = endpoint() + v.substr(target_base.size());
    }
    res.set_header(name, v);
  }
  res.set_content(result->body, result->get_header_value("Content-Type"));
}

void GcsTokenProxy::NoteResumableSession(const httplib::Request& req,
                                         const std::string& location) {
  static const std::regex kUpload(R"(^/upload/storage/v1/b/([^/]+)/o/?$)");
  std::smatch m;
  const std::string path = PathOf(req.target);
  const std::optional<std::string> id = QueryParam(location, "upload_id");
  if (!id || !std::regex_match(path, m, kUpload)) return;
  std::lock_guard lock(mu_);
  sessions_[Decode(*id)] = {Decode(m[1]),
                            Decode(QueryParam(req.target, "name").value_or(""))};
}

// Google's STS, as far as downscoping goes: RFC 8693 token exchange of a known, unexpired
// and unbounded access token, `options` the Credential Access Boundary.
void GcsTokenProxy::HandleSts(const httplib::Request& req, httplib::Response& res) {
  constexpr char kAccessToken[] = "urn:ietf:params:oauth:token-type:access_token";
  auto refuse = [&](const std::string& error, const std::string& description) {
    {
      std::lock_guard lock(mu_);
      ++counters_.sts_refused;
    }
    StsError(res, error, description);
  };
  if (req.get_header_value("Content-Type")
          .rfind("application/x-www-form-urlencoded", 0) != 0) {
    return refuse("invalid_request",
                  "the body must be application/x-www-form-urlencoded");
  }
  httplib::Params form;
  httplib::detail::parse_query_text(req.body, form);
  auto param = [&form](const std::string& name) {
    auto it = form.find(name);
    return it == form.end() ? std::string() : it->second;
  };
  if (param("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange") {
    return refuse("unsupported_grant_type", "grant_type must be token-exchange");
  }
  if (param("subject_token_type") != kAccessToken) {
    return refuse("invalid_request", "subject_token_type must be an access token");
  }
  if (param("requested_token_type") != kAccessToken) {
    return refuse("invalid_request", "requested_token_type must be an access token");
  }
  const std::string subject = param("subject_token");
  if (subject.empty()) return refuse("invalid_request", "subject_token is missing");
  if (form.count("options") == 0) {
    return refuse("invalid_request", "the stand-in only downscopes: options is missing");
  }
  Result<GcsBoundary> boundary = ParseGcsAccessBoundary(param("options"));
  if (!boundary.ok()) return refuse("invalid_request", boundary.status().message());
  const auto now = std::chrono::steady_clock::now();
  std::chrono::milliseconds lifetime = options_.sts_max_lifetime;
  if (auto cap = QueryParam(req.target, "max_lifetime_ms")) {
    lifetime = std::min(lifetime, std::chrono::milliseconds(std::stoll(*cap)));
  }
  std::unique_lock lock(mu_);
  auto it = tokens_.find(subject);
  if (it == tokens_.end() || now >= it->second.expires) {
    lock.unlock();
    return refuse("invalid_grant", "the subject token is invalid or expired");
  }
  if (it->second.downscoped) {
    lock.unlock();
    return refuse("invalid_grant", "the subject token is already downscoped");
  }
  // Google: the downscoped token lives as long as its source, at most an hour.
  lifetime = std::min(lifetime, std::chrono::duration_cast<std::chrono::milliseconds>(
                                    it->second.expires - now));
  const int64_t expires_in =
      std::chrono::duration_cast<std::chrono::seconds>(lifetime).count();
  if (expires_in < 1) {
    lock.unlock();
    return refuse("invalid_grant", "the subject token expires within a second");
  }
  const std::string token = RandomToken();
  tokens_[token] = TokenGrant{now + std::chrono::seconds(expires_in), true, *boundary};
  minted_.push_back(*boundary);
  ++counters_.sts_exchanges;
  lock.unlock();
  nlohmann::json answer = {{"access_token", token},
                           {"issued_token_type", kAccessToken},
                           {"token_type", "Bearer"},
                           {"expires_in", expires_in}};
  res.set_content(answer.dump(), "application/json; charset=utf-8");
}

bool GcsTokenProxy::TranslateXmlWrite(const httplib::Request& req,
                                      httplib::Response& res) {
  static const std::regex kXmlObject(R"(^/([^/]+)/(.+)$)");
  std::smatch m;
  const std::string path = PathOf(req.target);
  if (!std::regex_match(path, m, kXmlObject) || m[1] == "upload" || m[1] == "storage" ||
      m[1] == "download") {
    return false;
  }
  const std::string bucket = m[1];
  const std::string object = m[2];  // still encoded
  if (QueryParam(req.target, "uploads") || QueryParam(req.target, "uploadId")) {
    return TranslateXmlMultipart(req, res, bucket, object);
  }
  if (req.method != "PUT" || req.target.find('?') != std::string::npos) return false;
  const std::string match = req.get_header_value("x-goog-if-generation-match");
  if (!req.has_header("x-goog-copy-source")) {
    Answer(res, MediaUpload(bucket, object, req.body, match));
    return true;
  }
  std::string src = req.get_header_value("x-goog-copy-source");
  if (!src.empty() && src.front() == '/') src.erase(0, 1);
  httplib::Request json;
  json.method = "POST";
  json.path = "/storage/v1/b/" + bucket + "/o/" + src.substr(src.find('/') + 1) +
              "/rewriteTo/b/" + bucket + "/o/" + object;
  if (!match.empty()) json.path += "?ifGenerationMatch=" + match;
  json.body = "{}";
  json.headers = {{"Content-Type", "application/json"}};
  httplib::Client client(target_host_, target_port_);
  client.set_url_encode(false);
  Answer(res, client.send(json));
  return true;
}

httplib::Result GcsTokenProxy::MediaUpload(const std::string& bucket,
                                           const std::string& object, std::string body,
                                           const std::string& if_generation_match) {
  httplib::Request json;
  json.method = "POST";
  json.path = "/upload/storage/v1/b/" + bucket + "/o?uploadType=media&name=" + object;
  if (!if_generation_match.empty())
    json.path += "&ifGenerationMatch=" + if_generation_match;
  json.body = std::move(body);
  json.headers.emplace("Content-Type", "application/octet-stream");
  httplib::Client client(target_host_, target_port_);
  client.set_url_encode(false);
  {
    std::lock_guard lock(mu_);
    ++counters_.translated;
  }
  return client.send(json);
}

// The XML API answers a write with ETag and x-goog-generation headers and no body.
void GcsTokenProxy::Answer(httplib::Response& res, const httplib::Result& result) {
  if (!result) {
    res.status = 502;
    return;
  }
  res.status = result->status;
  if (result->status != 200) {
    res.set_content(result->body, result->get_header_value("Content-Type"));
    return;
  }
  auto meta = nlohmann::json::parse(result->body, nullptr, false);
  if (meta.is_object() && meta.contains("etag") && meta["etag"].is_string()) {
    res.set_header("ETag", "\"" + meta["etag"].get<std::string>() + "\"");
  }
  if (meta.is_object() && meta.contains("generation")) {
    const auto& g = meta["generation"];
    res.set_header("x-goog-generation", g.is_string() ? g.get<std::string>() : g.dump());
  }
}

// The XML multipart upload (object_store's for files of 5 MiB and more), kept here until
// it completes: then its parts, in order, are one media upload.
bool GcsTokenProxy::TranslateXmlMultipart(const httplib::Request& req,
                                          httplib::Response& res,
                                          const std::string& bucket,
                                          const std::string& object) {
  const std::string key = bucket + "/" + object;
  const std::optional<std::string> upload_id = QueryParam(req.target, "uploadId");
  std::unique_lock lock(mu_);
  if (req.method == "POST" && !upload_id) {
    const std::string id = "proxy-upload-" + std::to_string(++next_upload_);
    uploads_[id] = Upload{key, {}};
    res.set_content(MultipartXml("InitiateMultipartUploadResult", bucket, Decode(object),
                                 "UploadId", id),
                    "application/xml");
    return true;
  }
  auto it = upload_id ? uploads_.find(*upload_id) : uploads_.end();
  if (it == uploads_.end() || it->second.key != key) {
    res.status = 404;
    res.set_content("<Error><Code>NoSuchUpload</Code></Error>", "application/xml");
    return true;
  }
  if (req.method == "PUT") {
    const int part = std::stoi(QueryParam(req.target, "partNumber").value_or("0"));
    it->second.parts[part] = req.body;
    res.set_header("ETag", "\"part-" + std::to_string(part) + "-" +
                               std::to_string(req.body.size()) + "\"");
    return true;
  }
  if (req.method == "DELETE") {
    uploads_.erase(it);
    res.status = 204;
    return true;
  }
  // POST ?uploadId=: complete.
  std::string body;
  for (const auto& [number, bytes] : it->second.parts) body += bytes;
  uploads_.erase(it);
  lock.unlock();
  httplib::Result result = MediaUpload(bucket, object, std::move(body), "");
  Answer(res, result);
  if (res.status == 200) {
    const std::string etag = res.get_header_value("ETag");
    res.set_content(MultipartXml("CompleteMultipartUploadResult", bucket, Decode(object),
                                 "ETag", etag),
                    "application/xml");
  }
  return true;
}

}  // namespace lance::testing
