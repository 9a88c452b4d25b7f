// SPDX-License-Identifier: Apache-2.0
// RequestHandler (request_handler.h).

#include "server/request_handler.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "lance/macros.h"

namespace lance::server::internal {

namespace {

using ns::ErrorCode;
using ns::NamespaceError;
using Json = nlohmann::json;

bool IEqualsPrefix(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string PathOf(const std::string& target) {
  return target.substr(0, target.find('?'));
}

}  // namespace

RequestHandler::RequestHandler(std::shared_ptr<ns::LanceNamespace> ns,
                               const RestAdapterOptions& options)
    : ns_(std::move(ns)),
      limits_(options.limits),
      keys_(options.api_keys),
      access_log_(options.access_log),
      routes_(MakeRoutes()) {
  if (keys_.enabled()) {
    read_view_ = ns_->WithVendPermissionCap(ns::VendPermission::kRead);
    write_view_ = ns_->WithVendPermissionCap(ns::VendPermission::kWrite);
  }
}

Result<Principal> RequestHandler::Authenticate(const HttpRequest& request) const {
  if (!keys_.enabled()) return Principal{};
  bool presented = false;
  if (request.api_key) {
    presented = true;
    if (auto principal = keys_.Find(*request.api_key)) return *principal;
  }
  if (request.authorization) {
    presented = true;
    constexpr std::string_view kBearer = "Bearer ";
    const std::string& value = *request.authorization;
    if (value.size() > kBearer.size() && IEqualsPrefix(value, kBearer)) {
      if (auto principal = keys_.Find(std::string_view(value).substr(kBearer.size()))) {
        return *principal;
      }
    }
  }
  if (!presented) {
    return NamespaceError(ErrorCode::kUnauthenticated,
                          "authentication required: send x-api-key or "
                          "Authorization: Bearer");
  }
  return NamespaceError(ErrorCode::kPermissionDenied,
                        "the credentials presented are not accepted");
}

Reply RequestHandler::Handle(const HttpRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  std::string route_template;
  std::string id_text;
  std::string principal;
  Reply reply = Dispatch(request, &route_template, &id_text, &principal);
  if (reply.body.empty()) reply.body = "{}";
  Log(request, route_template, id_text, principal, reply, start);
  return reply;
}

Reply RequestHandler::Unreadable(const HttpRequest& request, bool over_limit) {
  const auto start = std::chrono::steady_clock::now();
  Status st = over_limit
                  ? NamespaceError(ErrorCode::kInvalidInput,
                                   "request body is larger than the server's limit of " +
                                       std::to_string(limits_.max_body_bytes) + " bytes")
                  : NamespaceError(ErrorCode::kInvalidInput,
                                   "the request body could not be read");
  Reply reply = ErrorReply(st, PathOf(request.target), over_limit ? 413 : 400);
  Log(request, "", "", "", reply, start);
  return reply;
}

Reply RequestHandler::Refused(const HttpRequest& request, int http_status) {
  const auto start = std::chrono::steady_clock::now();
  Status st;
  if (http_status == 413) {
    st = NamespaceError(ErrorCode::kInvalidInput,
                        "request body is larger than the server's limit of " +
                            std::to_string(limits_.max_body_bytes) + " bytes");
  } else if (http_status == 404 || http_status == 405) {
    st = NamespaceError(ErrorCode::kUnsupported, "no route for " + request.method);
  } else if (http_status >= 500) {
    st = NamespaceError(ErrorCode::kInternal, "the server failed to answer");
  } else {
    st = NamespaceError(ErrorCode::kInvalidInput, "malformed HTTP request");
  }
  Reply reply = ErrorReply(st, PathOf(request.target), http_status);
  Log(request, "", "", "", reply, start);
  return reply;
}

namespace {

// The query string of a request target, form-decoded (a repeated key keeps its first
// value).
std::map<std::string, std::string> ParseQuery(const std::string& target) {
  std::map<std::string, std::string> query;
  const auto q = target.find('?');
  if (q == std::string::npos) return query;
  for (auto kv : SplitView(std::string_view(target).substr(q + 1), '&')) {
    if (kv.empty()) continue;
    auto eq = kv.find('=');
    std::string key = FormDecode(kv.substr(0, eq));
    std::string value =
        eq == std::string_view::npos ? std::string() : FormDecode(kv.substr(eq + 1));
    query.emplace(std::move(key), std::move(value));
  }
  return query;
}

}  // namespace

RequestHandler::RouteMatch RequestHandler::FindRoute(
    const std::string& method, const std::vector<std::string>& segs) const {
  RouteMatch match;
  if (segs.size() < 3 || !segs[0].empty() || segs[1] != "v1") return match;
  auto consider = [&](const Route& r, bool with_id, const std::string& id_seg) {
    if (r.method != method && !(r.method == "GET" && method == "HEAD")) {
      match.method_mismatch = true;
      return;
    }
    match.route = &r;
    match.has_id = with_id;
    match.raw_id = id_seg;
  };
  for (const Route& r : routes_) {
    if (match.route != nullptr) break;
    if (segs[2] != ns::AreaPathSegment(r.area)) continue;
    if (r.area == Area::kTableGlobal) {
      if (r.suffix.empty() ? segs.size() == 3 : SuffixMatches(r.suffix, segs, 3)) {
        consider(r, false, "");
      }
    } else if (segs.size() >= 5 && SuffixMatches(r.suffix, segs, 4)) {
      consider(r, true, segs[3]);
    } else if (r.area == Area::kNamespace && SuffixMatches(r.suffix, segs, 3)) {
      // The root with its "/./" segment dropped (delimiter ".").
      consider(r, true, "");
    }
  }
  return match;
}

ns::LanceNamespace* RequestHandler::NamespaceFor(ns::VendPermission permission,
                                                 bool* capped) const {
  // Keys below admin are served through a view that vends no more than they may do;
  // without one, nothing vended reaches them (Call::vending_capped).
  const std::shared_ptr<ns::LanceNamespace>* view = nullptr;
  if (permission == ns::VendPermission::kRead) view = &read_view_;
  if (permission == ns::VendPermission::kWrite) view = &write_view_;
  if (view == nullptr) {
    *capped = true;
    return ns_.get();
  }
  *capped = *view != nullptr;
  return *view ? view->get() : ns_.get();
}

Reply RequestHandler::Dispatch(const HttpRequest& request, std::string* route_template,
                               std::string* id_text, std::string* principal_name) {
  const std::string raw_path = PathOf(request.target);
  const std::string& instance = raw_path;
  Call call;
  call.body = &request.body;
  call.limits = &limits_;
  call.query = ParseQuery(request.target);
  if (auto d = call.query.find("delimiter");
      d != call.query.end() && !d->second.empty()) {
    call.delimiter = d->second;
  }
  if (static_cast<int64_t>(request.body.size()) > limits_.max_body_bytes) {
    return ErrorReply(
        NamespaceError(ErrorCode::kInvalidInput,
                       "request body is larger than the server's limit "
                       "of " +
                           std::to_string(limits_.max_body_bytes) + " bytes"),
        instance, 413);
  }

  // Route lookup on the raw segments ("/v1/<area>/<id>/<suffix...>").
  std::vector<std::string> segs;
  for (auto s : SplitView(raw_path, '/')) segs.emplace_back(s);
  const RouteMatch match = FindRoute(request.method, segs);
  const Route* route = match.route;
  // Authentication comes first: without credentials nothing is revealed, not even
  // which routes exist.
  Result<Principal> principal = Authenticate(request);
  if (!principal.ok()) {
    if (route != nullptr) *route_template = Template(route->area, route->suffix);
    return ErrorReply(principal.status(), instance);
  }
  *principal_name = principal->name;
  if (route == nullptr) {
    if (match.method_mismatch) {
      return ErrorReply(
          NamespaceError(ErrorCode::kUnsupported,
                         "method " + request.method + " is not allowed on " + raw_path),
          instance, 405);
    }
    return ErrorReply(
        NamespaceError(ErrorCode::kUnsupported,
                       "no operation at " + request.method + " " + raw_path),
        instance, 404);
  }
  *route_template = Template(route->area, route->suffix);
  call.op = route->op;
  {
    std::lock_guard<std::mutex> lock(metrics_mu_);
    ++metrics_[route->op];
  }
  if (match.has_id) {
    call.id = ParseId(FormDecode(match.raw_id), call.delimiter);
    *id_text = ns::JoinIdentifier(call.id, call.delimiter);
  }
  if (principal->permission < route->needs) {
    return ErrorReply(
        NamespaceError(
            ErrorCode::kPermissionDenied,
            route->op + " needs " +
                std::string(route->needs == ns::VendPermission::kAdmin ? "admin"
                                                                       : "write") +
                " permission, which this key does not have"),
        instance);
  }
  if (!route->handler) {
    return ErrorReply(
        NamespaceError(ErrorCode::kUnsupported,
                       route->op + " is not supported by " + ns_->namespace_id()),
        instance);
  }
  call.principal = &*principal;
  ns::LanceNamespace* target = NamespaceFor(principal->permission, &call.vending_capped);
  Result<Reply> result = route->handler(*target, call);
  if (!result.ok()) return ErrorReply(result.status(), instance);
  return std::move(*result);
}

void RequestHandler::Log(const HttpRequest& request, const std::string& route,
                         const std::string& id, const std::string& principal,
                         const Reply& reply,
                         std::chrono::steady_clock::time_point start) {
  if (!access_log_) return;
  auto now = std::chrono::system_clock::now();
  int64_t ts_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch())
          .count();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
  if (ms < 0) ms = 0;
  Json j = Json::object();
  j["ts_ms"] = ts_ms;
  j["method"] = request.method;
  j["route"] = route.empty() ? PathOf(request.target) : route;
  if (!id.empty()) j["id"] = id;
  if (!principal.empty()) j["key"] = principal;
  j["status"] = reply.status;
  if (reply.code >= 0) j["code"] = reply.code;
  j["duration_ms"] = static_cast<int64_t>(ms * 1000) / 1000.0;
  j["bytes_in"] = static_cast<int64_t>(request.body.size());
  j["bytes_out"] = static_cast<int64_t>(reply.body.size());
  j["remote"] = request.remote;
  std::string line = DumpJson(j);
  std::lock_guard<std::mutex> lock(log_mu_);
  access_log_(line);
}

std::map<std::string, int64_t> RequestHandler::ops_metrics() const {
  std::lock_guard<std::mutex> lock(metrics_mu_);
  return metrics_;
}

void RequestHandler::reset_ops_metrics() {
  std::lock_guard<std::mutex> lock(metrics_mu_);
  metrics_.clear();
}

}  // namespace lance::server::internal
