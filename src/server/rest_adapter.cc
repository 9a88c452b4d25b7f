// SPDX-License-Identifier: Apache-2.0
// RestAdapter: the Lance REST namespace routes over any LanceNamespace, served by
// cpp-httplib. One catch-all handler per HTTP method parses the raw request target
// (form-decoded path id, query), checks authentication, finds the operation in the
// route table and answers JSON (or Arrow IPC for query_table); every failure becomes the
// spec's ErrorResponse.

#include "lance/server/rest_adapter.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "lance/macros.h"
#include "lance/namespace/json_codec.h"

namespace lance::server {

namespace {

using ns::ErrorCode;
using ns::NamespaceError;
using Json = nlohmann::json;

constexpr char kJsonType[] = "application/json";
constexpr char kArrowStreamType[] = "application/vnd.apache.arrow.stream";

/// \brief Compact JSON; invalid UTF-8 (ids from %FF) is replaced, never thrown on.
std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// \brief application/x-www-form-urlencoded decoding: '+' is a space, %XX a byte; a
/// malformed escape is kept as is.
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

/// \brief The id a path segment names: the root for an empty segment or the delimiter
/// itself, else the decoded text split on the delimiter.
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

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

/// \brief The spec's HTTP status of an error kind.
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

/// \brief What a handler answers.
struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = kJsonType;
  /// \brief The spec code of an error reply (-1: success).
  int code = -1;
};

Reply JsonReply(const Json& j) { return Reply{200, Dump(j), kJsonType, -1}; }

/// \brief One parsed request, as handlers see it.
struct Call {
  std::string op;
  std::string delimiter = "$";
  ns::Identifier id;
  std::map<std::string, std::string> query;
  const std::string* body = nullptr;
};

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

template <typename T>
concept HasId = requires(T t) {
  t.id;
};

/// \brief The request model from the JSON body (blank: `{}`); the path's id unless the
/// body has its own `id` (exact even for names containing the delimiter).
template <typename Req>
Result<Req> ParseBody(const Call& c) {
  const std::string what = c.op + " request";
  Json j = Json::object();
  const std::string& body = *c.body;
  if (body.find_first_not_of(" \t\r\n") != std::string::npos) {
    j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return NamespaceError(ErrorCode::kInvalidInput, what + ": body is not valid JSON");
    }
  }
  LANCE_ASSIGN_OR_RAISE(Req req, ns::json_codec::FromJson<Req>(j, what));
  if constexpr (HasId<Req>) {
    auto it = j.find("id");
    if (it == j.end() || it->is_null()) req.id = c.id;
  }
  return req;
}

/// \brief Any 4xx/5xx with the ErrorResponse body.
Reply ErrorReply(const Status& st, const std::string& instance) {
  ErrorCode code = ns::NamespaceErrorCode(st);
  Json j = Json::object();
  j["error"] = st.message();
  j["code"] = static_cast<int>(code);
  j["instance"] = instance;
  return Reply{HttpStatusFor(code), Dump(j), kJsonType, static_cast<int>(code)};
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
    return JsonReply(ns::json_codec::ToJson(resp));
  }
}

using Handler = std::function<Result<Reply>(ns::LanceNamespace&, const Call&)>;

enum class Area { kNamespace, kTable, kTransaction, kMaterializedView, kTableGlobal };

struct Route {
  std::string method;
  Area area;
  /// \brief The path after the id ("describe", "tags/list"); for kTableGlobal the path
  /// after /v1/table ("" or "batch-commit").
  std::string suffix;
  std::string op;
  /// \brief Null: the spec route exists but no core operation backs it (Unsupported).
  Handler handler;
};

std::vector<Route> MakeRoutes() {
  using ns::LanceNamespace;
  std::vector<Route> r;
  auto add = [&](const char* method, Area area, const char* suffix, const char* op,
                 Handler h) {
    r.push_back(Route{method, area, suffix, op, std::move(h)});
  };
  const Area ns_area = Area::kNamespace;
  const Area table_area = Area::kTable;

  // -- namespaces
  add("POST", ns_area, "create", "create_namespace",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::CreateNamespaceRequest>(
            c, [&](ns::CreateNamespaceRequest& q) { return n.CreateNamespace(q); });
      });
  add("GET", ns_area, "list", "list_namespaces", [](LanceNamespace& n, const Call& c) {
    return JsonOp<ns::ListNamespacesRequest>(
        c, [&](ns::ListNamespacesRequest& q) -> Result<ns::ListNamespacesResponse> {
          LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
          LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
          return n.ListNamespaces(q);
        });
  });
  add("POST", ns_area, "describe", "describe_namespace",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DescribeNamespaceRequest>(
            c, [&](ns::DescribeNamespaceRequest& q) { return n.DescribeNamespace(q); });
      });
  add("POST", ns_area, "drop", "drop_namespace", [](LanceNamespace& n, const Call& c) {
    return JsonOp<ns::DropNamespaceRequest>(
        c, [&](ns::DropNamespaceRequest& q) { return n.DropNamespace(q); });
  });
  add("POST", ns_area, "exists", "namespace_exists",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::NamespaceExistsRequest>(
            c, [&](ns::NamespaceExistsRequest& q) { return n.NamespaceExists(q); });
      });
  add("GET", ns_area, "table/list", "list_tables", [](LanceNamespace& n, const Call& c) {
    return JsonOp<ns::ListTablesRequest>(
        c, [&](ns::ListTablesRequest& q) -> Result<ns::ListTablesResponse> {
          LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
          LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
          LANCE_RETURN_NOT_OK(QueryBool(c, "include_declared", &q.include_declared));
          return n.ListTables(q);
        });
  });

  // -- table metadata
  add("GET", Area::kTableGlobal, "", "list_all_tables",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::ListAllTablesRequest>(
            c, [&](ns::ListAllTablesRequest& q) -> Result<ns::ListAllTablesResponse> {
              LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
              LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
              return n.ListAllTables(q);
            });
      });
  add("POST", table_area, "describe", "describe_table",
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
  add("POST", table_area, "declare", "declare_table",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DeclareTableRequest>(
            c, [&](ns::DeclareTableRequest& q) { return n.DeclareTable(q); });
      });
  add("POST", table_area, "create-empty", "create_empty_table",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::CreateEmptyTableRequest>(
            c, [&](ns::CreateEmptyTableRequest& q) { return n.CreateEmptyTable(q); });
      });
  add("POST", table_area, "register", "register_table",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::RegisterTableRequest>(
            c, [&](ns::RegisterTableRequest& q) { return n.RegisterTable(q); });
      });
  add("POST", table_area, "deregister", "deregister_table",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DeregisterTableRequest>(
            c, [&](ns::DeregisterTableRequest& q) { return n.DeregisterTable(q); });
      });
  add("POST", table_area, "exists", "table_exists", [](LanceNamespace& n, const Call& c) {
    return JsonOp<ns::TableExistsRequest>(
        c, [&](ns::TableExistsRequest& q) { return n.TableExists(q); });
  });
  add("POST", table_area, "drop", "drop_table", [](LanceNamespace& n, const Call& c) {
    return JsonOp<ns::DropTableRequest>(
        c, [&](ns::DropTableRequest& q) { return n.DropTable(q); });
  });
  add("POST", table_area, "rename", "rename_table", [](LanceNamespace& n, const Call& c) {
    return JsonOp<ns::RenameTableRequest>(
        c, [&](ns::RenameTableRequest& q) { return n.RenameTable(q); });
  });

  // -- table data: Arrow IPC bodies, scalar fields in the query
  add("POST", table_area, "create", "create_table",
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        ns::CreateTableRequest q;
        q.id = c.id;
        LANCE_RETURN_NOT_OK(QueryString(c, "mode", &q.mode));
        LANCE_RETURN_NOT_OK(QueryProperties(c, "properties", &q.properties));
        LANCE_RETURN_NOT_OK(QueryProperties(c, "storage_options", &q.storage_options));
        LANCE_ASSIGN_OR_RAISE(auto resp, n.CreateTable(q, *c.body));
        return JsonReply(ns::json_codec::ToJson(resp));
      });
  add("POST", table_area, "insert", "insert_into_table",
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        ns::InsertIntoTableRequest q;
        q.id = c.id;
        LANCE_RETURN_NOT_OK(QueryString(c, "branch", &q.branch));
        LANCE_RETURN_NOT_OK(QueryString(c, "mode", &q.mode));
        LANCE_ASSIGN_OR_RAISE(auto resp, n.InsertIntoTable(q, *c.body));
        return JsonReply(ns::json_codec::ToJson(resp));
      });
  add("POST", table_area, "merge_insert", "merge_insert_into_table",
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
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
  add("POST", table_area, "count_rows", "count_table_rows",
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        LANCE_ASSIGN_OR_RAISE(auto q, ParseBody<ns::CountTableRowsRequest>(c));
        LANCE_ASSIGN_OR_RAISE(int64_t rows, n.CountTableRows(q));
        return JsonReply(Json(rows));
      });
  add("POST", table_area, "query", "query_table",
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        LANCE_ASSIGN_OR_RAISE(auto q, ParseBody<ns::QueryTableRequest>(c));
        LANCE_ASSIGN_OR_RAISE(std::string ipc, n.QueryTable(q));
        return Reply{200, std::move(ipc), kArrowStreamType, -1};
      });
  add("POST", table_area, "delete", "delete_from_table",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DeleteFromTableRequest>(
            c, [&](ns::DeleteFromTableRequest& q) { return n.DeleteFromTable(q); });
      });
  add("POST", table_area, "update", "update_table", [](LanceNamespace& n, const Call& c) {
    return JsonOp<ns::UpdateTableRequest>(
        c, [&](ns::UpdateTableRequest& q) { return n.UpdateTable(q); });
  });

  // -- schema
  add("POST", table_area, "add_columns", "alter_table_add_columns",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::AlterTableAddColumnsRequest>(
            c, [&](ns::AlterTableAddColumnsRequest& q) {
              return n.AlterTableAddColumns(q);
            });
      });
  add("POST", table_area, "alter_columns", "alter_table_alter_columns",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::AlterTableAlterColumnsRequest>(
            c, [&](ns::AlterTableAlterColumnsRequest& q) {
              return n.AlterTableAlterColumns(q);
            });
      });
  add("POST", table_area, "drop_columns", "alter_table_drop_columns",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::AlterTableDropColumnsRequest>(
            c, [&](ns::AlterTableDropColumnsRequest& q) {
              return n.AlterTableDropColumns(q);
            });
      });
  add("POST", table_area, "schema_metadata/update", "update_table_schema_metadata",
      [](LanceNamespace& n, const Call& c) -> Result<Reply> {
        // The spec's body is the metadata map itself and so is the answer (what real
        // Lance's client sends and reads); a body in the request model's shape
        // ({"metadata": {...}}) is accepted too.
        Json j = Json::object();
        if (c.body->find_first_not_of(" \t\r\n") != std::string::npos) {
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
        }
        LANCE_RETURN_NOT_OK(QueryString(c, "branch", &q.branch));
        LANCE_ASSIGN_OR_RAISE(auto resp, n.UpdateTableSchemaMetadata(q));
        return JsonReply(Json(resp.metadata.value_or(ns::Properties{})));
      });
  add("POST", table_area, "stats", "get_table_stats",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::GetTableStatsRequest>(
            c, [&](ns::GetTableStatsRequest& q) { return n.GetTableStats(q); });
      });

  // -- versions
  add("POST", table_area, "version/list", "list_table_versions",
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
  add("POST", table_area, "version/describe", "describe_table_version",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DescribeTableVersionRequest>(
            c, [&](ns::DescribeTableVersionRequest& q) {
              return n.DescribeTableVersion(q);
            });
      });
  add("POST", table_area, "restore", "restore_table",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::RestoreTableRequest>(
            c, [&](ns::RestoreTableRequest& q) { return n.RestoreTable(q); });
      });

  // -- tags
  add("POST", table_area, "tags/list", "list_table_tags",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::ListTableTagsRequest>(
            c, [&](ns::ListTableTagsRequest& q) -> Result<ns::ListTableTagsResponse> {
              LANCE_RETURN_NOT_OK(QueryString(c, "page_token", &q.page_token));
              LANCE_RETURN_NOT_OK(QueryInt(c, "limit", &q.limit));
              return n.ListTableTags(q);
            });
      });
  add("POST", table_area, "tags/create", "create_table_tag",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::CreateTableTagRequest>(
            c, [&](ns::CreateTableTagRequest& q) { return n.CreateTableTag(q); });
      });
  add("POST", table_area, "tags/delete", "delete_table_tag",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DeleteTableTagRequest>(
            c, [&](ns::DeleteTableTagRequest& q) { return n.DeleteTableTag(q); });
      });
  add("POST", table_area, "tags/version", "get_table_tag_version",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::GetTableTagVersionRequest>(
            c, [&](ns::GetTableTagVersionRequest& q) { return n.GetTableTagVersion(q); });
      });
  add("POST", table_area, "tags/update", "update_table_tag",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::UpdateTableTagRequest>(
            c, [&](ns::UpdateTableTagRequest& q) { return n.UpdateTableTag(q); });
      });

  // -- transactions
  add("POST", Area::kTransaction, "describe", "describe_transaction",
      [](LanceNamespace& n, const Call& c) {
        return JsonOp<ns::DescribeTransactionRequest>(
            c,
            [&](ns::DescribeTransactionRequest& q) { return n.DescribeTransaction(q); });
      });
  add("POST", Area::kTransaction, "alter", "alter_transaction",
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
    add("POST", table_area, suffix, kNames.at(suffix).c_str(), nullptr);
  }
  // index/{index_name}/drop|stats are matched in Route lookup by pattern.
  add("POST", table_area, "index/*/drop", "drop_table_index", nullptr);
  add("POST", table_area, "index/*/stats", "describe_table_index_stats", nullptr);
  add("POST", Area::kTableGlobal, "batch-commit", "batch_commit_tables", nullptr);
  add("POST", Area::kTableGlobal, "version/batch-create", "batch_create_table_versions",
      nullptr);
  add("POST", Area::kMaterializedView, "create", "create_materialized_view", nullptr);
  add("POST", Area::kMaterializedView, "refresh", "refresh_materialized_view", nullptr);
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

}  // namespace

class RestAdapter::Impl {
 public:
  Impl(std::shared_ptr<ns::LanceNamespace> ns, RestAdapterOptions options)
      : ns_(std::move(ns)), options_(std::move(options)), routes_(MakeRoutes()) {}

  ~Impl() { Stop(); }

  Status Start() {
    std::lock_guard<std::mutex> lock(lifecycle_mu_);
    if (started_) return Status::Invalid("RestAdapter already started");
    const int threads = std::max(1, options_.threads);
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server_.set_read_timeout(10, 0);
    server_.set_write_timeout(30, 0);
    server_.set_keep_alive_timeout(5);
    server_.set_keep_alive_max_count(1000);
    // One byte over the limit reaches the handler's own check; httplib answers
    // anything larger with 413 itself, and the error handler dresses it.
    const int64_t max = std::max<int64_t>(0, options_.max_body_bytes);
    // SO_REUSEADDR only (httplib's default adds SO_REUSEPORT, which lets a second
    // server bind a port already served).
    server_.set_socket_options([](int sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    server_.set_payload_max_length(static_cast<size_t>(max));
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      Handle(req, res, req.body);
    };
    // Requests that may carry a body read it here: a POST without Content-Length and
    // without chunked encoding has no body (httplib alone would wait for EOF), and a
    // body over the limit is refused while it is skipped.
    auto reading = [this](const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader) {
      std::string body;
      const int64_t max = options_.max_body_bytes;
      bool over = false;
      const bool has_length = req.has_header("Content-Length");
      const bool chunked = req.get_header_value("Transfer-Encoding") == "chunked";
      if (has_length || chunked) {
        bool read = reader([&](const char* data, size_t len) {
          if (static_cast<int64_t>(body.size() + len) > max) {
            over = true;
            return false;
          }
          body.append(data, len);
          return true;
        });
        if (!read) {
          // httplib skips a declared body over payload_max_length without handing it
          // to the receiver.
          over = over || res.status == 413 ||
                 (has_length && req.get_header_value<uint64_t>("Content-Length") >
                                    static_cast<uint64_t>(max));
          HandleUnreadable(req, res, over);
          return;
        }
      }
      Handle(req, res, body);
    };
    server_.Get(".*", handler);
    server_.Post(".*", reading);
    server_.Put(".*", reading);
    server_.Delete(".*", reading);
    server_.Patch(".*", reading);
    server_.Options(".*", handler);
    server_.set_error_handler(
        [this](const httplib::Request& req, httplib::Response& res) {
          if (!res.body.empty()) return;
          Status st;
          if (res.status == 413) {
            st = NamespaceError(ErrorCode::kInvalidInput,
                                "request body is larger than the server's limit of " +
                                    std::to_string(options_.max_body_bytes) + " bytes");
          } else if (res.status == 404 || res.status == 405) {
            st = NamespaceError(ErrorCode::kUnsupported, "no route for " + req.method);
          } else if (res.status >= 500) {
            st = NamespaceError(ErrorCode::kInternal, "the server failed to answer");
          } else {
            st = NamespaceError(ErrorCode::kInvalidInput, "malformed HTTP request");
          }
          Reply reply = ErrorReply(st, PathOf(req));
          res.set_content(reply.body, kJsonType);
          Log(req, "", "", res.status, reply.code, std::chrono::steady_clock::now(),
              res.body.size());
        });
    server_.set_exception_handler([this](const httplib::Request& req,
                                         httplib::Response& res,
                                         const std::exception_ptr&) {
      Reply reply =
          ErrorReply(NamespaceError(ErrorCode::kInternal, "the server failed to answer"),
                     PathOf(req));
      res.status = reply.status;
      res.set_content(reply.body, kJsonType);
    });
    int bound = 0;
    if (options_.port == 0) {
      bound = server_.bind_to_any_port(options_.host);
    } else {
      bound = server_.bind_to_port(options_.host, options_.port) ? options_.port : -1;
    }
    if (bound <= 0) {
      return Status::IOError("cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port));
    }
    port_ = bound;
    started_ = true;
    thread_ = std::thread([this] {
      server_.listen_after_bind();
      listen_returned_ = true;
    });
    // Wait until the accept loop runs so that Stop() right after Start() is safe.
    while (!server_.is_running() && !listen_returned_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (listen_returned_) {
      return Status::IOError("cannot serve on " + options_.host + ":" +
                             std::to_string(port_));
    }
    return Status::OK();
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(lifecycle_mu_);
    if (!started_ || stopped_) return;
    stopped_ = true;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }

  std::map<std::string, int64_t> ops_metrics() const {
    std::lock_guard<std::mutex> lock(metrics_mu_);
    return metrics_;
  }
  void reset_ops_metrics() {
    std::lock_guard<std::mutex> lock(metrics_mu_);
    metrics_.clear();
  }

 private:
  static std::string PathOf(const httplib::Request& req) {
    const std::string& target = req.target.empty() ? req.path : req.target;
    return target.substr(0, target.find('?'));
  }

  /// \brief OK, or the 401/403 error when authentication is configured.
  Status Authenticate(const httplib::Request& req) const {
    if (options_.api_keys.empty() && options_.bearer_tokens.empty()) return Status::OK();
    bool presented = false;
    if (req.has_header("x-api-key")) {
      presented = true;
      if (options_.api_keys.count(req.get_header_value("x-api-key")) > 0) {
        return Status::OK();
      }
    }
    if (req.has_header("Authorization")) {
      presented = true;
      std::string value = req.get_header_value("Authorization");
      constexpr std::string_view kBearer = "Bearer ";
      if (value.size() > kBearer.size() &&
          IEquals(std::string_view(value).substr(0, kBearer.size()), kBearer)) {
        std::string token = value.substr(kBearer.size());
        if (options_.bearer_tokens.count(token) > 0) return Status::OK();
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

  void Log(const httplib::Request& req, const std::string& route, const std::string& id,
           int status, int code, std::chrono::steady_clock::time_point start,
           size_t bytes_out, size_t bytes_in = 0) {
    if (!options_.access_log) return;
    auto now = std::chrono::system_clock::now();
    int64_t ts_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch())
            .count();
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (ms < 0) ms = 0;
    Json j = Json::object();
    j["ts_ms"] = ts_ms;
    j["method"] = req.method;
    j["route"] = route.empty() ? PathOf(req) : route;
    if (!id.empty()) j["id"] = id;
    j["status"] = status;
    if (code >= 0) j["code"] = code;
    j["duration_ms"] = static_cast<int64_t>(ms * 1000) / 1000.0;
    j["bytes_in"] = static_cast<int64_t>(bytes_in);
    j["bytes_out"] = static_cast<int64_t>(bytes_out);
    j["remote"] = req.remote_addr;
    std::string line = Dump(j);
    std::lock_guard<std::mutex> lock(log_mu_);
    options_.access_log(line);
  }

  /// \brief A body that could not be read: 413 when over the limit, else 400.
  void HandleUnreadable(const httplib::Request& req, httplib::Response& res, bool over) {
    const auto start = std::chrono::steady_clock::now();
    Status st =
        over ? NamespaceError(ErrorCode::kInvalidInput,
                              "request body is larger than the server's limit of " +
                                  std::to_string(options_.max_body_bytes) + " bytes")
             : NamespaceError(ErrorCode::kInvalidInput,
                              "the request body could not be read");
    Reply reply = ErrorReply(st, PathOf(req));
    res.status = over ? 413 : 400;
    res.set_header("Connection", "close");
    res.set_content(reply.body, kJsonType);
    Log(req, "", "", res.status, reply.code, start, reply.body.size());
  }

  void Handle(const httplib::Request& req, httplib::Response& res,
              const std::string& body) {
    const auto start = std::chrono::steady_clock::now();
    std::string route_template;
    std::string id_text;
    Reply reply = Dispatch(req, body, &route_template, &id_text);
    if (reply.body.empty()) reply.body = "{}";
    res.status = reply.status;
    res.set_content(reply.body, reply.content_type);
    Log(req, route_template, id_text, reply.status, reply.code, start, reply.body.size(),
        body.size());
  }

  Reply Dispatch(const httplib::Request& req, const std::string& body,
                 std::string* route_template, std::string* id_text) {
    const std::string instance = PathOf(req);
    // The raw target: path and query, decoded here (httplib's decoded path loses the
    // difference between '+' and "%2B").
    std::string target = req.target.empty() ? req.path : req.target;
    std::string raw_path = target.substr(0, target.find('?'));
    Call call;
    call.body = &body;
    if (auto q = target.find('?'); q != std::string::npos) {
      for (auto kv : SplitView(std::string_view(target).substr(q + 1), '&')) {
        if (kv.empty()) continue;
        auto eq = kv.find('=');
        std::string key = FormDecode(kv.substr(0, eq));
        std::string value =
            eq == std::string_view::npos ? std::string() : FormDecode(kv.substr(eq + 1));
        call.query.emplace(std::move(key), std::move(value));
      }
    }
    if (auto d = call.query.find("delimiter");
        d != call.query.end() && !d->second.empty()) {
      call.delimiter = d->second;
    }

    if (options_.max_body_bytes >= 0 &&
        static_cast<int64_t>(body.size()) > options_.max_body_bytes) {
      return ErrorReply(
          NamespaceError(ErrorCode::kInvalidInput,
                         "request body is larger than the server's limit "
                         "of " +
                             std::to_string(options_.max_body_bytes) + " bytes"),
          instance);
    }

    // Route lookup on the raw segments ("/v1/<area>/<id>/<suffix...>").
    std::vector<std::string> segs;
    for (auto s : SplitView(raw_path, '/')) segs.emplace_back(s);
    // segs[0] is "" (the leading slash).
    const Route* route = nullptr;
    bool method_mismatch = false;
    std::string raw_id;
    bool has_id = false;
    auto consider = [&](const Route& r, bool with_id, const std::string& id_seg) {
      if (route != nullptr) return;
      if (r.method != req.method && !(r.method == "GET" && req.method == "HEAD")) {
        method_mismatch = true;
        return;
      }
      route = &r;
      has_id = with_id;
      raw_id = id_seg;
    };
    if (segs.size() >= 3 && segs[0].empty() && segs[1] == "v1") {
      const std::string& area = segs[2];
      for (const Route& r : routes_) {
        if (route != nullptr) break;
        switch (r.area) {
          case Area::kNamespace:
            if (area != "namespace") break;
            if (segs.size() >= 4 && SuffixMatches(r.suffix, segs, 4)) {
              consider(r, true, segs[3]);
            } else if (SuffixMatches(r.suffix, segs, 3)) {
              // The root with its "/./" segment dropped (delimiter ".").
              consider(r, true, "");
            }
            break;
          case Area::kTable:
            if (area == "table" && segs.size() >= 5 && SuffixMatches(r.suffix, segs, 4)) {
              consider(r, true, segs[3]);
            }
            break;
          case Area::kTransaction:
            if (area == "transaction" && segs.size() >= 5 &&
                SuffixMatches(r.suffix, segs, 4)) {
              consider(r, true, segs[3]);
            }
            break;
          case Area::kMaterializedView:
            if (area == "materialized_view" && segs.size() >= 5 &&
                SuffixMatches(r.suffix, segs, 4)) {
              consider(r, true, segs[3]);
            }
            break;
          case Area::kTableGlobal:
            if (area != "table") break;
            if (r.suffix.empty() ? segs.size() == 3 : SuffixMatches(r.suffix, segs, 3)) {
              consider(r, false, "");
            }
            break;
        }
      }
    }
    // Authentication comes first: without credentials nothing is revealed, not even
    // which routes exist.
    if (Status auth = Authenticate(req); !auth.ok()) {
      if (route != nullptr) *route_template = Template(route->area, route->suffix);
      return ErrorReply(auth, instance);
    }
    if (route == nullptr) {
      if (method_mismatch) {
        Reply r = ErrorReply(
            NamespaceError(ErrorCode::kUnsupported,
                           "method " + req.method + " is not allowed on " + raw_path),
            instance);
        r.status = 405;
        return r;
      }
      Reply r =
          ErrorReply(NamespaceError(ErrorCode::kUnsupported,
                                    "no operation at " + req.method + " " + raw_path),
                     instance);
      r.status = 404;
      return r;
    }
    *route_template = Template(route->area, route->suffix);
    call.op = route->op;

    {
      std::lock_guard<std::mutex> lock(metrics_mu_);
      ++metrics_[route->op];
    }
    if (has_id) {
      call.id = ParseId(FormDecode(raw_id), call.delimiter);
      *id_text = ns::JoinIdentifier(call.id, call.delimiter);
    }
    if (!route->handler) {
      return ErrorReply(
          NamespaceError(ErrorCode::kUnsupported,
                         route->op + " is not supported by " + ns_->namespace_id()),
          instance);
    }
    Result<Reply> result = route->handler(*ns_, call);
    if (!result.ok()) return ErrorReply(result.status(), instance);
    return std::move(*result);
  }

  std::shared_ptr<ns::LanceNamespace> ns_;
  RestAdapterOptions options_;
  std::vector<Route> routes_;
  httplib::Server server_;
  std::thread thread_;
  std::mutex lifecycle_mu_;
  bool started_ = false;
  bool stopped_ = false;
  std::atomic<bool> listen_returned_{false};
  std::atomic<int> port_{0};
  mutable std::mutex metrics_mu_;
  std::map<std::string, int64_t> metrics_;
  std::mutex log_mu_;
};

Result<std::unique_ptr<RestAdapter>> RestAdapter::Make(
    std::shared_ptr<ns::LanceNamespace> ns, RestAdapterOptions options) {
  if (ns == nullptr) return Status::Invalid("RestAdapter needs a namespace");
  if (options.port < 0 || options.port > 65535) {
    return Status::Invalid("RestAdapter port must be in 0..65535, got ",
                           std::to_string(options.port));
  }
  return std::unique_ptr<RestAdapter>(
      new RestAdapter(std::make_unique<Impl>(std::move(ns), std::move(options))));
}
RestAdapter::RestAdapter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestAdapter::~RestAdapter() = default;
Status RestAdapter::Start() { return impl_->Start(); }
void RestAdapter::Stop() { impl_->Stop(); }
int RestAdapter::port() const { return impl_->port(); }
std::map<std::string, int64_t> RestAdapter::ops_metrics() const {
  return impl_->ops_metrics();
}
void RestAdapter::reset_ops_metrics() { impl_->reset_ops_metrics(); }

}  // namespace lance::server
