// SPDX-License-Identifier: Apache-2.0
// RequestHandler (request_handler.h).

#include "server/request_handler.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "lance/macros.h"
#include "server/auth.h"

namespace lance::server::internal {

namespace {

using ns::ErrorCode;
using ns::NamespaceError;

std::string PathOf(const std::string& target) {
  return target.substr(0, target.find('?'));
}

Status TooLarge(const RequestLimits& limits) {
  return NamespaceError(ErrorCode::kInvalidInput,
                        "request body is larger than the server's limit of " +
                            std::to_string(limits.max_body_bytes) + " bytes");
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

AccessEntry RequestHandler::EntryFor(const HttpRequest& request) {
  AccessEntry entry;
  entry.start = std::chrono::steady_clock::now();
  entry.method = request.method;
  entry.route = PathOf(request.target);  // until a route matches
  entry.bytes_in = static_cast<int64_t>(request.body.size());
  entry.remote = request.remote;
  return entry;
}

Reply RequestHandler::Handle(const HttpRequest& request) {
  AccessEntry entry = EntryFor(request);
  Reply reply = Dispatch(request, &entry);
  if (reply.body.empty()) reply.body = "{}";
  access_log_.Write(entry, reply);
  return reply;
}

Reply RequestHandler::RefuseEarly(const HttpRequest& request, const Status& st,
                                  int http_status) {
  const AccessEntry entry = EntryFor(request);
  Reply reply = ErrorReply(st, PathOf(request.target), http_status);
  access_log_.Write(entry, reply);
  return reply;
}

Reply RequestHandler::Unreadable(const HttpRequest& request, bool over_limit) {
  if (over_limit) return RefuseEarly(request, TooLarge(limits_), 413);
  return RefuseEarly(
      request,
      NamespaceError(ErrorCode::kInvalidInput, "the request body could not be read"),
      400);
}

Reply RequestHandler::Refused(const HttpRequest& request, int http_status) {
  Status st;
  if (http_status == 413) {
    st = TooLarge(limits_);
  } else if (http_status == 404 || http_status == 405) {
    st = NamespaceError(ErrorCode::kUnsupported, "no route for " + request.method);
  } else if (http_status >= 500) {
    st = NamespaceError(ErrorCode::kInternal, "the server failed to answer");
  } else {
    st = NamespaceError(ErrorCode::kInvalidInput, "malformed HTTP request");
  }
  return RefuseEarly(request, st, http_status);
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

Reply RequestHandler::Dispatch(const HttpRequest& request, AccessEntry* entry) {
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
    return ErrorReply(TooLarge(limits_), instance, 413);
  }

  // Route lookup on the raw segments ("/v1/<area>/<id>/<suffix...>").
  std::vector<std::string> segs;
  for (auto s : SplitView(raw_path, '/')) segs.emplace_back(s);
  const RouteMatch match = FindRoute(request.method, segs);
  const Route* route = match.route;
  // Authentication comes first: without credentials nothing is revealed, not even
  // which routes exist.
  Result<Principal> principal =
      Authenticate(keys_, request.api_key, request.authorization);
  if (!principal.ok()) {
    if (route != nullptr) entry->route = Template(route->area, route->suffix);
    return ErrorReply(principal.status(), instance);
  }
  entry->principal = principal->name;
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
  entry->route = Template(route->area, route->suffix);
  call.op = route->op;
  metrics_.Count(route->op);
  if (match.has_id) {
    call.id = ParseId(FormDecode(match.raw_id), call.delimiter);
    entry->id = ns::JoinIdentifier(call.id, call.delimiter);
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

std::map<std::string, int64_t> RequestHandler::ops_metrics() const {
  return metrics_.Snapshot();
}

void RequestHandler::reset_ops_metrics() { metrics_.Reset(); }

}  // namespace lance::server::internal
