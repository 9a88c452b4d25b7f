// SPDX-License-Identifier: Apache-2.0
// The tests' token-checking proxy in front of fake-gcs-server; see token_proxy.h.

#include "tests/gcs/token_proxy.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>
#include <utility>

namespace lance::testing {

namespace {

std::string Decode(const std::string& s) { return httplib::detail::decode_url(s, false); }

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
  tokens_[token] = TokenGrant{std::chrono::steady_clock::now() + ttl, boundary_prefix};
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

std::vector<std::string> GcsTokenProxy::Resources(const httplib::Request& req) const {
  const std::string path = PathOf(req.target);
  std::smatch m;
  static const std::regex kJsonObject(
      R"(^/(?:download/)?storage/v1/b/[^/]+/o/([^/]+)(.*)$)");
  static const std::regex kRewrite(R"(^/(?:rewriteTo|copyTo)/b/[^/]+/o/([^/]+)$)");
  static const std::regex kJsonBucket(R"(^/storage/v1/b/[^/]+/o/?$)");
  static const std::regex kUpload(R"(^/upload/storage/v1/b/[^/]+/o/?$)");
  static const std::regex kXmlObject(R"(^/[^/]+/(.+)$)");
  static const std::regex kXmlBucket(R"(^/[^/]+/?$)");
  std::vector<std::string> out;
  if (std::regex_match(path, m, kJsonObject)) {
    out.push_back(Decode(m[1]));
    const std::string rest = m[2];
    std::smatch r;
    if (std::regex_match(rest, r, kRewrite)) out.push_back(Decode(r[1]));
  } else if (std::regex_match(path, kJsonBucket) || std::regex_match(path, kXmlBucket)) {
    out.push_back(Decode(QueryParam(req.target, "prefix").value_or("")));
  } else if (std::regex_match(path, kUpload)) {
    out.push_back(Decode(QueryParam(req.target, "name").value_or("")));
  } else if (std::regex_match(path, m, kXmlObject)) {
    out.push_back(Decode(m[1]));
    if (req.has_header("x-goog-copy-source")) {
      const std::string src = req.get_header_value("x-goog-copy-source");
      const size_t slash = src.find('/', src.front() == '/' ? 1 : 0);
      if (slash != std::string::npos) out.push_back(Decode(src.substr(slash + 1)));
    }
  } else {
    out.push_back("");  // bucket-level or unknown: only an unbounded token may
  }
  return out;
}

bool GcsTokenProxy::Authorize(const httplib::Request& req, httplib::Response& res) {
  const std::string auth = req.get_header_value("Authorization");
  const std::string kBearer = "Bearer ";
  const std::string token =
      auth.compare(0, kBearer.size(), kBearer) == 0 ? auth.substr(kBearer.size()) : "";
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
  if (!it->second.boundary.empty()) {
    for (const std::string& name : Resources(req)) {
      if (!Inside(name, it->second.boundary)) {
        ++counters_.forbidden;
        res.status = 403;
        res.set_content(
            GcsErrorJson(403, "forbidden",
                         "the token's access boundary does not cover '" + name + "'"),
            "application/json; charset=UTF-8");
        return false;
      }
    }
  }
  if (std::find(seen_.begin(), seen_.end(), token) == seen_.end()) seen_.push_back(token);
  return true;
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
    res.set_content(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><InitiateMultipartUploadResult>"
        "<Bucket>" +
            bucket + "</Bucket><Key>" + Decode(object) + "</Key><UploadId>" + id +
            "</UploadId></InitiateMultipartUploadResult>",
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
    res.set_content(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUploadResult>"
        "<Bucket>" +
            bucket + "</Bucket><Key>" + Decode(object) + "</Key><ETag>" + etag +
            "</ETag></CompleteMultipartUploadResult>",
        "application/xml");
  }
  return true;
}

}  // namespace lance::testing
