// SPDX-License-Identifier: Apache-2.0
// RestNamespace (the REST namespace client) against real servers:
// - real Lance: pylance 14's `lance.namespace.RestAdapter` over a directory namespace,
//   for every operation it serves (error kinds included);
// - a recording server (tests/namespace/rest_test_servers.py, standard library only)
//   for what the client sends (paths, queries, headers, bodies), how it maps answers
//   that real Lance would not produce (503 then 200, bodies without a spec code), and
//   HTTPS with a CA made here by the openssl CLI.

#include "lance/namespace/rest_namespace.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "tests/testing/certificates.h"
#include "tests/testing/matchers.h"
#include "tests/testing/python.h"
#include "tests/testing/temp_dir.h"

extern char** environ;

namespace lance::ns {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::TempDir;
using json = nlohmann::json;

using ::lance::testing::PythonExecutable;

std::string ServersScript() {
  return std::string(LANCE_REST_TEST_DIR) + "/rest_test_servers.py";
}

/// A server child process: started with a stdin pipe the test holds (closing it stops
/// the server) and its port read from the first line of its stdout.
class ServerProcess {
 public:
  ~ServerProcess() { Stop(); }

  Status Start(const std::vector<std::string>& args) {
    int in_pipe[2];
    int out_pipe[2];
    // Close-on-exec: another server started later must not hold this one's stdin open.
    if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) {
      return Status::IOError("pipe failed");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    std::vector<std::string> all = {PythonExecutable(), ServersScript()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in_pipe[0]);
    close(out_pipe[1]);
    if (rc != 0) {
      close(in_pipe[1]);
      close(out_pipe[0]);
      pid_ = -1;
      return Status::IOError("cannot start " + all[0]);
    }
    stdin_fd_ = in_pipe[1];
    std::string line;
    char c;
    while (read(out_pipe[0], &c, 1) == 1 && c != '\n') line.push_back(c);
    close(out_pipe[0]);
    if (line.empty() || line.find_first_not_of("0123456789") != std::string::npos) {
      return Status::IOError("server did not print its port (got '" + line + "')");
    }
    port_ = std::stoi(line);
    return Status::OK();
  }

  void Stop() {
    if (stdin_fd_ >= 0) close(stdin_fd_);
    stdin_fd_ = -1;
    if (pid_ <= 0) return;
    // A graceful exit gets up to 60 s (a loaded machine), then SIGKILL.
    for (int i = 0; i < 1200; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int port_ = 0;
};

// -- Arrow IPC data
// --------------------------------------------------------------------------

/// Rows id = start..start+n-1 (int64), name = "n<id>" (utf8).
std::string IpcRows(int64_t start, int64_t n) {
  Int64Builder ids;
  StringBuilder names;
  for (int64_t i = start; i < start + n; ++i) {
    (void)ids.Append(i);
    (void)names.Append("n" + std::to_string(i));
  }
  auto s = schema({field("id", int64()), field("name", utf8())});
  auto batch = *RecordBatch::Make(s, n, {*ids.Finish(), *names.Finish()});
  auto bytes = *ipc::WriteIpcStream(*batch);
  return std::string(bytes->ToStringView());
}

/// The ids of an IPC stream's rows (the column named "id"), in order.
Result<std::vector<int64_t>> IdsOf(const std::string& stream) {
  LANCE_ASSIGN_OR_RAISE(auto table, ipc::ReadIpcStream(Buffer::FromString(stream)));
  std::vector<int64_t> out;
  const int col = table->schema()->GetFieldIndex("id");
  if (col < 0) return Status::Invalid("no id column");
  for (const auto& batch : table->batches()) {
    const auto& ids = static_cast<const Int64Array&>(*batch->column(col));
    for (int64_t i = 0; i < batch->num_rows(); ++i) out.push_back(ids.Value(i));
  }
  return out;
}

/// The spec kind of a failure; -1 (no kind) for a success.
ErrorCode CodeOf(const Status& st) {
  return st.ok() ? static_cast<ErrorCode>(-1) : NamespaceErrorCode(st);
}
template <typename T>
ErrorCode CodeOf(const Result<T>& r) {
  return CodeOf(r.status());
}

// -- Form encoding (rest-client-trace.md section 1)
// ---------------------------------------------------------------

TEST(RestFormEncodingTest, MatchesTheObservedClient) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ns1$t1", "ns1%24t1"},
      {"a b", "a+b"},
      {"a+b", "a%2Bb"},
      {"~x-_.y", "%7Ex-_.y"},
      {"sl/ash", "sl%2Fash"},
      {"pct%2F", "pct%252F"},
      {"\xC3\xA4\xE2\x82\xAC", "%C3%A4%E2%82%AC"},
      {"star*!(", "star*%21%28"},
      {"q?x", "q%3Fx"},
      {"h#x", "h%23x"},
      {"$", "%24"},
      {"AZaz09", "AZaz09"},
      {"", ""},
  };
  for (const auto& [plain, encoded] : cases) {
    EXPECT_EQ(FormEncode(plain), encoded) << plain;
    ASSERT_OK_AND_ASSIGN(std::string decoded, FormDecode(encoded));
    EXPECT_EQ(decoded, plain) << encoded;
  }
}

TEST(RestFormEncodingTest, DecodeAcceptsLowercaseHexAndRejectsBadEscapes) {
  ASSERT_OK_AND_ASSIGN(std::string decoded, FormDecode("a%2fb%c3%a4"));
  EXPECT_EQ(decoded, "a/b\xC3\xA4");
  for (const char* bad : {"%", "%2", "a%G1", "%%", "x%2"}) {
    auto r = FormDecode(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(CodeOf(r), ErrorCode::kInvalidInput) << bad;
  }
}

// -- Properties
// -----------------------------------------------------------------------------

TEST(RestNamespacePropertiesTest, ReadsLancesPropertyNames) {
  Properties props = {{"uri", "http://127.0.0.1:9/prefix/"},
                      {"delimiter", "."},
                      {"header.x-api-key", "sekrit"},
                      {"header.Authorization", "Bearer tok"},
                      {"tls.ssl_ca_cert", "/ca.pem"},
                      {"tls.assert_hostname", "false"},
                      {"connect_timeout_ms", "1500"},
                      {"read_timeout_ms", "2500"},
                      {"max_retries", "5"},
                      {"retry_backoff_ms", "7"},
                      {"some.unknown", "ignored"}};
  ASSERT_OK_AND_ASSIGN(auto ns, RestNamespace::FromProperties(props));
  const auto& o = ns->options();
  EXPECT_EQ(o.uri, "http://127.0.0.1:9/prefix/");
  EXPECT_EQ(o.delimiter, ".");
  EXPECT_EQ(o.headers.at("x-api-key"), "sekrit");
  EXPECT_EQ(o.headers.at("Authorization"), "Bearer tok");
  EXPECT_EQ(o.tls_ca_cert, "/ca.pem");
  EXPECT_FALSE(o.tls_assert_hostname);
  EXPECT_EQ(o.connect_timeout.count(), 1500);
  EXPECT_EQ(o.request_timeout.count(), 2500);
  EXPECT_EQ(o.max_retries, 5);
  EXPECT_EQ(o.retry_backoff.count(), 7);
  EXPECT_EQ(
      ns->namespace_id(),
      "RestNamespace { endpoint: \"http://127.0.0.1:9/prefix/\", delimiter: \".\" }");
  EXPECT_THAT(ns->namespace_id(), Not(HasSubstr("sekrit")));
}

TEST(RestNamespacePropertiesTest, Defaults) {
  ASSERT_OK_AND_ASSIGN(auto ns, RestNamespace::FromProperties({{"uri", "https://h"}}));
  EXPECT_EQ(ns->options().delimiter, "$");
  EXPECT_TRUE(ns->options().tls_assert_hostname);
  EXPECT_EQ(ns->options().max_retries, 3);
  EXPECT_TRUE(ns->options().headers.empty());
}

TEST(RestNamespacePropertiesTest, RejectsBadProperties) {
  const std::vector<Properties> bad = {
      {},
      {{"uri", "ftp://h"}},
      {{"uri", "h:80"}},
      {{"uri", "http://h"}, {"max_retries", "x"}},
      {{"uri", "http://h"}, {"read_timeout_ms", "-1"}},
      {{"uri", "http://h"}, {"tls.assert_hostname", "maybe"}},
      {{"uri", "http://h"}, {"tls.assert_hostname", "false"}},
      {{"uri", "http://h"}, {"tls.cert_file", "/c.pem"}},
      {{"uri", "http://h"}, {"header.Bad Name", "v"}},
      {{"uri", "http://h"}, {"header.X", "a\r\nInjected: 1"}},
      {{"uri", "http://h"}, {"delimiter", ""}},
  };
  for (const auto& props : bad) {
    auto r = RestNamespace::FromProperties(props);
    ASSERT_FALSE(r.ok()) << (props.count("uri") ? props.at("uri") : "<no uri>");
    EXPECT_EQ(CodeOf(r), ErrorCode::kInvalidInput) << r.status().ToString();
    EXPECT_THAT(r.status().message(), Not(HasSubstr("Injected")));
  }
}

TEST(RestNamespacePropertiesTest, ConnectNamespaceKnowsRest) {
  for (const char* impl : {"rest", "RestNamespace"}) {
    ASSERT_OK_AND_ASSIGN(auto ns,
                         ConnectNamespace(impl, {{"uri", "http://127.0.0.1:1"}}));
    EXPECT_THAT(ns->namespace_id(), HasSubstr("RestNamespace"));
  }
  auto missing = ConnectNamespace("rest", {});
  EXPECT_EQ(CodeOf(missing), ErrorCode::kInvalidInput);
}

// -- Against real Lance: pylance's RestAdapter over a directory namespace
// ---------------------------------------------------------------------

class RestAdapterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = new TempDir();
    server_ = new ServerProcess();
    Status st = server_->Start({"adapter", root_->path()});
    if (!st.ok()) start_error_ = new std::string(st.ToString());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete root_;
    delete start_error_;
    server_ = nullptr;
    root_ = nullptr;
    start_error_ = nullptr;
  }
  void SetUp() override {
    ASSERT_EQ(start_error_, nullptr) << *start_error_;
    auto ns = RestNamespace::FromProperties({{"uri", server_->url()}});
    ASSERT_OK(ns);
    ns_ = *ns;
  }
  /// A namespace name no other test uses.
  static std::string Unique(const std::string& tag) {
    static std::atomic<int> counter{0};
    return tag + std::to_string(counter++);
  }
  std::string MakeNamespace() {
    std::string name = Unique("ns");
    CreateNamespaceRequest req{.id = {name}};
    EXPECT_OK(ns_->CreateNamespace(req));
    return name;
  }
  Identifier CreateTableWithRows(const std::string& space, int64_t n) {
    Identifier id = {space, Unique("t")};
    CreateTableRequest req{.id = id};
    auto created = ns_->CreateTable(req, IpcRows(0, n));
    EXPECT_OK(created);
    return id;
  }
  std::vector<int64_t> QueryIds(const Identifier& id,
                                std::optional<std::string> filter = {},
                                std::optional<int64_t> version = {}) {
    QueryTableRequest q{.id = id};
    q.k = 1000;
    q.filter = std::move(filter);
    q.version = version;
    auto bytes = ns_->QueryTable(q);
    EXPECT_OK(bytes);
    if (!bytes.ok()) return {};
    auto ids = IdsOf(*bytes);
    EXPECT_OK(ids);
    if (!ids.ok()) return {};
    std::sort(ids->begin(), ids->end());
    return *ids;
  }

  static TempDir* root_;
  static ServerProcess* server_;
  static std::string* start_error_;
  std::shared_ptr<RestNamespace> ns_;
};
TempDir* RestAdapterTest::root_ = nullptr;
ServerProcess* RestAdapterTest::server_ = nullptr;
std::string* RestAdapterTest::start_error_ = nullptr;

TEST_F(RestAdapterTest, NamespaceLifecycle) {
  const std::string name = Unique("life");
  CreateNamespaceRequest create{.id = {name}};
  create.properties = Properties{{"owner", "alice"}};
  ASSERT_OK(ns_->CreateNamespace(create));

  auto again = ns_->CreateNamespace(create);
  EXPECT_EQ(CodeOf(again), ErrorCode::kNamespaceAlreadyExists)
      << again.status().ToString();
  EXPECT_TRUE(again.status().IsAlreadyExists());

  ASSERT_OK_AND_ASSIGN(auto listed, ns_->ListNamespaces({}));
  EXPECT_THAT(listed.namespaces, Contains(name));

  DescribeNamespaceRequest describe{.id = {name}};
  ASSERT_OK_AND_ASSIGN(auto described, ns_->DescribeNamespace(describe));
  ASSERT_TRUE(described.properties.has_value());
  EXPECT_EQ(described.properties->at("owner"), "alice");

  NamespaceExistsRequest exists{.id = {name}};
  EXPECT_OK(ns_->NamespaceExists(exists));

  // A child namespace, listed under its parent.
  CreateNamespaceRequest child{.id = {name, "child"}};
  ASSERT_OK(ns_->CreateNamespace(child));
  ListNamespacesRequest children{.id = {name}};
  ASSERT_OK_AND_ASSIGN(auto sub, ns_->ListNamespaces(children));
  EXPECT_THAT(sub.namespaces, ElementsAre("child"));

  // Restrict refuses a namespace with children.
  DropNamespaceRequest drop{.id = {name}};
  auto not_empty = ns_->DropNamespace(drop);
  EXPECT_EQ(CodeOf(not_empty), ErrorCode::kNamespaceNotEmpty)
      << not_empty.status().ToString();

  DropNamespaceRequest drop_child{.id = {name, "child"}};
  ASSERT_OK(ns_->DropNamespace(drop_child));
  ASSERT_OK(ns_->DropNamespace(drop));

  Status gone = ns_->NamespaceExists(exists);
  EXPECT_EQ(CodeOf(gone), ErrorCode::kNamespaceNotFound) << gone.ToString();
  EXPECT_TRUE(gone.IsNotFound());
  auto describe_gone = ns_->DescribeNamespace(describe);
  EXPECT_EQ(CodeOf(describe_gone), ErrorCode::kNamespaceNotFound);
  auto drop_gone = ns_->DropNamespace(drop);
  EXPECT_EQ(CodeOf(drop_gone), ErrorCode::kNamespaceNotFound);
}

TEST_F(RestAdapterTest, ListNamespacesPages) {
  const std::string parent = MakeNamespace();
  for (const char* c : {"a", "b", "c"}) {
    CreateNamespaceRequest req{.id = {parent, c}};
    ASSERT_OK(ns_->CreateNamespace(req));
  }
  ListNamespacesRequest page{.id = {parent}};
  page.limit = 2;
  ASSERT_OK_AND_ASSIGN(auto first, ns_->ListNamespaces(page));
  EXPECT_THAT(first.namespaces, ElementsAre("a", "b"));
  ASSERT_TRUE(first.page_token.has_value());
  page.page_token = first.page_token;
  ASSERT_OK_AND_ASSIGN(auto second, ns_->ListNamespaces(page));
  EXPECT_THAT(second.namespaces, ElementsAre("c"));
}

TEST_F(RestAdapterTest, DeclareDescribeListDropTables) {
  const std::string space = MakeNamespace();
  DeclareTableRequest declare{.id = {space, "t1"}};
  ASSERT_OK_AND_ASSIGN(auto declared, ns_->DeclareTable(declare));
  ASSERT_TRUE(declared.location.has_value());
  EXPECT_THAT(*declared.location, HasSubstr("t1"));

  auto twice = ns_->DeclareTable(declare);
  EXPECT_EQ(CodeOf(twice), ErrorCode::kTableAlreadyExists) << twice.status().ToString();

  DescribeTableRequest describe{.id = {space, "t1"}};
  ASSERT_OK_AND_ASSIGN(auto described, ns_->DescribeTable(describe));
  EXPECT_EQ(described.location, declared.location);

  TableExistsRequest exists{.id = {space, "t1"}};
  EXPECT_OK(ns_->TableExists(exists));

  ListTablesRequest list{.id = {space}};
  ASSERT_OK_AND_ASSIGN(auto tables, ns_->ListTables(list));
  EXPECT_THAT(tables.tables, ElementsAre("t1"));

  DropTableRequest drop{.id = {space, "t1"}};
  ASSERT_OK(ns_->DropTable(drop));
  Status gone = ns_->TableExists(exists);
  EXPECT_EQ(CodeOf(gone), ErrorCode::kTableNotFound) << gone.ToString();
  auto describe_gone = ns_->DescribeTable(describe);
  EXPECT_EQ(CodeOf(describe_gone), ErrorCode::kTableNotFound);
  EXPECT_TRUE(describe_gone.status().IsNotFound());
  auto drop_gone = ns_->DropTable(drop);
  EXPECT_EQ(CodeOf(drop_gone), ErrorCode::kTableNotFound);
}

TEST_F(RestAdapterTest, ChildOfAMissingNamespace) {
  CreateNamespaceRequest child{.id = {Unique("missing"), "child"}};
  auto r = ns_->CreateNamespace(child);
  EXPECT_EQ(CodeOf(r), ErrorCode::kNamespaceNotFound) << r.status().ToString();
  EXPECT_TRUE(r.status().IsNotFound());
}

TEST_F(RestAdapterTest, CreateTableFromIpcThenReadWriteData) {
  const std::string space = MakeNamespace();
  Identifier id = {space, "data"};
  CreateTableRequest create{.id = id};
  create.properties = Properties{{"team", "eng"}};
  ASSERT_OK_AND_ASSIGN(auto created, ns_->CreateTable(create, IpcRows(0, 3)));
  EXPECT_EQ(created.version, 1);
  ASSERT_TRUE(created.location.has_value());

  auto exists = ns_->CreateTable(create, IpcRows(0, 3));
  EXPECT_EQ(CodeOf(exists), ErrorCode::kTableAlreadyExists) << exists.status().ToString();

  CountTableRowsRequest count{.id = id};
  ASSERT_OK_AND_ASSIGN(int64_t rows, ns_->CountTableRows(count));
  EXPECT_EQ(rows, 3);
  count.predicate = "id >= 1";
  ASSERT_OK_AND_ASSIGN(rows, ns_->CountTableRows(count));
  EXPECT_EQ(rows, 2);

  InsertIntoTableRequest insert{.id = id};
  ASSERT_OK_AND_ASSIGN(auto inserted, ns_->InsertIntoTable(insert, IpcRows(10, 2)));
  EXPECT_EQ(inserted.version, 2);
  EXPECT_THAT(QueryIds(id), ElementsAre(0, 1, 2, 10, 11));
  EXPECT_THAT(QueryIds(id, std::string("id > 5")), ElementsAre(10, 11));
  EXPECT_THAT(QueryIds(id, std::nullopt, 1), ElementsAre(0, 1, 2));

  DeleteFromTableRequest del{.id = id};
  del.predicate = "id = 1";
  ASSERT_OK_AND_ASSIGN(auto deleted, ns_->DeleteFromTable(del));
  EXPECT_EQ(deleted.version, 3);
  EXPECT_THAT(QueryIds(id), ElementsAre(0, 2, 10, 11));

  UpdateTableRequest update{.id = id};
  update.predicate = "id = 2";
  update.updates = {{"id", "id + 100"}};
  ASSERT_OK_AND_ASSIGN(auto updated, ns_->UpdateTable(update));
  EXPECT_EQ(updated.updated_rows, 1);
  EXPECT_THAT(QueryIds(id), ElementsAre(0, 10, 11, 102));

  MergeInsertIntoTableRequest merge{.id = id};
  merge.on = std::vector<std::string>{"id"};
  merge.when_matched_update_all = true;
  merge.when_not_matched_insert_all = true;
  ASSERT_OK_AND_ASSIGN(auto merged, ns_->MergeInsertIntoTable(merge, IpcRows(11, 3)));
  EXPECT_EQ(merged.num_inserted_rows, 2);
  EXPECT_EQ(merged.num_updated_rows, 1);
  EXPECT_THAT(QueryIds(id), ElementsAre(0, 10, 11, 12, 13, 102));

  InsertIntoTableRequest overwrite{.id = id};
  overwrite.mode = "overwrite";
  ASSERT_OK(ns_->InsertIntoTable(overwrite, IpcRows(50, 1)));
  EXPECT_THAT(QueryIds(id), ElementsAre(50));

  GetTableStatsRequest stats{.id = id};
  ASSERT_OK_AND_ASSIGN(auto got, ns_->GetTableStats(stats));
  EXPECT_EQ(got.num_rows, 1);

  // pylance's directory namespace answers list_all_tables with an empty list; the call
  // and its answer's shape are what is checked here (the recorder test checks the route).
  ListAllTablesRequest all;
  EXPECT_OK(ns_->ListAllTables(all));
}

TEST_F(RestAdapterTest, DataOperationsOnAMissingTable) {
  const std::string space = MakeNamespace();
  Identifier id = {space, "nope"};
  CountTableRowsRequest count{.id = id};
  EXPECT_EQ(CodeOf(ns_->CountTableRows(count)), ErrorCode::kTableNotFound);
  InsertIntoTableRequest insert{.id = id};
  EXPECT_EQ(CodeOf(ns_->InsertIntoTable(insert, IpcRows(0, 1))),
            ErrorCode::kTableNotFound);
  QueryTableRequest q{.id = id};
  q.k = 10;
  EXPECT_EQ(CodeOf(ns_->QueryTable(q)), ErrorCode::kTableNotFound);
}

TEST_F(RestAdapterTest, VersionsTagsAndRestore) {
  const std::string space = MakeNamespace();
  Identifier id = CreateTableWithRows(space, 2);
  InsertIntoTableRequest insert{.id = id};
  ASSERT_OK(ns_->InsertIntoTable(insert, IpcRows(5, 1)));

  ListTableVersionsRequest versions{.id = id};
  ASSERT_OK_AND_ASSIGN(auto listed, ns_->ListTableVersions(versions));
  std::vector<int64_t> numbers;
  for (const auto& v : listed.versions) numbers.push_back(v.version);
  std::sort(numbers.begin(), numbers.end());
  EXPECT_THAT(numbers, ElementsAre(1, 2));

  DescribeTableVersionRequest describe{.id = id};
  describe.version = 1;
  ASSERT_OK_AND_ASSIGN(auto v1, ns_->DescribeTableVersion(describe));
  EXPECT_EQ(v1.version.version, 1);
  describe.version = 99;
  auto v99 = ns_->DescribeTableVersion(describe);
  EXPECT_EQ(CodeOf(v99), ErrorCode::kTableVersionNotFound) << v99.status().ToString();

  CreateTableTagRequest tag{.id = id};
  tag.tag = "first";
  tag.version = 1;
  ASSERT_OK(ns_->CreateTableTag(tag));
  auto dup = ns_->CreateTableTag(tag);
  EXPECT_EQ(CodeOf(dup), ErrorCode::kTableTagAlreadyExists) << dup.status().ToString();

  ListTableTagsRequest tags{.id = id};
  ASSERT_OK_AND_ASSIGN(auto tag_list, ns_->ListTableTags(tags));
  ASSERT_EQ(tag_list.tags.count("first"), 1u);
  EXPECT_EQ(tag_list.tags.at("first").version, 1);

  GetTableTagVersionRequest get{.id = id};
  get.tag = "first";
  ASSERT_OK_AND_ASSIGN(auto got, ns_->GetTableTagVersion(get));
  EXPECT_EQ(got.version, 1);

  UpdateTableTagRequest move{.id = id};
  move.tag = "first";
  move.version = 2;
  ASSERT_OK(ns_->UpdateTableTag(move));
  ASSERT_OK_AND_ASSIGN(got, ns_->GetTableTagVersion(get));
  EXPECT_EQ(got.version, 2);

  DeleteTableTagRequest del{.id = id};
  del.tag = "first";
  ASSERT_OK(ns_->DeleteTableTag(del));
  auto missing = ns_->GetTableTagVersion(get);
  EXPECT_EQ(CodeOf(missing), ErrorCode::kTableTagNotFound) << missing.status().ToString();

  RestoreTableRequest restore{.id = id};
  restore.version = 1;
  ASSERT_OK(ns_->RestoreTable(restore));
  EXPECT_THAT(QueryIds(id), ElementsAre(0, 1));
}

TEST_F(RestAdapterTest, SchemaChanges) {
  const std::string space = MakeNamespace();
  Identifier id = CreateTableWithRows(space, 2);
  AlterTableAddColumnsRequest add{.id = id};
  add.new_columns = {AddColumnsEntry{"twice", std::string("id * 2")}};
  ASSERT_OK_AND_ASSIGN(auto added, ns_->AlterTableAddColumns(add));
  EXPECT_EQ(added.version, 2);

  AlterTableAlterColumnsRequest alter{.id = id};
  AlterColumnsEntry rename;
  rename.path = "twice";
  rename.rename = "double";
  alter.alterations = {rename};
  ASSERT_OK_AND_ASSIGN(auto altered, ns_->AlterTableAlterColumns(alter));
  EXPECT_EQ(altered.version, 3);

  AlterTableDropColumnsRequest drop{.id = id};
  drop.columns = {"double"};
  ASSERT_OK_AND_ASSIGN(auto dropped, ns_->AlterTableDropColumns(drop));
  EXPECT_EQ(dropped.version, 4);

  UpdateTableSchemaMetadataRequest meta{.id = id};
  meta.metadata = Properties{{"k", "v"}};
  ASSERT_OK_AND_ASSIGN(auto updated, ns_->UpdateTableSchemaMetadata(meta));
  ASSERT_TRUE(updated.metadata.has_value());
  EXPECT_EQ(updated.metadata->at("k"), "v");
}

TEST_F(RestAdapterTest, RenameRegisterDeregister) {
  const std::string space = MakeNamespace();
  Identifier id = CreateTableWithRows(space, 2);

  // pylance 14's directory namespace does not rename: it answers code 18 (Internal)
  // with "Not supported" in the text. The spec code decides the kind, as in real Lance.
  RenameTableRequest rename{.id = id};
  rename.new_table_name = "renamed";
  Status renamed = ns_->RenameTable(rename).status();
  EXPECT_EQ(CodeOf(renamed), ErrorCode::kInternal) << renamed.ToString();
  EXPECT_THAT(renamed.message(), HasSubstr("rename_table not implemented"));

  DescribeTableRequest describe{.id = id};
  ASSERT_OK_AND_ASSIGN(auto described, ns_->DescribeTable(describe));
  ASSERT_TRUE(described.location.has_value());

  DeregisterTableRequest deregister{.id = id};
  ASSERT_OK(ns_->DeregisterTable(deregister));
  TableExistsRequest exists{.id = id};
  EXPECT_EQ(CodeOf(ns_->TableExists(exists)), ErrorCode::kTableNotFound);

  // Registering takes a location relative to the root (an absolute one is refused).
  RegisterTableRequest reg{.id = {space, "again"}};
  reg.location = *described.location;
  auto absolute = ns_->RegisterTable(reg);
  EXPECT_EQ(CodeOf(absolute), ErrorCode::kInvalidInput) << absolute.status().ToString();
  reg.location = described.location->substr(described.location->rfind('/') + 1);
  ASSERT_OK(ns_->RegisterTable(reg));
  CountTableRowsRequest count{.id = reg.id};
  ASSERT_OK_AND_ASSIGN(int64_t rows, ns_->CountTableRows(count));
  EXPECT_EQ(rows, 2);
}

TEST_F(RestAdapterTest, UnknownTransaction) {
  const std::string space = MakeNamespace();
  Identifier id = CreateTableWithRows(space, 1);
  DescribeTransactionRequest describe{.id = id};
  describe.id.push_back("00000000-0000-0000-0000-000000000000");
  auto r = ns_->DescribeTransaction(describe);
  EXPECT_EQ(CodeOf(r), ErrorCode::kTransactionNotFound) << r.status().ToString();
}

TEST_F(RestAdapterTest, ConcurrentCallsShareTheClient) {
  const std::string space = MakeNamespace();
  Identifier id = CreateTableWithRows(space, 3);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        CountTableRowsRequest count{.id = id};
        auto rows = ns_->CountTableRows(count);
        if (!rows.ok() || *rows != 3) ++failures;
        DescribeNamespaceRequest describe{.id = {space}};
        if (!ns_->DescribeNamespace(describe).ok()) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(RestAdapterTest, ServerErrorsAreTypedAndNotRetried) {
  // Invalid input from the server (an empty predicate) keeps its spec code.
  const std::string space = MakeNamespace();
  Identifier id = CreateTableWithRows(space, 1);
  DeleteFromTableRequest del{.id = id};
  del.predicate = "";
  auto r = ns_->DeleteFromTable(del);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(CodeOf(r), ErrorCode::kInvalidInput) << r.status().ToString();
  EXPECT_FALSE(r.status().retryable());
}

// -- What the client sends: the recording server
// ---------------------------------------------------------------------

class Recorder {
 public:
  explicit Recorder(const TempDir& dir, const json& script = json::array(),
                    std::vector<std::string> extra = {})
      : log_(dir.Join("requests.jsonl")) {
    const std::string script_path = dir.Join("script.json");
    std::ofstream(script_path) << script.dump();
    std::vector<std::string> args = {"recorder", log_, "--script", script_path};
    args.insert(args.end(), extra.begin(), extra.end());
    status_ = server_.Start(args);
  }
  const Status& status() const { return status_; }
  std::string url() const { return server_.url(); }
  int port() const { return server_.port(); }
  std::vector<json> Requests() const {
    std::vector<json> out;
    std::ifstream in(log_);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) out.push_back(json::parse(line));
    }
    return out;
  }
  static std::string Body(const json& request) {
    const std::string hex = request["body_hex"].get<std::string>();
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    return out;
  }

 private:
  std::string log_;
  ServerProcess server_;
  Status status_;
};

json Answer(int status, const std::string& body) {
  return {{"status", status}, {"body", body}};
}

class RecordingTest : public ::testing::Test {
 protected:
  std::shared_ptr<RestNamespace> Connect(
      const Recorder& rec, Properties extra = {},
      std::shared_ptr<DynamicContextProvider> ctx = {}) {
    extra["uri"] = rec.url();
    if (!extra.count("retry_backoff_ms")) extra["retry_backoff_ms"] = "1";
    auto ns = RestNamespace::FromProperties(extra, std::move(ctx));
    EXPECT_OK(ns);
    return ns.ok() ? *ns : nullptr;
  }
  TempDir dir_;
};

TEST_F(RecordingTest, RoutesQueriesAndBodies) {
  json script = json::array({Answer(200, R"({"namespaces":["a"]})"),  // list ns root
                             Answer(200, R"({"tables":[]})"),         // list tables
                             Answer(200, R"({"location":"/x"})"),     // describe
                             Answer(200, "{}"),                       // create ns
                             Answer(200, "7"),                        // count
                             Answer(200, R"({"version":2})"),         // insert
                             Answer(200, R"({"version":3})"),         // merge
                             Answer(200, R"({"version":1})"),         // create
                             Answer(200, R"({"versions":[]})"),       // versions
                             Answer(200, "ARROWBYTES"),               // query
                             Answer(200, R"({"tables":["a$b"]})")});  // list all
  Recorder rec(dir_, script);
  ASSERT_OK(rec.status());
  auto ns = Connect(rec, {{"header.x-api-key", "k1"}});
  ASSERT_NE(ns, nullptr);

  ASSERT_OK_AND_ASSIGN(auto listed, ns->ListNamespaces({}));
  EXPECT_THAT(listed.namespaces, ElementsAre("a"));
  ListTablesRequest tables{.id = {"a b", "x+y"}};
  tables.page_token = "p q";
  tables.limit = 5;
  ASSERT_OK(ns->ListTables(tables));
  DescribeTableRequest describe{.id = {"ns1", "t1"}};
  ASSERT_OK_AND_ASSIGN(auto described, ns->DescribeTable(describe));
  EXPECT_EQ(described.location, "/x");
  CreateNamespaceRequest create{.id = {"sl/ash"}};
  create.mode = "ExistOk";
  ASSERT_OK(ns->CreateNamespace(create));
  CountTableRowsRequest count{.id = {"t"}};
  ASSERT_OK_AND_ASSIGN(int64_t rows, ns->CountTableRows(count));
  EXPECT_EQ(rows, 7);
  InsertIntoTableRequest insert{.id = {"ns1", "t1"}};
  insert.mode = "overwrite";
  ASSERT_OK_AND_ASSIGN(auto inserted, ns->InsertIntoTable(insert, "IPC1"));
  EXPECT_EQ(inserted.version, 2);
  MergeInsertIntoTableRequest merge{.id = {"t"}};
  merge.on = std::vector<std::string>{"id", "k 2"};
  merge.when_matched_update_all = true;
  merge.when_not_matched_insert_all = false;
  merge.when_matched_update_all_filt = "a = 1";
  ASSERT_OK(ns->MergeInsertIntoTable(merge, "IPC2"));
  CreateTableRequest ct{.id = {"t"}};
  ct.mode = "overwrite";
  ct.properties = Properties{{"user", "alice"}};
  ASSERT_OK(ns->CreateTable(ct, std::string("IPC\0x3", 5)));
  ListTableVersionsRequest versions{.id = {"t"}};
  versions.limit = 2;
  versions.descending = true;
  ASSERT_OK(ns->ListTableVersions(versions));
  QueryTableRequest query{.id = {"t"}};
  query.k = 4;
  query.filter = "id > 1";
  ASSERT_OK_AND_ASSIGN(std::string bytes, ns->QueryTable(query));
  EXPECT_EQ(bytes, "ARROWBYTES");
  ASSERT_OK_AND_ASSIGN(auto all, ns->ListAllTables({}));
  EXPECT_THAT(all.tables, ElementsAre("a$b"));

  auto reqs = rec.Requests();
  ASSERT_EQ(reqs.size(), 11u);
  for (const auto& r : reqs) {
    EXPECT_EQ(r["headers"]["x-api-key"], "k1");
    EXPECT_EQ(r["query"].get<std::string>().rfind("delimiter=%24", 0), 0u) << r["query"];
  }
  EXPECT_EQ(reqs[0]["method"], "GET");
  EXPECT_EQ(reqs[0]["path"], "/v1/namespace/%24/list");
  EXPECT_EQ(reqs[0]["query"], "delimiter=%24");
  EXPECT_FALSE(reqs[0]["headers"].contains("content-type"));
  EXPECT_EQ(Recorder::Body(reqs[0]), "");

  EXPECT_EQ(reqs[1]["method"], "GET");
  EXPECT_EQ(reqs[1]["path"], "/v1/namespace/a+b%24x%2By/table/list");
  EXPECT_EQ(reqs[1]["query"], "delimiter=%24&page_token=p+q&limit=5");

  EXPECT_EQ(reqs[2]["method"], "POST");
  EXPECT_EQ(reqs[2]["path"], "/v1/table/ns1%24t1/describe");
  EXPECT_EQ(reqs[2]["headers"]["content-type"], "application/json");
  EXPECT_EQ(json::parse(Recorder::Body(reqs[2])), json::parse(R"({"id":["ns1","t1"]})"));

  EXPECT_EQ(reqs[3]["path"], "/v1/namespace/sl%2Fash/create");
  EXPECT_EQ(json::parse(Recorder::Body(reqs[3])),
            json::parse(R"({"id":["sl/ash"],"mode":"ExistOk"})"));

  EXPECT_EQ(reqs[4]["path"], "/v1/table/t/count_rows");

  EXPECT_EQ(reqs[5]["path"], "/v1/table/ns1%24t1/insert");
  EXPECT_EQ(reqs[5]["query"], "delimiter=%24&mode=overwrite");
  EXPECT_EQ(reqs[5]["headers"]["content-type"], "application/vnd.apache.arrow.stream");
  EXPECT_EQ(Recorder::Body(reqs[5]), "IPC1");

  EXPECT_EQ(reqs[6]["path"], "/v1/table/t/merge_insert");
  EXPECT_EQ(reqs[6]["query"],
            "delimiter=%24&on=id&on=k+2&when_matched_update_all=true&"
            "when_matched_update_all_filt=a+%3D+1&when_not_matched_insert_all=false");
  EXPECT_EQ(Recorder::Body(reqs[6]), "IPC2");

  EXPECT_EQ(reqs[7]["path"], "/v1/table/t/create");
  EXPECT_EQ(reqs[7]["query"],
            "delimiter=%24&mode=overwrite&properties=%7B%22user%22%3A%22alice%22%7D");
  EXPECT_EQ(Recorder::Body(reqs[7]), std::string("IPC\0x3", 5));

  EXPECT_EQ(reqs[8]["method"], "POST");
  EXPECT_EQ(reqs[8]["path"], "/v1/table/t/version/list");
  EXPECT_EQ(reqs[8]["query"], "delimiter=%24&limit=2&descending=true");

  EXPECT_EQ(reqs[9]["path"], "/v1/table/t/query");
  EXPECT_EQ(json::parse(Recorder::Body(reqs[9])),
            json::parse(R"({"id":["t"],"filter":"id > 1","k":4,"vector":{}})"));

  EXPECT_EQ(reqs[10]["method"], "GET");
  EXPECT_EQ(reqs[10]["path"], "/v1/table");
}

TEST_F(RecordingTest, BodilessListsAndTheSchemaMetadataMap) {
  json script = json::array({Answer(200, R"({"tags":{}})"), Answer(200, R"({"k":"v"})")});
  Recorder rec(dir_, script);
  ASSERT_OK(rec.status());
  auto ns = Connect(rec);
  ASSERT_NE(ns, nullptr);
  ListTableTagsRequest tags{.id = {"a", "t"}};
  tags.page_token = "x";
  tags.limit = 2;
  ASSERT_OK(ns->ListTableTags(tags));
  UpdateTableSchemaMetadataRequest meta{.id = {"a", "t"}};
  meta.metadata = Properties{{"k", "v"}};
  ASSERT_OK_AND_ASSIGN(auto updated, ns->UpdateTableSchemaMetadata(meta));
  ASSERT_TRUE(updated.metadata.has_value());
  EXPECT_EQ(updated.metadata->at("k"), "v");

  auto reqs = rec.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0]["method"], "POST");
  EXPECT_EQ(reqs[0]["path"], "/v1/table/a%24t/tags/list");
  EXPECT_EQ(reqs[0]["query"], "delimiter=%24&page_token=x&limit=2");
  EXPECT_EQ(Recorder::Body(reqs[0]), "");
  EXPECT_FALSE(reqs[0]["headers"].contains("content-type"));
  EXPECT_EQ(reqs[1]["path"], "/v1/table/a%24t/schema_metadata/update");
  EXPECT_EQ(json::parse(Recorder::Body(reqs[1])), json::parse(R"({"k":"v"})"));
}

TEST_F(RecordingTest, UriPrefixAndCustomDelimiter) {
  Recorder rec(dir_, json::array({Answer(200, "{}")}));
  ASSERT_OK(rec.status());
  auto ns = RestNamespace::FromProperties(
      {{"uri", rec.url() + "/prefix/path/"}, {"delimiter", "."}});
  ASSERT_OK(ns);
  DescribeTableRequest describe{.id = {"ns1", "sub", "t1"}};
  ASSERT_OK((*ns)->DescribeTable(describe));
  auto reqs = rec.Requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["path"], "/prefix/path/v1/table/ns1.sub.t1/describe");
  EXPECT_EQ(reqs[0]["query"], "delimiter=.");
}

class TestContextProvider : public DynamicContextProvider {
 public:
  Result<Properties> ProvideContext(const Properties& info) override {
    std::lock_guard<std::mutex> lock(mutex_);
    calls.push_back(info);
    if (fail) return Status::Unauthorized("token source is down");
    return Properties{
        {"headers.Authorization", "Bearer dyn-" + std::to_string(calls.size())},
        {"headers.x-api-key", "override"},
        {"trace-id", "abc"}};
  }
  std::mutex mutex_;
  std::vector<Properties> calls;
  bool fail = false;
};

TEST_F(RecordingTest, StaticHeadersAndDynamicContext) {
  Recorder rec(dir_);
  ASSERT_OK(rec.status());
  auto provider = std::make_shared<TestContextProvider>();
  auto ns =
      Connect(rec, {{"header.x-api-key", "static"}, {"header.X-Team", "eng"}}, provider);
  ASSERT_NE(ns, nullptr);
  DescribeTableRequest describe{.id = {"ns1", "t1"}};
  ASSERT_OK(ns->DescribeTable(describe));
  ListNamespacesRequest list;
  ASSERT_OK(ns->ListNamespaces(list));

  ASSERT_EQ(provider->calls.size(), 2u);
  EXPECT_EQ(provider->calls[0].at("operation"), "describe_table");
  EXPECT_EQ(provider->calls[0].at("object_id"), "ns1$t1");
  EXPECT_EQ(provider->calls[1].at("operation"), "list_namespaces");
  EXPECT_EQ(provider->calls[1].at("object_id"), "");

  auto reqs = rec.Requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0]["headers"]["authorization"], "Bearer dyn-1");
  EXPECT_EQ(reqs[1]["headers"]["authorization"], "Bearer dyn-2");
  // The dynamic value wins over the static header of the same name (sent once).
  EXPECT_EQ(reqs[0]["headers"]["x-api-key"], "override");
  EXPECT_EQ(reqs[0]["headers"]["x-team"], "eng");
  EXPECT_EQ(reqs[0]["headers"]["x-lance-ctx-trace-id"], "abc");

  // A failing provider fails the operation before anything is sent.
  provider->fail = true;
  auto failed = ns->DescribeTable(describe);
  EXPECT_TRUE(failed.status().IsUnauthorized()) << failed.status().ToString();
  EXPECT_EQ(rec.Requests().size(), 2u);
}

TEST_F(RecordingTest, SpecCodesDecideTheErrorKindNotTheStatus) {
  json script = json::array({
      Answer(400, R"({"error":"table id 'ns1$t1'","code":4})"),
      Answer(404, R"({"error":"nope","code":0})"),
      Answer(409, R"({"error":"dup","code":5})"),
      Answer(500, R"({"error":"boom","code":18})"),
      Answer(503, R"({"code":17})"),
      Answer(404, "not json"),          // describe_namespace: unambiguous
      Answer(404, "<html>404</html>"),  // describe_table: namespace or table? Internal
      Answer(401, ""),
      Answer(403, "denied"),
      Answer(405, ""),
      Answer(400, R"({"error":"x","code":99})"),
  });
  Recorder rec(dir_, script);
  ASSERT_OK(rec.status());
  auto ns = Connect(rec, {{"max_retries", "0"}});
  ASSERT_NE(ns, nullptr);
  DescribeTableRequest t{.id = {"ns1", "t1"}};
  DescribeNamespaceRequest n{.id = {"ns1"}};

  auto e1 = ns->DescribeTable(t);
  EXPECT_EQ(CodeOf(e1), ErrorCode::kTableNotFound);
  EXPECT_EQ(e1.status().message(), "TableNotFound: table id 'ns1$t1'");
  EXPECT_EQ(CodeOf(ns->DescribeTable(t)), ErrorCode::kUnsupported);
  EXPECT_EQ(CodeOf(ns->DescribeTable(t)), ErrorCode::kTableAlreadyExists);
  auto e4 = ns->DescribeTable(t);
  EXPECT_EQ(CodeOf(e4), ErrorCode::kInternal);
  EXPECT_FALSE(e4.status().retryable());
  auto e5 = ns->DescribeTable(t);
  EXPECT_EQ(CodeOf(e5), ErrorCode::kServiceUnavailable);
  EXPECT_TRUE(e5.status().retryable());
  auto e6 = ns->DescribeNamespace(n);
  EXPECT_EQ(CodeOf(e6), ErrorCode::kNamespaceNotFound) << e6.status().ToString();
  EXPECT_THAT(e6.status().message(), HasSubstr("HTTP 404"));
  auto e7 = ns->DescribeTable(t);
  EXPECT_EQ(CodeOf(e7), ErrorCode::kInternal) << e7.status().ToString();
  EXPECT_THAT(e7.status().message(), HasSubstr("<html>404</html>"));
  EXPECT_EQ(CodeOf(ns->DescribeTable(t)), ErrorCode::kUnauthenticated);
  EXPECT_EQ(CodeOf(ns->DescribeTable(t)), ErrorCode::kPermissionDenied);
  EXPECT_EQ(CodeOf(ns->DescribeTable(t)), ErrorCode::kUnsupported);
  EXPECT_EQ(CodeOf(ns->DescribeTable(t)), ErrorCode::kInternal);
  EXPECT_EQ(rec.Requests().size(), script.size());
}

TEST_F(RecordingTest, IdempotentCallsAreRetriedWithBackoff) {
  json script = json::array({Answer(503, "busy"), Answer(429, R"({"code":21})"),
                             Answer(200, R"({"location":"/t"})")});
  Recorder rec(dir_, script);
  ASSERT_OK(rec.status());
  auto ns = Connect(rec, {{"max_retries", "3"}, {"retry_backoff_ms", "20"}});
  ASSERT_NE(ns, nullptr);
  DescribeTableRequest t{.id = {"t"}};
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto described, ns->DescribeTable(t));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(described.location, "/t");
  EXPECT_EQ(rec.Requests().size(), 3u);
  // 20 ms then 40 ms.
  EXPECT_GE(waited, std::chrono::milliseconds(60));
}

TEST_F(RecordingTest, RetriesStopAtMaxRetries) {
  json script =
      json::array({Answer(503, ""), Answer(503, ""), Answer(503, ""), Answer(200, "{}")});
  Recorder rec(dir_, script);
  ASSERT_OK(rec.status());
  auto ns = Connect(rec, {{"max_retries", "2"}});
  ASSERT_NE(ns, nullptr);
  NamespaceExistsRequest exists{.id = {"a"}};
  Status st = ns->NamespaceExists(exists);
  EXPECT_EQ(CodeOf(st), ErrorCode::kServiceUnavailable) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("gave up after 3 attempts"));
  EXPECT_EQ(rec.Requests().size(), 3u);
}

TEST_F(RecordingTest, WritesAreNotRetried) {
  json script = json::array({Answer(503, R"({"code":17,"error":"later"})"),
                             Answer(200, "{}"), Answer(200, "{}")});
  Recorder rec(dir_, script);
  ASSERT_OK(rec.status());
  auto ns = Connect(rec, {{"max_retries", "3"}});
  ASSERT_NE(ns, nullptr);
  DeclareTableRequest declare{.id = {"t"}};
  auto r = ns->DeclareTable(declare);
  EXPECT_EQ(CodeOf(r), ErrorCode::kServiceUnavailable);
  EXPECT_TRUE(r.status().retryable());
  EXPECT_EQ(rec.Requests().size(), 1u);
}

TEST_F(RecordingTest, TimeoutsAreServiceUnavailable) {
  json script = json::array({{{"status", 200}, {"body", "{}"}, {"delay_ms", 1500}},
                             Answer(200, R"({"location":"/ok"})")});
  Recorder rec(dir_, script);
  ASSERT_OK(rec.status());
  auto ns = Connect(rec, {{"read_timeout_ms", "300"}, {"max_retries", "1"}});
  ASSERT_NE(ns, nullptr);
  // The first attempt times out; the retry gets the next answer.
  DescribeTableRequest t{.id = {"t"}};
  ASSERT_OK_AND_ASSIGN(auto described, ns->DescribeTable(t));
  EXPECT_EQ(described.location, "/ok");

  // Without retries the timeout is the answer: ServiceUnavailable, retryable.
  TempDir other;
  Recorder slow(other,
                json::array({{{"status", 200}, {"body", "{}"}, {"delay_ms", 1500}}}));
  ASSERT_OK(slow.status());
  auto once = Connect(slow, {{"read_timeout_ms", "300"}, {"max_retries", "0"}});
  ASSERT_NE(once, nullptr);
  auto timed_out = once->DescribeTable(t);
  EXPECT_EQ(CodeOf(timed_out), ErrorCode::kServiceUnavailable)
      << timed_out.status().ToString();
  EXPECT_TRUE(timed_out.status().retryable());
  EXPECT_THAT(timed_out.status().message(), HasSubstr("/v1/table/t/describe"));
}

TEST_F(RecordingTest, ConnectionRefusedNamesTheUrlButNoSecret) {
  // A port nobody listens on: bind one, then close it.
  int port = 0;
  {
    Recorder rec(dir_);
    ASSERT_OK(rec.status());
    port = rec.port();
  }  // closed: the listening socket is gone when the recorder is
  auto ns = RestNamespace::FromProperties(
      {{"uri", "http://user:pw1@127.0.0.1:" + std::to_string(port)},
       {"header.Authorization", "Bearer sekrit-token"},
       {"max_retries", "2"},
       {"retry_backoff_ms", "1"}});
  ASSERT_OK(ns);
  DescribeTableRequest t{.id = {"ns1", "t1"}};
  auto r = (*ns)->DescribeTable(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(CodeOf(r), ErrorCode::kServiceUnavailable) << r.status().ToString();
  EXPECT_TRUE(r.status().retryable());
  EXPECT_EQ(r.status().message().rfind("ServiceUnavailable: ", 0), 0u)
      << r.status().message();
  EXPECT_THAT(r.status().message(), HasSubstr("gave up after 3 attempts"));
  const std::string text = r.status().ToString();
  EXPECT_THAT(text, HasSubstr("POST http://***@127.0.0.1:" + std::to_string(port) +
                              "/v1/table/ns1%24t1/describe"));
  EXPECT_THAT(text, Not(HasSubstr("sekrit")));
  EXPECT_THAT(text, Not(HasSubstr("pw1")));
  EXPECT_THAT((*ns)->namespace_id(), Not(HasSubstr("pw1")));
}

// -- HTTPS
// --------------------------------------------------------------------------------

Status MakeCertificates(const TempDir& dir, const std::string& prefix,
                        const std::string& san) {
  return testing::MakeTestCertificates(dir, prefix, san);
}

TEST_F(RecordingTest, HttpsWithTheServersCa) {
  ASSERT_OK(MakeCertificates(dir_, "good", "IP:127.0.0.1,DNS:localhost"));
  ASSERT_OK(MakeCertificates(dir_, "other", "IP:127.0.0.1"));
  Recorder rec(dir_, json::array({Answer(200, R"({"namespaces":["tls"]})")}),
               {"--tls", dir_.Join("good-server.pem"), dir_.Join("good-server.key")});
  ASSERT_OK(rec.status());
  const std::string https = "https://127.0.0.1:" + std::to_string(rec.port());

  ASSERT_OK_AND_ASSIGN(
      auto ns, RestNamespace::FromProperties(
                   {{"uri", https}, {"tls.ssl_ca_cert", dir_.Join("good-ca.pem")}}));
  ASSERT_OK_AND_ASSIGN(auto listed, ns->ListNamespaces({}));
  EXPECT_THAT(listed.namespaces, ElementsAre("tls"));

  // Another CA: the handshake fails, cleanly, once (not a transient failure).
  ASSERT_OK_AND_ASSIGN(auto wrong, RestNamespace::FromProperties(
                                       {{"uri", https},
                                        {"tls.ssl_ca_cert", dir_.Join("other-ca.pem")},
                                        {"max_retries", "3"}}));
  auto refused = wrong->ListNamespaces({});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(CodeOf(refused), ErrorCode::kInternal) << refused.status().ToString();
  EXPECT_FALSE(refused.status().retryable());
  EXPECT_THAT(refused.status().message(), HasSubstr("TLS"));
  EXPECT_THAT(refused.status().message(), HasSubstr(https + "/v1/namespace/%24/list"));
  EXPECT_EQ(rec.Requests().size(), 1u);
}

TEST_F(RecordingTest, HttpsHostNameCheck) {
  // The certificate names only "localhost": 127.0.0.1 does not match it.
  ASSERT_OK(MakeCertificates(dir_, "named", "DNS:localhost"));
  Recorder rec(dir_, json::array(),
               {"--tls", dir_.Join("named-server.pem"), dir_.Join("named-server.key")});
  ASSERT_OK(rec.status());
  const std::string https = "https://127.0.0.1:" + std::to_string(rec.port());
  ASSERT_OK_AND_ASSIGN(
      auto strict, RestNamespace::FromProperties(
                       {{"uri", https}, {"tls.ssl_ca_cert", dir_.Join("named-ca.pem")}}));
  NamespaceExistsRequest exists{.id = {"a"}};
  Status mismatch = strict->NamespaceExists(exists);
  EXPECT_EQ(CodeOf(mismatch), ErrorCode::kInternal) << mismatch.ToString();
  EXPECT_THAT(mismatch.message(), HasSubstr("TLS"));

  ASSERT_OK_AND_ASSIGN(auto relaxed, RestNamespace::FromProperties(
                                         {{"uri", https},
                                          {"tls.ssl_ca_cert", dir_.Join("named-ca.pem")},
                                          {"tls.assert_hostname", "false"}}));
  EXPECT_OK(relaxed->NamespaceExists(exists));
  EXPECT_EQ(rec.Requests().size(), 1u);
}

TEST_F(RecordingTest, MutualTlsSendsTheClientCertificate) {
  ASSERT_OK(MakeCertificates(dir_, "srv", "IP:127.0.0.1"));
  // The client's certificate: signed by a CA of its own, which the server trusts.
  ASSERT_OK(MakeCertificates(dir_, "cli", "DNS:client"));
  Recorder rec(dir_, json::array(),
               {"--tls", dir_.Join("srv-server.pem"), dir_.Join("srv-server.key"),
                "--client-ca", dir_.Join("cli-ca.pem")});
  ASSERT_OK(rec.status());
  const std::string https = "https://127.0.0.1:" + std::to_string(rec.port());
  NamespaceExistsRequest exists{.id = {"a"}};

  ASSERT_OK_AND_ASSIGN(auto anonymous, RestNamespace::FromProperties(
                                           {{"uri", https},
                                            {"tls.ssl_ca_cert", dir_.Join("srv-ca.pem")},
                                            {"max_retries", "0"}}));
  Status refused = anonymous->NamespaceExists(exists);
  EXPECT_FALSE(refused.ok());

  ASSERT_OK_AND_ASSIGN(auto mutual, RestNamespace::FromProperties(
                                        {{"uri", https},
                                         {"tls.ssl_ca_cert", dir_.Join("srv-ca.pem")},
                                         {"tls.cert_file", dir_.Join("cli-server.pem")},
                                         {"tls.key_file", dir_.Join("cli-server.key")}}));
  EXPECT_OK(mutual->NamespaceExists(exists));
  EXPECT_EQ(rec.Requests().size(), 1u);
}

}  // namespace
}  // namespace lance::ns
