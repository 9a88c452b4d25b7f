// SPDX-License-Identifier: Apache-2.0
// The routes of the REST namespace server (routes.h): for each spec operation, how its
// request is read (JSON body, query parameters, Arrow IPC body), checked (the caller's
// namespace scope, the request limits) and handed to the LanceNamespace, and how the
// answer is written.

#include "server/routes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/io/storage_options.h"
#include "lance/ipc/limits.h"
#include "lance/macros.h"
#include "lance/namespace/json_codec.h"
#include "lance/namespace/model_fields.h"
#include "lance/namespace/operations.h"

namespace lance::server::internal {

using ns::ErrorCode;
using ns::NamespaceError;
using Json = nlohmann::json;

std::string DumpJson(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string FormDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
               HexValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

namespace {

// `s` cut at every `sep` (non-empty), keeping empty pieces.
std::vector<std::string_view> SplitOn(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + sep.size();
  }
}

}  // namespace

std::vector<std::string_view> SplitView(std::string_view s, char sep) {
  return SplitOn(s, std::string_view(&sep, 1));
}

ns::Identifier ParseId(const std::string& decoded, const std::string& delimiter) {
  if (decoded.empty() || decoded == delimiter) return {};
  if (delimiter.empty()) return {decoded};
  ns::Identifier id;
  for (std::string_view part : SplitOn(decoded, delimiter)) id.emplace_back(part);
  return id;
}

int HttpStatusFor(ErrorCode code) {
  // Throttling shares the kUnavailable kind with ServiceUnavailable but has its own
  // status.
  if (code == ErrorCode::kThrottling) return 429;
  // The namespace's code table gives every spec code its generic kind (StatusCodeFor), so
  // the HTTP status follows the kind; a code the table lacks is kUnknown, a 500.
  struct KindStatus {
    StatusCode kind;
    int http;
  };
  static constexpr KindStatus kHttpStatusOfKind[] = {
      {StatusCode::kNotFound, 404},       {StatusCode::kAlreadyExists, 409},
      {StatusCode::kConflict, 409},       {StatusCode::kInvalid, 400},
      {StatusCode::kNotImplemented, 501}, {StatusCode::kForbidden, 403},
      {StatusCode::kUnauthorized, 401},   {StatusCode::kUnavailable, 503},
  };
  const StatusCode kind = ns::StatusCodeFor(code);
  for (const KindStatus& row : kHttpStatusOfKind) {
    if (row.kind == kind) return row.http;
  }
  return 500;
}

Reply ErrorReply(const Status& st, const std::string& instance,
                 std::optional<int> http_status) {
  ErrorCode code = ns::NamespaceErrorCode(st);
  Json j = Json::object();
  j["error"] = st.message();
  j["code"] = static_cast<int>(code);
  j["instance"] = instance;
  int status = http_status.value_or(HttpStatusFor(code));
  if (const auto* forced = st.detail_as<HttpStatusDetail>(); forced && !http_status) {
    status = forced->status();
  }
  return Reply{status, DumpJson(j), kJsonType, static_cast<int>(code)};
}

Status CheckScope(const Call& c, const ns::Identifier& id) {
  const ns::Identifier& prefix = c.principal->prefix;
  if (prefix.size() <= id.size() &&
      std::equal(prefix.begin(), prefix.end(), id.begin())) {
    return Status::OK();
  }
  return NamespaceError(ErrorCode::kPermissionDenied,
                        c.op + " on " + ns::JoinIdentifier(id, "$") +
                            " is outside the namespace this key may use");
}

Status CheckJsonDepth(std::string_view text, int max_depth, std::string_view what) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) {
        return NamespaceError(ErrorCode::kInvalidInput,
                              std::string(what) +
                                  " nests JSON deeper than the server's " + "limit of " +
                                  std::to_string(max_depth) + " levels")
            .WithDetail(std::make_shared<HttpStatusDetail>(400));
      }
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return Status::OK();
}

namespace {

Reply JsonReply(const Json& j) { return Reply{200, DumpJson(j), kJsonType, -1}; }

std::optional<std::string> QueryValue(const Call& c, const std::string& name) {
  auto it = c.query.find(name);
  if (it == c.query.end()) return std::nullopt;
  return it->second;
}

Status BadQuery(const Call& c, const std::string& name, std::string_view expected) {
  return NamespaceError(
      ErrorCode::kInvalidInput,
      c.op + " request: query parameter '" + name + "' must be " + std::string(expected));
}

/// \brief Sets `*out` from the query parameter `name` when it is given and `*out` is
/// not set yet (a body's value wins).
Status QueryString(const Call& c, const std::string& name,
                   std::optional<std::string>* out) {
  if (out->has_value()) return Status::OK();
  if (auto v = QueryValue(c, name)) *out = *v;
  return Status::OK();
}

template <typename Int>
Status QueryInt(const Call& c, const std::string& name, std::optional<Int>* out) {
  if (out->has_value()) return Status::OK();
  auto v = QueryValue(c, name);
  if (!v) return Status::OK();
  Int parsed{};
  const char* end = v->data() + v->size();
  auto [ptr, ec] = std::from_chars(v->data(), end, parsed);
  if (ec != std::errc() || ptr != end || v->empty()) {
    return BadQuery(c, name, "an integer");
  }
  *out = parsed;
  return Status::OK();
}

Status QueryBool(const Call& c, const std::string& name, std::optional<bool>* out) {
  if (out->has_value()) return Status::OK();
  auto v = QueryValue(c, name);
  if (!v) return Status::OK();
  if (IEquals(*v, "true") || *v == "1") {
    *out = true;
  } else if (IEquals(*v, "false") || *v == "0") {
    *out = false;
  } else {
    return BadQuery(c, name, "true or false");
  }
  return Status::OK();
}

/// \brief A query parameter holding a JSON object of strings (create_table's
/// `properties` / `storage_options`, as Lance's client sends them).
Status QueryProperties(const Call& c, const std::string& name,
                       std::optional<ns::Properties>* out) {
  auto v = QueryValue(c, name);
  if (!v) return Status::OK();
  LANCE_RETURN_NOT_OK(
      CheckJsonDepth(*v, c.limits->max_json_depth, "query parameter '" + name + "'"));
  Json j = Json::parse(*v, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return BadQuery(c, name, "a JSON object of strings");
  }
  ns::Properties props;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string()) return BadQuery(c, name, "a JSON object of strings");
    props[it.key()] = it.value().get_ref<const std::string&>();
  }
  *out = std::move(props);
  return Status::OK();
}

/// \brief The Arrow IPC body of create / insert / merge_insert against the server's
/// caps, from its metadata alone (nothing is decompressed): sizes answer 413, shapes
/// 400. Also the caller's scope, since these routes take their id from the path only.
Status CheckIpcRequest(const Call& c) {
  LANCE_RETURN_NOT_OK(CheckScope(c, c.id));
  const RequestLimits& limits = *c.limits;
  ipc::IpcLimits caps;
  caps.max_decoded_bytes = limits.max_ipc_decoded_bytes;
  caps.max_rows = limits.max_ipc_rows;
  caps.max_columns = limits.max_ipc_columns;
  caps.max_nesting_depth = limits.max_ipc_nesting_depth;
  Status st = ipc::CheckIpcStreamLimits(*c.body, caps);
  if (st.ok()) return st;
  const std::string what = c.op + " request body";
  if (const auto* cap = st.detail_as<ipc::IpcLimitDetail>()) {
    return NamespaceError(ErrorCode::kInvalidInput, what + ": " + st.message())
        .WithDetail(std::make_shared<HttpStatusDetail>(cap->is_size_limit() ? 413 : 400));
  }
  return NamespaceError(ErrorCode::kInvalidInput,
                        what + " is not a valid Arrow IPC stream: " + st.message());
}

template <typename T>
concept HasId = requires(T t) {
  t.id;
};

template <typename T>
concept HasStorageOptions = requires(T t) {
  t.storage_options;
};

/// \brief The request model from the JSON body (blank: `{}`); the path's id unless the
/// body has its own `id` (exact even for names containing the delimiter). The id is
/// checked against the caller's scope here, after the body had its say, so that no JSON
/// route can forget it.
template <typename Req>
Result<Req> ParseBody(const Call& c) {
  const std::string what = c.op + " request";
  Json j = Json::object();
  const std::string& body = *c.body;
  if (body.find_first_not_of(" \t\r\n") != std::string::npos) {
    LANCE_RETURN_NOT_OK(CheckJsonDepth(body, c.limits->max_json_depth, what + " body"));
    j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return NamespaceError(ErrorCode::kInvalidInput, what + ": body is not valid JSON");
    }
  }
  LANCE_ASSIGN_OR_RAISE(Req req, ns::json_codec::Parse<Req>(body, what));
  if constexpr (HasId<Req>) {
    auto it = j.find("id");
    if (it == j.end() || it->is_null()) req.id = c.id;
    LANCE_RETURN_NOT_OK(CheckScope(c, req.id));
  }
  // Requests without an id (list_all_tables) filter their answer to the scope instead.
  return req;
}

/// \brief Credentials in a describe / declare answer reach the caller only when the
/// namespace vended them within the caller's own permission (see Call::vending_capped):
/// otherwise every key that could hold one is dropped, the non-secret options stay.
void WithholdUncappedCredentials(const Call& c,
                                 std::optional<ns::Properties>* storage_options) {
  if (c.vending_capped || !storage_options->has_value()) return;
  std::erase_if(**storage_options,
                [](const auto& kv) { return io::IsCredentialOptionKey(kv.first); });
}

/// \brief Reads the query parameter `name` into a request field, unless the body set it
/// already: strings as they are, integers, booleans (true/false/1/0), maps as JSON
/// objects of strings, lists as comma-separated values.
template <typename T>
Status ReadQuery(const Call& c, const std::string& name, T* field) {
  if constexpr (ns::IsOptional<T>::value) {
    using V = typename T::value_type;
    if constexpr (std::is_same_v<V, std::string>) {
      return QueryString(c, name, field);
    } else if constexpr (std::is_same_v<V, bool>) {
      return QueryBool(c, name, field);
    } else if constexpr (std::is_integral_v<V>) {
      return QueryInt(c, name, field);
    } else if constexpr (std::is_same_v<V, ns::Properties>) {
      if (field->has_value()) return Status::OK();
      return QueryProperties(c, name, field);
    } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
      if (field->has_value()) return Status::OK();
      if (auto text = QueryValue(c, name)) {
        std::vector<std::string> values;
        for (auto part : SplitView(*text, ',')) {
          if (!part.empty()) values.emplace_back(part);
        }
        *field = std::move(values);
      }
      return Status::OK();
    }
  }
  // Not a query type; operations_test checks that no row of operations.def names one.
  return Status::OK();
}

/// \brief The request of a call as its row of operations.def says: the JSON body (Json,
/// Query) or none (Arrow: the id from the path, the IPC body checked against the caps),
/// then the row's query fields.
template <typename Req>
Result<Req> ReadRequest(const Call& c) {
  constexpr const ns::OperationInfo& kOp = ns::OperationOf<Req>::kInfo;
  Req q;
  if constexpr (kOp.request_body == ns::RequestBody::kArrow) {
    LANCE_RETURN_NOT_OK(CheckIpcRequest(c));
    q.id = c.id;
  } else {
    LANCE_ASSIGN_OR_RAISE(q, ParseBody<Req>(c));
  }
  Status st;
  ns::VisitFields(q, [&](const char* name, auto& field) {
    if (st.ok() && kOp.InQuery(name)) st = ReadQuery(c, name, &field);
  });
  LANCE_RETURN_NOT_OK(st);
  return q;
}

/// \brief update_table_schema_metadata: the spec's body is the metadata map itself (what
/// real Lance's client sends and reads); a body in the request model's shape
/// ({"metadata": {...}}) is accepted too.
template <>
Result<ns::UpdateTableSchemaMetadataRequest> ReadRequest(const Call& c) {
  Json j = Json::object();
  if (c.body->find_first_not_of(" \t\r\n") != std::string::npos) {
    LANCE_RETURN_NOT_OK(
        CheckJsonDepth(*c.body, c.limits->max_json_depth, c.op + " request body"));
    j = Json::parse(*c.body, nullptr, /*allow_exceptions=*/false);
  }
  if (j.is_discarded() || !j.is_object()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          c.op + " request: body must be a JSON object of strings");
  }
  ns::UpdateTableSchemaMetadataRequest q;
  if (j.contains("metadata") || j.contains("id")) {
    LANCE_ASSIGN_OR_RAISE(q, ParseBody<ns::UpdateTableSchemaMetadataRequest>(c));
  } else {
    LANCE_ASSIGN_OR_RAISE(auto metadata,
                          ns::json_codec::Parse<ns::UpdateTableSchemaMetadataResponse>(
                              DumpJson(Json{{"metadata", j}}), c.op + " request"));
    q.id = c.id;
    q.metadata = std::move(metadata.metadata);
    LANCE_RETURN_NOT_OK(CheckScope(c, q.id));
  }
  LANCE_RETURN_NOT_OK(QueryString(c, "branch", &q.branch));
  return q;
}

/// \brief The answer of an operation as its row says; the credentials of a describe /
/// declare / create answer withheld from callers the vending was not capped for.
template <typename Req, typename Out>
Result<Reply> Respond(const Call& c, Out out) {
  constexpr ns::ReplyBody kReply = ns::OperationOf<Req>::kInfo.reply_body;
  if constexpr (kReply == ns::ReplyBody::kStatus) {
    LANCE_RETURN_NOT_OK(out);
    return JsonReply(Json::object());
  } else {
    LANCE_ASSIGN_OR_RAISE(auto value, std::move(out));
    if constexpr (kReply == ns::ReplyBody::kCount) {
      return JsonReply(Json(value));
    } else if constexpr (kReply == ns::ReplyBody::kArrow) {
      return Reply{200, std::move(value), kArrowStreamType, -1};
    } else if constexpr (std::is_same_v<Req, ns::UpdateTableSchemaMetadataRequest>) {
      // As real Lance: the answer is the metadata map itself.
      return JsonReply(Json(value.metadata.value_or(ns::Properties{})));
    } else {
      if constexpr (std::is_same_v<Req, ns::ListAllTablesRequest>) {
        // A caller confined to a namespace sees only the tables inside it.
        if (!c.principal->prefix.empty()) {
          std::erase_if(value.tables, [&](const std::string& full) {
            return !CheckScope(c, ParseId(full, "$")).ok();
          });
        }
      }
      if constexpr (HasStorageOptions<decltype(value)>) {
        WithholdUncappedCredentials(c, &value.storage_options);
      }
      return Reply{200, ns::json_codec::Dump(value), kJsonType, -1};
    }
  }
}

/// \brief What a request may name besides its id: rename_table's target namespace must
/// lie in the caller's scope too.
template <typename Req>
Status CheckTargets(const Call&, const Req&) {
  return Status::OK();
}
template <>
Status CheckTargets(const Call& c, const ns::RenameTableRequest& q) {
  return q.new_namespace_id ? CheckScope(c, *q.new_namespace_id) : Status::OK();
}

/// \brief One call of a backed operation: read, check, run `fn(request, data)`, answer.
template <typename Req, typename Fn>
Result<Reply> Serve(const Call& c, Fn&& fn) {
  LANCE_ASSIGN_OR_RAISE(Req q, ReadRequest<Req>(c));
  LANCE_RETURN_NOT_OK(CheckTargets(c, q));
  return Respond<Req>(c, fn(q, std::string_view(*c.body)));
}

}  // namespace

std::vector<Route> MakeRoutes() {
  std::vector<Route> routes;
  auto add = [&](const ns::OperationInfo& op, Handler handler) {
    routes.push_back(Route{std::string(op.http_method), op.area, std::string(op.route),
                           std::string(op.name), op.permission, std::move(handler)});
  };
  // Every backed operation of operations.def, through Serve.
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...)                              \
  add(ns::OperationOf<ns::Method##Request>::kInfo, [](ns::LanceNamespace& n,            \
                                                      const Call& c) {                  \
    return Serve<ns::Method##Request>(c, [&n](const ns::Method##Request& request,       \
                                              [[maybe_unused]] std::string_view data) { \
      return n.Method(LANCE_NS_ARGS(Body));                                             \
    });                                                                                 \
  });
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION
  // The spec routes no core operation backs: Unsupported (a null handler).
  for (const ns::OperationInfo& op : ns::AllOperations()) {
    if (!op.backed) add(op, nullptr);
  }
  return routes;
}

bool SuffixMatches(const std::string& pattern, const std::vector<std::string>& segs,
                   size_t from) {
  if (segs.size() < from) return false;
  auto pat = SplitView(pattern, '/');
  if (segs.size() - from != pat.size()) return false;
  for (size_t i = 0; i < pat.size(); ++i) {
    if (pat[i] == "*") {
      if (segs[from + i].empty()) return false;
    } else if (pat[i] != segs[from + i]) {
      return false;
    }
  }
  return true;
}

std::string Template(Area area, const std::string& suffix) {
  const std::string base = "/v1/" + std::string(ns::AreaPathSegment(area));
  if (area == Area::kTableGlobal) return suffix.empty() ? base : base + "/" + suffix;
  return base + "/{id}/" + suffix;
}

}  // namespace lance::server::internal
