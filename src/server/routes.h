// SPDX-License-Identifier: Apache-2.0
// The route table of the REST namespace server: one Route per spec operation (method,
// path, the permission it needs, the handler that turns a parsed Call into a Reply), and
// the small wire helpers the request handler and the routes share. Socket-free: nothing
// here knows about HTTP connections (http_server.h) or authentication (api_keys.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/namespace/namespace.h"
#include "lance/namespace/operations.h"
#include "lance/result.h"
#include "lance/server/rest_adapter.h"

namespace lance::server::internal {

inline constexpr char kJsonType[] = "application/json";
inline constexpr char kArrowStreamType[] = "application/vnd.apache.arrow.stream";

/// \brief What a handler answers.
struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = kJsonType;
  /// \brief The spec code of an error reply (-1: success).
  int code = -1;
};

/// \brief Who is calling, once authenticated: what they may do and where.
struct Principal {
  /// \brief For the access log only: a redacted key id ("k3…"), or "" when the server
  /// has no authentication.
  std::string name;
  ns::VendPermission permission = ns::VendPermission::kAdmin;
  /// \brief Requests must name ids inside this namespace (empty: everywhere).
  ns::Identifier prefix;
};

/// \brief One parsed request, as handlers see it.
struct Call {
  std::string op;
  std::string delimiter = "$";
  /// \brief The id of the path (a JSON body's own `id` wins, see ParseBody).
  ns::Identifier id;
  std::map<std::string, std::string> query;
  const std::string* body = nullptr;
  const Principal* principal = nullptr;
  const RequestLimits* limits = nullptr;
  /// \brief The namespace vends no more than principal->permission (a capped view, or
  /// the principal is admin): vended credentials may reach the caller.
  bool vending_capped = true;
  /// \brief RestAdapterOptions::pass_root_credentials.
  bool pass_root_credentials = false;
};

using Handler = std::function<Result<Reply>(ns::LanceNamespace&, const Call&)>;

using Area = ns::OperationArea;

struct Route {
  std::string method;
  Area area;
  /// \brief The path after the id ("describe", "tags/list"); for kTableGlobal the path
  /// after /v1/table ("" or "batch-commit").
  std::string suffix;
  std::string op;
  /// \brief The least permission a caller needs (read: looks; write: changes table
  /// data or declares tables; admin: changes the catalog's shape or drops data).
  ns::VendPermission needs = ns::VendPermission::kRead;
  /// \brief Null: the spec route exists but no core operation backs it (Unsupported).
  Handler handler;
};

/// \brief Every spec route.
std::vector<Route> MakeRoutes();

/// \brief True when `segs[from..]` matches `pattern` ("tags/list"; "*" matches one
/// non-empty segment).
bool SuffixMatches(const std::string& pattern, const std::vector<std::string>& segs,
                   size_t from);
/// \brief "/v1/table/{id}/describe" for the access log.
std::string Template(Area area, const std::string& suffix);

/// \brief application/x-www-form-urlencoded decoding ('+' is a space, %XX a byte; a
/// malformed escape is kept as is).
std::string FormDecode(std::string_view s);
std::vector<std::string_view> SplitView(std::string_view s, char sep);
/// \brief The id a path segment names: the root for an empty segment or the delimiter
/// itself, else the decoded text split on the delimiter.
ns::Identifier ParseId(const std::string& decoded, const std::string& delimiter);

/// \brief The spec's HTTP status of an error kind.
int HttpStatusFor(ns::ErrorCode code);
/// \brief Any 4xx/5xx with the ErrorResponse body (its HTTP status from the code, or
/// `http_status` when given).
Reply ErrorReply(const Status& st, const std::string& instance,
                 std::optional<int> http_status = std::nullopt);
/// \brief Compact JSON; invalid UTF-8 (ids from %FF) is replaced, never thrown on.
std::string DumpJson(const nlohmann::json& j);

/// \brief OK when `id` lies inside the caller's namespace prefix; else PermissionDenied.
Status CheckScope(const Call& c, const ns::Identifier& id);

/// \brief OK when `text` nests JSON arrays/objects at most `max_depth` deep (strings
/// skipped); else InvalidInput. Linear, no allocation: runs before the parser, whose
/// recursion a deep document would otherwise exhaust.
Status CheckJsonDepth(std::string_view text, int max_depth, std::string_view what);

/// \brief Limit errors carry the HTTP status they are answered with (413 for sizes,
/// 400 for shapes), so the handler need not parse messages.
class HttpStatusDetail final : public StatusDetail {
 public:
  explicit HttpStatusDetail(int status) : status_(status) {}
  int status() const { return status_; }
  std::string_view type_id() const override { return "lance::server::HttpStatusDetail"; }
  std::string ToString() const override {
    return "HTTP status " + std::to_string(status_);
  }

 private:
  int status_;
};

}  // namespace lance::server::internal
