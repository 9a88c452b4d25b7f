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

std::vector<std::string_view> SplitView(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

ns::Identifier ParseId(const std::string& decoded, const std::string& delimiter) {
  if (decoded.empty() || decoded == delimiter) return {};
  ns::Identifier id;
  if (delimiter.empty()) {
    id.push_back(decoded);
    return id;
  }
  size_t start = 0;
  while (true) {
    size_t pos = decoded.find(delimiter, start);
    if (pos == std::string::npos) {
      id.push_back(decoded.substr(start));
      return id;
    }
    id.push_back(decoded.substr(start, pos - start));
    start = pos + delimiter.size();
  }
}

int HttpStatusFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNamespaceNotFound:
    case ErrorCode::kTableNotFound:
    case ErrorCode::kTableIndexNotFound:
    case ErrorCode::kTableTagNotFound:
    case ErrorCode::kTransactionNotFound:
    case ErrorCode::kTableVersionNotFound:
    case ErrorCode::kTableColumnNotFound:
    case ErrorCode::kTableBranchNotFound:
      return 404;
    case ErrorCode::kNamespaceAlreadyExists:
    case ErrorCode::kTableAlreadyExists:
    case ErrorCode::kTableIndexAlreadyExists:
    case ErrorCode::kTableTagAlreadyExists:
    case ErrorCode::kTableBranchAlreadyExists:
    case ErrorCode::kNamespaceNotEmpty:
    case ErrorCode::kConcurrentModification:
    case ErrorCode::kInvalidTableState:
      return 409;
    case ErrorCode::kInvalidInput:
    case ErrorCode::kTableSchemaValidationError:
      return 400;
    case ErrorCode::kUnsupported:
      return 501;
    case ErrorCode::kPermissionDenied:
      return 403;
    case ErrorCode::kUnauthenticated:
      return 401;
    case ErrorCode::kServiceUnavailable:
      return 503;
    case ErrorCode::kThrottling:
      return 429;
    case ErrorCode::kInternal:
      return 500;
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
  LANCE_ASSIGN_OR_RAISE(Req req, ns::json_codec::FromJson<Req>(j, what));
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
  std::erase_if(**storage_options, [](const auto& kv) {
    return io::IsSensitiveOptionKey(kv.first) || kv.first == "expires_at_millis" ||
           kv.first == "refresh_offset_millis";
  });
}

/// \brief Runs a JSON operation: body -> Req, fn(Req&) -> Result<Resp> | Status.
template <typename Req, typename Fn>
Result<Reply> JsonOp(const Call& c, Fn&& fn) {
  LANCE_ASSIGN_OR_RAISE(Req req, ParseBody<Req>(c));
  using Out = decltype(fn(req));
  if constexpr (std::is_same_v<Out, Status>) {
    LANCE_RETURN_NOT_OK(fn(req));
    return JsonReply(Json::object());
  } else {
    LANCE_ASSIGN_OR_RAISE(auto resp, fn(req));
    if constexpr (HasStorageOptions<decltype(resp)>) {
      WithholdUncappedCredentials(c, &resp.storage_options);
    }
    return JsonReply(ns::json_codec::ToJson(resp));
  }
}

}  // namespace

std::vector<Route> MakeRoutes() {
  using ns::LanceNamespace;
  std::vector<Route> r;
  auto add = [&](const char* method, Area area, const char* suffix, const char* op,
                 ns::VendPermission needs, Handler h) {
    r.push_back(Route{method, area, suffix, op, needs, std::move(h)});
  };
  using ns::VendPermission::kAdmin;
  using ns::VendPermission::kRead;
  using ns::VendPermission::kWrite;
  const Area ns_area = Area::kNamespace;
  const Area table_area = Area::kTable;

  // -- namespaces
  add("POST", ns_area, "create", "create_namespace", kAdmin,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::CreateNamespaceRequest>(
            c, [&](ns::CreateNamespaceRequest& q) { return n.CreateNamespace(q); });
      });
  add("GET", ns_area, "list", "list_namespaces", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::ListNamespacesRequest>(
            c, [&](ns::ListNamespacesRequest& q) -> Result<ns::ListNamespacesResponse> {
              LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
              LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
              return n.ListNamespaces(q);
            });
      });
  add("POST", ns_area, "describe", "describe_namespace", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DescribeNamespaceRequest>(
            c, [&](ns::DescribeNamespaceRequest& q) { return n.DescribeNamespace(q); });
      });
  add("POST", ns_area, "drop", "drop_namespace", kAdmin,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DropNamespaceRequest>(
            c, [&](ns::DropNamespaceRequest& q) { return n.DropNamespace(q); });
      });
  add("POST", ns_area, "exists", "namespace_exists", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::NamespaceExistsRequest>(
            c, [&](ns::NamespaceExistsRequest& q) { return n.NamespaceExists(q); });
      });
  add("GET", ns_area, "table/list", "list_tables", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::ListTablesRequest>(
            c, [&](ns::ListTablesRequest& q) -> Result<ns::ListTablesResponse> {
              LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
              LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
              LANCE_RETURN_NOT_OK(QueryBool(c, "include_declared", &q.include_declared));
              return n.ListTables(q);
            });
      });

  // -- table metadata
  add("GET", Area::kTableGlobal, "", "list_all_tables", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::ListAllTablesRequest>(
            c, [&](ns::ListAllTablesRequest& q) -> Result<ns::ListAllTablesResponse> {
              LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
              LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
              LANCE_ASSIGN_OR_RAISE(auto resp, n.ListAllTables(q));
              // A caller confined to a namespace sees only the tables inside it.
              if (!c.principal->prefix.empty()) {
                std::erase_if(resp.tables, [&](const std::string& full) {
                  return !CheckScope(c, ParseId(full, "$")).ok();
                });
              }
              return resp;
            });
      });
  add("POST", table_area, "describe", "describe_table", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DescribeTableRequest>(
            c, [&](ns::DescribeTableRequest& q) -> Result<ns::DescribeTableResponse> {
              LANCE_RETURN_NOT_OK(
                  QueryBool(c, "load_detailed_metadata", &q.load_detailed_metadata));
              LANCE_RETURN_NOT_OK(QueryBool(c, "check_declared", &q.check_declared));
              LANCE_RETURN_NOT_OK(QueryBool(c, "vend_credentials", &q.vend_credentials));
              return n.DescribeTable(q);
            });
      });
  add("POST", table_area, "declare", "declare_table", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DeclareTableRequest>(
            c, [&](ns::DeclareTableRequest& q) { return n.DeclareTable(q); });
      });
  add("POST", table_area, "create-empty", "create_empty_table", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::CreateEmptyTableRequest>(
            c, [&](ns::CreateEmptyTableRequest& q) { return n.CreateEmptyTable(q); });
      });
  add("POST", table_area, "register", "register_table", kAdmin,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::RegisterTableRequest>(
            c, [&](ns::RegisterTableRequest& q) { return n.RegisterTable(q); });
      });
  add("POST", table_area, "deregister", "deregister_table", kAdmin,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DeregisterTableRequest>(
            c, [&](ns::DeregisterTableRequest& q) { return n.DeregisterTable(q); });
      });
  add("POST", table_area, "exists", "table_exists", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::TableExistsRequest>(
            c, [&](ns::TableExistsRequest& q) { return n.TableExists(q); });
      });
  add("POST", table_area, "drop", "drop_table", kAdmin,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DropTableRequest>(
            c, [&](ns::DropTableRequest& q) { return n.DropTable(q); });
      });
  add("POST", table_area, "rename", "rename_table", kAdmin,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::RenameTableRequest>(
            c, [&](ns::RenameTableRequest& q) -> Result<ns::RenameTableResponse> {
              if (q.new_namespace_id)
                LANCE_RETURN_NOT_OK(CheckScope(c, *q.new_namespace_id));
              return n.RenameTable(q);
            });
      });

  // -- table data: Arrow IPC bodies, scalar fields in the query
  add("POST", table_area, "create", "create_table", kWrite,
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        LANCE_RETURN_NOT_OK(CheckIpcRequest(c));
        ns::CreateTableRequest q;
        q.id = c.id;
        LANCE_RETURN_NOT_OK(QueryString(c, "mode", &q.mode));
        LANCE_RETURN_NOT_OK(QueryProperties(c, "properties", &q.properties));
        LANCE_RETURN_NOT_OK(QueryProperties(c, "storage_options", &q.storage_options));
        LANCE_ASSIGN_OR_RAISE(auto resp, n.CreateTable(q, *c.body));
        WithholdUncappedCredentials(c, &resp.storage_options);
        return JsonReply(ns::json_codec::ToJson(resp));
      });
  add("POST", table_area, "insert", "insert_into_table", kWrite,
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        LANCE_RETURN_NOT_OK(CheckIpcRequest(c));
        ns::InsertIntoTableRequest q;
        q.id = c.id;
        LANCE_RETURN_NOT_OK(QueryString(c, "branch", &q.branch));
        LANCE_RETURN_NOT_OK(QueryString(c, "mode", &q.mode));
        LANCE_ASSIGN_OR_RAISE(auto resp, n.InsertIntoTable(q, *c.body));
        return JsonReply(ns::json_codec::ToJson(resp));
      });
  add("POST", table_area, "merge_insert", "merge_insert_into_table", kWrite,
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        LANCE_RETURN_NOT_OK(CheckIpcRequest(c));
        ns::MergeInsertIntoTableRequest q;
        q.id = c.id;
        LANCE_RETURN_NOT_OK(QueryString(c, "branch", &q.branch));
        if (auto on = QueryValue(c, "on")) {
          std::vector<std::string> cols;
          for (auto part : SplitView(*on, ',')) {
            if (!part.empty()) cols.emplace_back(part);
          }
          q.on = std::move(cols);
        }
        LANCE_RETURN_NOT_OK(
            QueryBool(c, "when_matched_update_all", &q.when_matched_update_all));
        LANCE_RETURN_NOT_OK(QueryString(c, "when_matched_update_all_filt",
                                        &q.when_matched_update_all_filt));
        LANCE_RETURN_NOT_OK(
            QueryBool(c, "when_not_matched_insert_all", &q.when_not_matched_insert_all));
        LANCE_RETURN_NOT_OK(QueryBool(c, "when_not_matched_by_source_delete",
                                      &q.when_not_matched_by_source_delete));
        LANCE_RETURN_NOT_OK(QueryString(c, "when_not_matched_by_source_delete_filt",
                                        &q.when_not_matched_by_source_delete_filt));
        LANCE_RETURN_NOT_OK(QueryString(c, "timeout", &q.timeout));
        LANCE_RETURN_NOT_OK(QueryBool(c, "use_index", &q.use_index));
        LANCE_ASSIGN_OR_RAISE(auto resp, n.MergeInsertIntoTable(q, *c.body));
        return JsonReply(ns::json_codec::ToJson(resp));
      });
  add("POST", table_area, "count_rows", "count_table_rows", kRead,
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        LANCE_ASSIGN_OR_RAISE(auto q, ParseBody<ns::CountTableRowsRequest>(c));
        LANCE_ASSIGN_OR_RAISE(int64_t rows, n.CountTableRows(q));
        return JsonReply(Json(rows));
      });
  add("POST", table_area, "query", "query_table", kRead,
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        LANCE_ASSIGN_OR_RAISE(auto q, ParseBody<ns::QueryTableRequest>(c));
        LANCE_ASSIGN_OR_RAISE(std::string ipc, n.QueryTable(q));
        return Reply{200, std::move(ipc), kArrowStreamType, -1};
      });
  add("POST", table_area, "delete", "delete_from_table", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DeleteFromTableRequest>(
            c, [&](ns::DeleteFromTableRequest& q) { return n.DeleteFromTable(q); });
      });
  add("POST", table_area, "update", "update_table", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::UpdateTableRequest>(
            c, [&](ns::UpdateTableRequest& q) { return n.UpdateTable(q); });
      });

  // -- schema
  add("POST", table_area, "add_columns", "alter_table_add_columns", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::AlterTableAddColumnsRequest>(
            c, [&](ns::AlterTableAddColumnsRequest& q) {
              return n.AlterTableAddColumns(q);
            });
      });
  add("POST", table_area, "alter_columns", "alter_table_alter_columns", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::AlterTableAlterColumnsRequest>(
            c, [&](ns::AlterTableAlterColumnsRequest& q) {
              return n.AlterTableAlterColumns(q);
            });
      });
  add("POST", table_area, "drop_columns", "alter_table_drop_columns", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::AlterTableDropColumnsRequest>(
            c, [&](ns::AlterTableDropColumnsRequest& q) {
              return n.AlterTableDropColumns(q);
            });
      });
  add("POST", table_area, "schema_metadata/update", "update_table_schema_metadata",
      kWrite, [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        // The spec's body is the metadata map itself and so is the answer (what real
        // Lance's client sends and reads); a body in the request model's shape
        // ({"metadata": {...}}) is accepted too.
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
          LANCE_ASSIGN_OR_RAISE(
              auto metadata,
              ns::json_codec::FromJson<ns::UpdateTableSchemaMetadataResponse>(
                  Json{{"metadata", j}}, c.op + " request"));
          q.id = c.id;
          q.metadata = std::move(metadata.metadata);
          LANCE_RETURN_NOT_OK(CheckScope(c, q.id));
        }
        LANCE_RETURN_NOT_OK(QueryString(c, "branch", &q.branch));
        LANCE_ASSIGN_OR_RAISE(auto resp, n.UpdateTableSchemaMetadata(q));
        return JsonReply(Json(resp.metadata.value_or(ns::Properties{})));
      });
  add("POST", table_area, "stats", "get_table_stats", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::GetTableStatsRequest>(
            c, [&](ns::GetTableStatsRequest& q) { return n.GetTableStats(q); });
      });

  // -- versions
  add("POST", table_area, "version/list", "list_table_versions", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::ListTableVersionsRequest>(
            c,
            [&](ns::ListTableVersionsRequest& q)
                -> Result<ns::ListTableVersionsResponse> {
              LANCE_RETURN_NOT_OK(QueryString(c, "branch", &q.branch));
              LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
              LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
              LANCE_RETURN_NOT_OK(QueryBool(c, "descending", &q.descending));
              return n.ListTableVersions(q);
            });
      });
  add("POST", table_area, "version/describe", "describe_table_version", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DescribeTableVersionRequest>(
            c, [&](ns::DescribeTableVersionRequest& q) {
              return n.DescribeTableVersion(q);
            });
      });
  add("POST", table_area, "restore", "restore_table", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::RestoreTableRequest>(
            c, [&](ns::RestoreTableRequest& q) { return n.RestoreTable(q); });
      });

  // -- tags
  add("POST", table_area, "tags/list", "list_table_tags", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::ListTableTagsRequest>(
            c, [&](ns::ListTableTagsRequest& q) -> Result<ns::ListTableTagsResponse> {
              LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
              LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
              return n.ListTableTags(q);
            });
      });
  add("POST", table_area, "tags/create", "create_table_tag", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::CreateTableTagRequest>(
            c, [&](ns::CreateTableTagRequest& q) { return n.CreateTableTag(q); });
      });
  add("POST", table_area, "tags/delete", "delete_table_tag", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DeleteTableTagRequest>(
            c, [&](ns::DeleteTableTagRequest& q) { return n.DeleteTableTag(q); });
      });
  add("POST", table_area, "tags/version", "get_table_tag_version", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::GetTableTagVersionRequest>(
            c, [&](ns::GetTableTagVersionRequest& q) { return n.GetTableTagVersion(q); });
      });
  add("POST", table_area, "tags/update", "update_table_tag", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::UpdateTableTagRequest>(
            c, [&](ns::UpdateTableTagRequest& q) { return n.UpdateTableTag(q); });
      });

  // -- transactions
  add("POST", Area::kTransaction, "describe", "describe_transaction", kRead,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DescribeTransactionRequest>(
            c,
            [&](ns::DescribeTransactionRequest& q) { return n.DescribeTransaction(q); });
      });
  add("POST", Area::kTransaction, "alter", "alter_transaction", kWrite,
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::AlterTransactionRequest>(
            c, [&](ns::AlterTransactionRequest& q) { return n.AlterTransaction(q); });
      });

  // -- spec routes no core operation backs: Unsupported
  for (const char* suffix :
       {"index/list", "create_index", "create_scalar_index", "explain_plan",
        "analyze_plan", "backfill_column", "update_field_metadata", "version/create",
        "version/delete", "branches/create", "branches/delete", "branches/list"}) {
    static const std::map<std::string, std::string> kNames = {
        {"index/list", "list_table_indices"},
        {"create_index", "create_table_index"},
        {"create_scalar_index", "create_table_scalar_index"},
        {"explain_plan", "explain_table_query_plan"},
        {"analyze_plan", "analyze_table_query_plan"},
        {"backfill_column", "alter_table_backfill_columns"},
        {"update_field_metadata", "update_field_metadata"},
        {"version/create", "create_table_version"},
        {"version/delete", "batch_delete_table_versions"},
        {"branches/create", "create_table_branch"},
        {"branches/delete", "delete_table_branch"},
        {"branches/list", "list_table_branches"}};
    add("POST", table_area, suffix, kNames.at(suffix).c_str(), kWrite, nullptr);
  }
  // index/{index_name}/drop|stats are matched in Route lookup by pattern.
  add("POST", table_area, "index/*/drop", "drop_table_index", kWrite, nullptr);
  add("POST", table_area, "index/*/stats", "describe_table_index_stats", kWrite, nullptr);
  add("POST", Area::kTableGlobal, "batch-commit", "batch_commit_tables", kWrite, nullptr);
  add("POST", Area::kTableGlobal, "version/batch-create", "batch_create_table_versions",
      kWrite, nullptr);
  add("POST", Area::kMaterializedView, "create", "create_materialized_view", kWrite,
      nullptr);
  add("POST", Area::kMaterializedView, "refresh", "refresh_materialized_view", kWrite,
      nullptr);
  return r;
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
  switch (area) {
    case Area::kNamespace:
      return "/v1/namespace/{id}/" + suffix;
    case Area::kTable:
      return "/v1/table/{id}/" + suffix;
    case Area::kTransaction:
      return "/v1/transaction/{id}/" + suffix;
    case Area::kMaterializedView:
      return "/v1/materialized_view/{id}/" + suffix;
    case Area::kTableGlobal:
      return suffix.empty() ? "/v1/table" : "/v1/table/" + suffix;
  }
  return "";
}

}  // namespace lance::server::internal
