// SPDX-License-Identifier: Apache-2.0
// RestAdapter driven with raw HTTP (httplib::Client): routes, id decoding, spec errors
// and statuses, authentication, access log, limits, concurrency, per-operation counters.
// Real Lance as the client: tests/interop/test_rest_server_interop.py.

#include "lance/server/rest_adapter.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/type.h"
#include "lance/ipc/writer.h"
#include "lance/namespace/namespace.h"
#include "tests/server/server_test_util.h"
#include "tests/testing/array_helpers.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance::server {
namespace {

using Json = nlohmann::json;
using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

/// \brief A namespace that records what the server handed it (ids, query-derived
/// fields, Arrow bodies) and answers fixed data.
class RecordingNamespace : public ns::LanceNamespace {
 public:
  std::string namespace_id() const override { return "RecordingNamespace"; }

  /// \brief What every call with an Arrow body does: keeps the request in `*last` and the
  /// body in last_data, and answers `response`.
  template <typename Request, typename Response>
  Response RecordBody(Request* last, const Request& request, std::string_view data,
                      Response response) {
    std::lock_guard<std::mutex> lock(mu);
    *last = request;
    last_data = std::string(data);
    return response;
  }

  Result<ns::DescribeNamespaceResponse> DescribeNamespace(
      const ns::DescribeNamespaceRequest& request) override {
    std::lock_guard<std::mutex> lock(mu);
    ids.push_back(request.id);
    return ns::DescribeNamespaceResponse{ns::Properties{{"k", "v"}}};
  }
  Result<ns::ListTablesResponse> ListTables(
      const ns::ListTablesRequest& request) override {
    std::lock_guard<std::mutex> lock(mu);
    ids.push_back(request.id);
    last_list = request;
    return ns::ListTablesResponse{{"a", "b"}, std::nullopt};
  }
  Result<ns::CreateTableResponse> CreateTable(const ns::CreateTableRequest& request,
                                              std::string_view data) override {
    return RecordBody(
        &last_create, request, data,
        ns::CreateTableResponse{.location = "file:///x/t.lance", .version = 1});
  }
  Result<ns::InsertIntoTableResponse> InsertIntoTable(
      const ns::InsertIntoTableRequest& request, std::string_view data) override {
    return RecordBody(&last_insert, request, data,
                      ns::InsertIntoTableResponse{.num_inserted_rows = 3, .version = 2});
  }
  Result<ns::MergeInsertIntoTableResponse> MergeInsertIntoTable(
      const ns::MergeInsertIntoTableRequest& request, std::string_view data) override {
    return RecordBody(&last_merge, request, data,
                      ns::MergeInsertIntoTableResponse{
                          .num_updated_rows = 1, .num_inserted_rows = 2, .version = 3});
  }
  Result<int64_t> CountTableRows(const ns::CountTableRowsRequest& request) override {
    std::lock_guard<std::mutex> lock(mu);
    ids.push_back(request.id);
    return request.predicate.has_value() ? 7 : 42;
  }
  Result<std::string> QueryTable(const ns::QueryTableRequest& request) override {
    std::lock_guard<std::mutex> lock(mu);
    last_query = request;
    return std::string("ARROW\0STREAM", 12);
  }

  std::mutex mu;
  std::vector<ns::Identifier> ids;
  ns::ListTablesRequest last_list;
  ns::CreateTableRequest last_create;
  ns::InsertIntoTableRequest last_insert;
  ns::MergeInsertIntoTableRequest last_merge;
  ns::QueryTableRequest last_query;
  std::string last_data;
};

TEST(RestAdapterTest, NamespaceLifecycleOverDirectoryNamespace) {
  testing::TempDir tmp;
  Server s(DirNamespace(tmp));
  auto created = s.Post("/v1/namespace/ns1/create?delimiter=%24", R"({"id":["ns1"]})");
  EXPECT_EQ(created.status, 200) << created.body;
  EXPECT_TRUE(created.json.is_object());
  // Nested, id from the path only (empty body).
  EXPECT_EQ(s.Post("/v1/namespace/ns1%24sub/create", "").status, 200);
  ExpectError(s.Post("/v1/namespace/ns1/create", "{}"), 409, 2);

  auto root = s.Get("/v1/namespace/%24/list?delimiter=%24");
  EXPECT_EQ(root.status, 200);
  EXPECT_EQ(root.json["namespaces"], Json::array({"ns1"})) << root.body;
  // The root as an empty segment, and with "." as delimiter the dropped "/./".
  EXPECT_EQ(s.Get("/v1/namespace//list").json["namespaces"], Json::array({"ns1"}));
  EXPECT_EQ(s.Get("/v1/namespace/list?delimiter=.").json["namespaces"],
            Json::array({"ns1"}));
  EXPECT_EQ(s.Get("/v1/namespace/ns1/list").json["namespaces"], Json::array({"sub"}));
  EXPECT_EQ(s.Get("/v1/namespace/ns1.sub/list?delimiter=.").status, 200);

  auto exists = s.Post("/v1/namespace/ns1/exists");
  EXPECT_EQ(exists.status, 200);
  EXPECT_EQ(exists.body, "{}");
  EXPECT_EQ(s.Post("/v1/namespace/ns1/describe").status, 200);
  ExpectError(s.Post("/v1/namespace/nope/describe"), 404, 1);
  ExpectError(s.Post("/v1/namespace/nope/exists"), 404, 1);
  // Not empty: NamespaceNotEmpty at 409.
  ExpectError(s.Post("/v1/namespace/ns1/drop"), 409, 3);
  EXPECT_EQ(s.Post("/v1/namespace/ns1%24sub/drop").status, 200);
  EXPECT_EQ(s.Post("/v1/namespace/ns1/drop").status, 200);
  EXPECT_EQ(s.Post("/v1/namespace/ns1/drop", R"({"mode":"Skip"})").status, 200);
  ExpectError(s.Post("/v1/namespace/ns1/drop"), 404, 1);
  ExpectError(s.Post("/v1/namespace/ns1/exists"), 404, 1);
}

TEST(RestAdapterTest, TableMetadataOverDirectoryNamespace) {
  testing::TempDir tmp;
  Server s(DirNamespace(tmp));
  ASSERT_EQ(s.Post("/v1/namespace/ns1/create").status, 200);
  auto declared =
      s.Post("/v1/table/ns1%24t1/declare?delimiter=%24", R"({"id":["ns1","t1"]})");
  ASSERT_EQ(declared.status, 200) << declared.body;
  EXPECT_TRUE(declared.json["location"].is_string());
  ExpectError(s.Post("/v1/table/ns1%24t1/declare"), 409, 5);

  auto described = s.Post("/v1/table/ns1%24t1/describe");
  EXPECT_EQ(described.status, 200);
  EXPECT_EQ(described.json["location"], declared.json["location"]);
  // The body's id wins over the path's.
  auto by_body = s.Post("/v1/table/whatever/describe", R"({"id":["ns1","t1"]})");
  EXPECT_EQ(by_body.status, 200) << by_body.body;
  EXPECT_EQ(by_body.json["location"], declared.json["location"]);
  // Another delimiter.
  EXPECT_EQ(s.Post("/v1/table/ns1.t1/describe?delimiter=.").status, 200);

  EXPECT_EQ(s.Post("/v1/table/ns1%24t1/exists").body, "{}");
  // The deprecated create-empty route, and deregister / register of its location.
  auto empty = s.Post("/v1/table/ns1%24e/create-empty");
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_TRUE(empty.json["location"].is_string());
  auto deregistered = s.Post("/v1/table/ns1%24e/deregister");
  EXPECT_EQ(deregistered.status, 200) << deregistered.body;
  ExpectError(s.Post("/v1/table/ns1%24e/describe"), 404, 4);
  auto listed = s.Get("/v1/namespace/ns1/table/list");
  EXPECT_EQ(listed.json["tables"], Json::array({"t1"})) << listed.body;
  ExpectError(s.Post("/v1/table/ns1%24nope/describe"), 404, 4);

  auto dropped = s.Post("/v1/table/ns1%24t1/drop");
  EXPECT_EQ(dropped.status, 200) << dropped.body;
  EXPECT_TRUE(dropped.json.is_object());
  ExpectError(s.Post("/v1/table/ns1%24t1/describe"), 404, 4);
  ExpectError(s.Post("/v1/table/ns1%24t1/exists"), 404, 4);

  // Garbage Arrow IPC never crashes the server: an error with a spec code.
  auto garbage =
      s.Send("POST", "/v1/table/ns1%24g/create", std::string("\xff\x00junk", 6), {},
             "application/vnd.apache.arrow.stream");
  EXPECT_GE(garbage.status, 400);
  EXPECT_TRUE(garbage.json.is_object() && garbage.json["code"].is_number_integer())
      << garbage.body;
  EXPECT_EQ(s.Get("/v1/namespace/ns1/table/list").status, 200);
}

TEST(RestAdapterTest, PathIdsAreFormDecodedAndSplitOnTheDelimiter) {
  auto rec = std::make_shared<RecordingNamespace>();
  Server s(rec);
  EXPECT_EQ(s.Post("/v1/namespace/a+b%24a%2Bb%24%7Ex-_.y/describe", "").status, 200);
  EXPECT_EQ(s.Post("/v1/namespace/%C3%A4%E2%82%AC%24sl%2Fash/describe", "").status, 200);
  EXPECT_EQ(s.Post("/v1/namespace/%24/describe", "").status, 200);
  EXPECT_EQ(s.Post("/v1/namespace/x.y/describe?delimiter=.", "").status, 200);
  EXPECT_EQ(s.Post("/v1/namespace/x%24y/describe", R"({"id":["x$y"]})").status, 200);
  EXPECT_EQ(s.Get("/v1/namespace//table/list").status, 200);
  std::lock_guard<std::mutex> lock(rec->mu);
  ASSERT_EQ(rec->ids.size(), 6u);
  EXPECT_EQ(rec->ids[0], (ns::Identifier{"a b", "a+b", "~x-_.y"}));
  EXPECT_EQ(rec->ids[1], (ns::Identifier{"ä€", "sl/ash"}));
  EXPECT_EQ(rec->ids[2], ns::Identifier{});
  EXPECT_EQ(rec->ids[3], (ns::Identifier{"x", "y"}));
  EXPECT_EQ(rec->ids[4], ns::Identifier{"x$y"});
  EXPECT_EQ(rec->ids[5], ns::Identifier{});
}

TEST(RestAdapterTest, ListQueryParameters) {
  auto rec = std::make_shared<RecordingNamespace>();
  Server s(rec);
  auto a = s.Get(
      "/v1/namespace/ns/table/list?delimiter=%24&page_token=t%2B1&limit=5&"
      "include_declared=false");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.json["tables"], Json::array({"a", "b"}));
  {
    std::lock_guard<std::mutex> lock(rec->mu);
    EXPECT_EQ(rec->last_list.page_token, std::optional<std::string>("t+1"));
    EXPECT_EQ(rec->last_list.limit, std::optional<int32_t>(5));
    EXPECT_EQ(rec->last_list.include_declared, std::optional<bool>(false));
  }
  ExpectError(s.Get("/v1/namespace/ns/table/list?limit=five"), 400, 13, "limit");
  ExpectError(s.Get("/v1/namespace/ns/table/list?limit=99999999999"), 400, 13);
  ExpectError(s.Get("/v1/namespace/ns/table/list?include_declared=maybe"), 400, 13);
}

TEST(RestAdapterTest, DataOperationsTakeArrowBodiesAndQueryFields) {
  auto rec = std::make_shared<RecordingNamespace>();
  Server s(rec);
  const std::string arrow = "application/vnd.apache.arrow.stream";
  const std::string body = IpcBody();
  auto created = s.Send("POST",
                        "/v1/table/ns%24t/create?delimiter=%24&mode=overwrite&"
                        "properties=%7B%22owner%22%3A%22me%22%7D",
                        body, {}, arrow);
  EXPECT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(created.json["version"], 1);
  {
    std::lock_guard<std::mutex> lock(rec->mu);
    EXPECT_EQ(rec->last_create.id, (ns::Identifier{"ns", "t"}));
    EXPECT_EQ(rec->last_create.mode, std::optional<std::string>("overwrite"));
    EXPECT_EQ(rec->last_create.properties,
              std::optional<ns::Properties>(ns::Properties{{"owner", "me"}}));
    EXPECT_EQ(rec->last_data, body);
  }
  ExpectError(s.Send("POST", "/v1/table/ns%24t/create", "garbage", {}, arrow), 400, 13,
              "not a valid Arrow IPC stream");
  ExpectError(
      s.Send("POST", "/v1/table/ns%24t/create?properties=%5B1%5D", body, {}, arrow), 400,
      13, "properties");

  auto inserted = s.Send("POST", "/v1/table/ns%24t/insert?mode=append", body, {}, arrow);
  EXPECT_EQ(inserted.status, 200);
  EXPECT_EQ(inserted.json["num_inserted_rows"], 3);
  auto merged =
      s.Send("POST",
             "/v1/table/ns%24t/merge_insert?on=id,k&when_matched_update_all=true&"
             "when_not_matched_insert_all=false&timeout=30s",
             IpcBody(5), {}, arrow);
  EXPECT_EQ(merged.status, 200) << merged.body;
  EXPECT_EQ(merged.json["num_inserted_rows"], 2);
  {
    std::lock_guard<std::mutex> lock(rec->mu);
    EXPECT_EQ(rec->last_insert.mode, std::optional<std::string>("append"));
    EXPECT_EQ(rec->last_merge.on, std::optional<std::vector<std::string>>({"id", "k"}));
    EXPECT_EQ(rec->last_merge.when_matched_update_all, std::optional<bool>(true));
    EXPECT_EQ(rec->last_merge.when_not_matched_insert_all, std::optional<bool>(false));
    EXPECT_EQ(rec->last_merge.timeout, std::optional<std::string>("30s"));
    EXPECT_EQ(rec->last_data, IpcBody(5));
  }

  auto count = s.Post("/v1/table/ns%24t/count_rows", R"({"id":["ns","t"]})");
  EXPECT_EQ(count.status, 200);
  EXPECT_EQ(count.body, "42");
  EXPECT_EQ(s.Post("/v1/table/ns%24t/count_rows", R"({"predicate":"x > 1"})").body, "7");

  auto query = s.Post("/v1/table/ns%24t/query",
                      R"({"k":10,"filter":"x > 1","columns":{"column_names":["x"]}})");
  EXPECT_EQ(query.status, 200);
  EXPECT_EQ(query.content_type, arrow);
  EXPECT_EQ(query.body, std::string("ARROW\0STREAM", 12));
  {
    std::lock_guard<std::mutex> lock(rec->mu);
    EXPECT_EQ(rec->last_query.k, 10);
    EXPECT_EQ(rec->last_query.filter, std::optional<std::string>("x > 1"));
    EXPECT_EQ(rec->last_query.id, (ns::Identifier{"ns", "t"}));
  }
  ExpectError(s.Post("/v1/table/ns%24t/query", R"({"k":"ten"})"), 400, 13, "k");
}

TEST(RestAdapterTest, BadRequestsGetSpecErrors) {
  testing::TempDir tmp;
  RestAdapterOptions options;
  options.limits.max_body_bytes = 1024;
  Server s(DirNamespace(tmp), options);
  ExpectError(s.Post("/v1/namespace/a/create", R"({"id":)"), 400, 13, "not valid JSON");
  ExpectError(s.Post("/v1/namespace/a/create", R"([1,2])"), 400, 13);
  ExpectError(s.Post("/v1/namespace/a/create", R"({"id":[1]})"), 400, 13, "id[0]");
  ExpectError(s.Post("/v1/namespace/a/create", R"({"properties":{"k":5}})"), 400, 13,
              "properties");
  ExpectError(s.Post("/v1/table/a%24b/describe", R"({"load_detailed_metadata":"yes"})"),
              400, 13);
  ExpectError(s.Post("/v1/table/a%24b/describe?load_detailed_metadata=yes"), 400, 13);
  ExpectError(s.Post("/v1/table/a%24b/register", R"({"location":7})"), 400, 13);
  // Unknown routes and methods: code 0.
  ExpectError(s.Post("/v1/table/a%24b/frobnicate"), 404, 0);
  ExpectError(s.Post("/v2/namespace/a/create"), 404, 0);
  ExpectError(s.Get("/"), 404, 0);
  ExpectError(s.Send("PUT", "/v1/namespace/a/create", "{}"), 405, 0);
  ExpectError(s.Get("/v1/table/a%24b/describe"), 405, 0);
  // Spec routes the core lacks: Unsupported at 501.
  for (const char* route :
       {"/v1/table/a%24b/index/list", "/v1/table/a%24b/create_index",
        "/v1/table/a%24b/index/idx/drop", "/v1/table/a%24b/index/idx/stats",
        "/v1/table/a%24b/branches/create", "/v1/table/a%24b/branches/list",
        "/v1/table/batch-commit", "/v1/table/version/batch-create",
        "/v1/materialized_view/a%24m/create", "/v1/table/a%24b/explain_plan"}) {
    ExpectError(s.Post(route), 501, 0);
  }
  // Oversized body: 413, InvalidInput.
  ExpectError(s.Post("/v1/namespace/a/create", std::string(4096, ' ')), 413, 13);
  ExpectError(s.Send("POST", "/v1/table/a%24b/create", std::string(1 << 20, 'x'), {},
                     "application/vnd.apache.arrow.stream"),
              413, 13);
  // Invalid UTF-8 in ids and bodies: still JSON answers.
  auto bad_utf8 = s.Post("/v1/table/%FF%FE%24t/describe");
  ExpectError(bad_utf8, 400, 13, "not valid UTF-8");
  ExpectError(s.Post("/v1/namespace/a/create", "{\"id\":[\"\xff\"]}"), 400, 13);
  // The server still works.
  EXPECT_EQ(s.Get("/v1/namespace/%24/list").status, 200);
}

TEST(RestAdapterTest, AuthenticationAndAccessLogWithoutSecrets) {
  testing::TempDir tmp;
  auto lines = std::make_shared<std::vector<std::string>>();
  auto mu = std::make_shared<std::mutex>();
  RestAdapterOptions options;
  options.api_keys = {{"key-SECRET-1"}, {"tok-SECRET-2"}};
  options.access_log = [lines, mu](const std::string& line) {
    std::lock_guard<std::mutex> lock(*mu);
    lines->push_back(line);
  };
  Server s(DirNamespace(tmp), options);
  ExpectError(s.Get("/v1/namespace/%24/list"), 401, 16);
  ExpectError(s.Get("/v1/namespace/%24/list", {{"x-api-key", "wrong"}}), 403, 15);
  ExpectError(s.Get("/v1/namespace/%24/list", {{"Authorization", "Bearer wrong"}}), 403,
              15);
  ExpectError(s.Get("/v1/namespace/%24/list", {{"Authorization", "Basic abc"}}), 403, 15);
  EXPECT_EQ(s.Get("/v1/namespace/%24/list", {{"x-api-key", "key-SECRET-1"}}).status, 200);
  EXPECT_EQ(
      s.Get("/v1/namespace/%24/list", {{"Authorization", "Bearer tok-SECRET-2"}}).status,
      200);
  EXPECT_EQ(s.Post("/v1/namespace/n/create", R"({"properties":{"p":"body-SECRET-3"}})",
                   {{"authorization", "bearer tok-SECRET-2"}})
                .status,
            200);
  // Unsupported and unknown routes are authenticated first.
  ExpectError(s.Post("/v1/table/a%24b/index/list"), 401, 16);
  ExpectError(s.Post("/v1/nothing/here", "{}", {{"x-api-key", "nope"}}), 403, 15);
  ExpectError(s.Post("/v1/nothing/here", "{}", {{"x-api-key", "key-SECRET-1"}}), 404, 0);

  std::lock_guard<std::mutex> lock(*mu);
  ASSERT_EQ(lines->size(), 10u);
  for (const auto& line : *lines) {
    EXPECT_THAT(line, Not(HasSubstr("SECRET"))) << line;
    Json j = Json::parse(line, nullptr, false);
    ASSERT_TRUE(j.is_object()) << line;
    EXPECT_TRUE(j["status"].is_number_integer());
    EXPECT_TRUE(j["method"].is_string());
    EXPECT_TRUE(j["route"].is_string());
    EXPECT_TRUE(j["duration_ms"].is_number());
  }
  Json first = Json::parse((*lines)[0]);
  EXPECT_EQ(first["status"], 401);
  EXPECT_EQ(first["code"], 16);
  EXPECT_EQ(first["route"], "/v1/namespace/{id}/list");
  Json created = Json::parse((*lines)[6]);
  EXPECT_EQ(created["route"], "/v1/namespace/{id}/create");
  EXPECT_EQ(created["id"], "n");
  EXPECT_EQ(created["status"], 200);
}

TEST(RestAdapterTest, OperationCountersCountCallsBySpecName) {
  testing::TempDir tmp;
  Server s(DirNamespace(tmp));
  ASSERT_EQ(s.Post("/v1/namespace/ns1/create").status, 200);
  s.adapter->reset_ops_metrics();
  EXPECT_TRUE(s.adapter->ops_metrics().empty());
  ASSERT_EQ(s.Post("/v1/table/ns1%24t/declare").status, 200);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(s.Post("/v1/table/ns1%24t/describe").status, 200);
  ExpectError(s.Post("/v1/table/ns1%24x/describe"), 404, 4);
  ExpectError(s.Post("/v1/table/ns1%24t/branches/list"), 501, 0);
  ExpectError(s.Post("/v1/nothing"), 404, 0);
  EXPECT_EQ(s.Get("/v1/namespace/ns1/table/list").status, 200);
  auto m = s.adapter->ops_metrics();
  EXPECT_EQ(m, (std::map<std::string, int64_t>{{"declare_table", 1},
                                               {"describe_table", 4},
                                               {"list_table_branches", 1},
                                               {"list_tables", 1}}));
}

TEST(RestAdapterTest, ManyParallelClients) {
  testing::TempDir tmp;
  RestAdapterOptions options;
  options.threads = 4;
  Server s(DirNamespace(tmp), options);
  ASSERT_EQ(s.Post("/v1/namespace/ns/create").status, 200);
  s.adapter->reset_ops_metrics();
  constexpr int kThreads = 12;
  constexpr int kTables = 5;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kTables; ++i) {
        std::string id = "ns%24t" + std::to_string(t) + "_" + std::to_string(i);
        if (s.Post("/v1/table/" + id + "/declare").status != 200) ++failures;
        if (s.Post("/v1/table/" + id + "/describe").status != 200) ++failures;
        if (s.Get("/v1/namespace/ns/table/list").status != 200) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto listed = s.Get("/v1/namespace/ns/table/list");
  EXPECT_EQ(listed.json["tables"].size(), static_cast<size_t>(kThreads * kTables));
  auto m = s.adapter->ops_metrics();
  EXPECT_EQ(m["declare_table"], kThreads * kTables);
  EXPECT_EQ(m["describe_table"], kThreads * kTables);
  EXPECT_EQ(m["list_tables"], kThreads * kTables + 1);
}

TEST(RestAdapterTest, BodylessAndChunkedPosts) {
  testing::TempDir tmp;
  RestAdapterOptions options;
  options.limits.max_body_bytes = 64;
  Server s(DirNamespace(tmp), options);
  ASSERT_EQ(s.Post("/v1/namespace/ns/create").status, 200);
  ASSERT_EQ(s.Post("/v1/table/ns%24t/declare").status, 200);
  // Lance's drop_table sends a POST without a body and without Content-Length: it is
  // answered at once (not after a read timeout).
  auto start = std::chrono::steady_clock::now();
  std::string dropped = RawExchange(
      s.adapter->port(),
      "POST /v1/table/ns%24t/drop?delimiter=%24 HTTP/1.1\r\nHost: x\r\nConnection: "
      "close\r\n\r\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_THAT(dropped, HasSubstr("HTTP/1.1 200"));
  EXPECT_THAT(dropped, HasSubstr("\"location\""));
  // A chunked body within the limit is read; one over it is refused with 413.
  std::string chunked = RawExchange(
      s.adapter->port(),
      "POST /v1/namespace/ns/describe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
      "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  EXPECT_THAT(chunked, HasSubstr("HTTP/1.1 200"));
  std::string big(200, ' ');
  std::string over = RawExchange(
      s.adapter->port(),
      "POST /v1/namespace/ns/describe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
      "Transfer-Encoding: chunked\r\n\r\nc8\r\n" +
          big + "\r\n0\r\n\r\n");
  EXPECT_THAT(over, HasSubstr("HTTP/1.1 413"));
  EXPECT_THAT(over, HasSubstr("\"code\":13"));
  // Garbage instead of HTTP: an error answer or a closed connection, never a crash.
  RawExchange(s.adapter->port(), std::string("\x16\x03\x01\x00\xff garbage\r\n\r\n"),
              /*close_write=*/true);
  EXPECT_EQ(s.Get("/v1/namespace/%24/list").status, 200);
}

TEST(RestAdapterTest, StalledConnectionsDoNotBlockOthers) {
  testing::TempDir tmp;
  RestAdapterOptions options;
  options.threads = 4;
  Server s(DirNamespace(tmp), options);
  // Two clients that send half a request line and stop.
  std::vector<int> fds;
  for (int i = 0; i < 2; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(s.adapter->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    const char partial[] = "POST /v1/namespace/x/cre";
    ASSERT_GT(::send(fd, partial, sizeof(partial) - 1, 0), 0);
    fds.push_back(fd);
  }
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.Get("/v1/namespace/%24/list").status, 200);
  for (int fd : fds) ::close(fd);
}

TEST(RestAdapterTest, LifecycleErrors) {
  testing::TempDir tmp;
  EXPECT_THAT(RestAdapter::Make(nullptr, {}).status(),
              testing::IsError(StatusCode::kInvalid));
  RestAdapterOptions bad;
  bad.port = 70000;
  EXPECT_THAT(RestAdapter::Make(DirNamespace(tmp), bad).status(),
              testing::IsError(StatusCode::kInvalid));
  Server s(DirNamespace(tmp));
  // A second server on the same port cannot bind.
  RestAdapterOptions same;
  same.port = s.adapter->port();
  auto other = RestAdapter::Make(DirNamespace(tmp), same);
  ASSERT_OK(other.status());
  EXPECT_THAT((*other)->Start(), testing::IsError(StatusCode::kIOError));
  s.adapter->Stop();
  s.adapter->Stop();  // idempotent
  httplib::Client client("127.0.0.1", same.port);
  client.set_connection_timeout(1, 0);
  EXPECT_FALSE(client.Get("/v1/namespace/%24/list"));
}

}  // namespace
}  // namespace lance::server
