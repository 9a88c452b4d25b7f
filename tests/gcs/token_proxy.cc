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

void GcsTokenProxy::Handle(const httplib::Request& req, httplib::Response& res) {
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
  if (req.method != "PUT" || req.target.find('?') != std::string::npos) return false;
  static const std::regex kXmlObject(R"(^/([^/]+)/(.+)$)");
  std::smatch m;
  const std::string path = req.target;
  if (!std::regex_match(path, m, kXmlObject) || m[1] == "upload" || m[1] == "storage") {
    return false;
  }
  const std::string bucket = m[1];
  const std::string object = m[2];  // still encoded
  const std::string match = req.get_header_value("x-goog-if-generation-match");
  httplib::Request json;
  json.method = "POST";
  json.body = req.body;
  json.headers.emplace("Content-Type", "application/octet-stream");
  if (req.has_header("x-goog-copy-source")) {
    std::string src = req.get_header_value("x-goog-copy-source");
    if (!src.empty() && src.front() == '/') src.erase(0, 1);
    const size_t slash = src.find('/');
    json.path = "/storage/v1/b/" + bucket + "/o/" + src.substr(slash + 1) +
                "/rewriteTo/b/" + bucket + "/o/" + object;
    json.body = "{}";
    json.headers = {{"Content-Type", "application/json"}};
    if (!match.empty()) json.path += "?ifGenerationMatch=" + match;
  } else {
    json.path = "/upload/storage/v1/b/" + bucket + "/o?uploadType=media&name=" + object;
    if (!match.empty()) json.path += "&ifGenerationMatch=" + match;
  }
  httplib::Client client(target_host_, target_port_);
  client.set_url_encode(false);
  httplib::Result result = client.send(json);
  {
    std::lock_guard lock(mu_);
    ++counters_.translated;
  }
  if (!result) {
    res.status = 502;
    return true;
  }
  res.status = result->status;
  if (result->status == 200) {
    // The XML API answers a PUT with the ETag and Last-Modified headers, no body.
    auto meta = nlohmann::json::parse(result->body, nullptr, false);
    if (meta.is_object() && meta.contains("etag") && meta["etag"].is_string()) {
      res.set_header("ETag", "\"" + meta["etag"].get<std::string>() + "\"");
    }
    if (meta.is_object() && meta.contains("generation")) {
      const auto& g = meta["generation"];
      res.set_header("x-goog-generation",
                     g.is_string() ? g.get<std::string>() : g.dump());
    }
    return true;
  }
  res.set_content(result->body, result->get_header_value("Content-Type"));
  return true;
}

}  // namespace lance::testing
