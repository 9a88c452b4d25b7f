// SPDX-License-Identifier: Apache-2.0
// Issue 28 point 2 on the real server: a directory namespace on RGW vending per table
// through STS (permission admin), with tables whose names are each other's prefixes
// (`a`, `a2`, `ab`, `a.lance`), nested ids, unicode names and names with spaces. Each
// table is written through the namespace with its own vended
// credentials; then every credential, used raw against RGW, gets and puts and lists and
// deletes under its own table and is refused (403 AccessDenied) under every other table,
// the catalog and the parents. Names that a policy would read as patterns (`*`, `a?`,
// `${...}`, control characters) and names a URL reader decodes into another name
// (`a%2Ab`, `a#b`) are refused before anything is written or vended.
// The policy document itself, for hundreds of generated names:
// tests/namespace/policy_scope_test.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/http_error.h"
#include "lance/io/s3_object_store.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "tests/s3/rgw_vendor.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/escaped.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"

namespace lance::ns {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

std::unique_ptr<RecordBatchReader> Reader(int64_t start, int64_t n) {
  auto batch = testing::NamedRows(start, n);
  return RecordBatchReader::FromBatches(batch->schema(), {batch});
}

using ::lance::testing::Escaped;

std::string Printable(const Identifier& id) {
  std::string out;
  for (const std::string& level : id) out += (out.empty() ? "[" : ", ") + Escaped(level);
  return out + "]";
}

class VendingScopeTest : public ::lance::testing::S3VendingTest {
 protected:
  VendingScopeTest() : S3VendingTest("scope") {}

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(S3VendingTest::SetUp());
    Properties props{{"root", root_},
                     {"credential_vendor.enabled", "true"},
                     {"credential_vendor.aws_role_arn", env_.sts_role_arn},
                     {"credential_vendor.permission", "admin"},
                     {"credential_vendor.aws_duration_millis", "900000"}};
    for (const auto& [k, v] : env_.Options()) props["storage." + k] = v;
    ASSERT_OK_AND_ASSIGN(ns_, DirectoryNamespace::FromProperties(props));
  }

  // A raw store on the bucket that signs with exactly the vended key, secret and token
  // (endpoint and region from the vended options too).
  std::shared_ptr<io::S3ObjectStore> StoreWith(const Properties& vended) const {
    testing::RecordSecrets(vended);  // for scripts/scan_secrets.sh
    EXPECT_TRUE(vended.count("aws_access_key_id") &&
                vended.count("aws_secret_access_key") &&
                vended.count("aws_session_token"));
    EXPECT_NE(vended.at("aws_access_key_id"), env_.access_key);
    return RawStore(io::StorageOptions(vended.begin(), vended.end()));
  }

  // RGW's refusal: 403 AccessDenied, not some other failure.
  static void ExpectDenied(const Status& status, const std::string& what) {
    ASSERT_FALSE(status.ok()) << what << ": allowed";
    EXPECT_TRUE(status.IsForbidden()) << what << ": " << status;
    const auto* http = status.detail_as<io::HttpErrorDetail>();
    ASSERT_NE(http, nullptr) << what << ": " << status;
    EXPECT_EQ(http->http_status(), 403) << what << ": " << status;
    EXPECT_EQ(http->service_code(), "AccessDenied") << what << ": " << status;
  }

  // Keys under `prefix` (the static test key).
  std::vector<std::string> KeysUnder(const std::string& prefix) {
    auto listed = direct_->ListAll(prefix, /*recursive=*/true);
    EXPECT_THAT(listed, IsOk());
    std::vector<std::string> keys;
    if (listed.ok()) {
      for (const io::ObjectMeta& meta : listed->objects) keys.push_back(meta.path);
    }
    return keys;
  }

  std::shared_ptr<DirectoryNamespace> ns_;
};

TEST_F(VendingScopeTest, NamesThatWidenAScopeAreRefusedBeforeAnythingIsWritten) {
  ASSERT_OK(ns_->CreateNamespace({.id = {"team"}}).status());
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"*", "'*'"},
      {"a*", "'*'"},
      {"a?", "'?'"},
      {"?", "'?'"},
      {"b${aws:username}", "'${'"},
      {std::string("a\001b"), "0x01"},
      // Percent-encoded names: a URL reader of the location decodes them to another
      // name ("a%2Ab" to "a*b"), a literal one does not.
      {"a%2Ab", "'%'"},
      {"x%2F..%2Fy", "'%'"},
      {"a#b", "'#'"}};
  for (const auto& [name, named] : refused) {
    SCOPED_TRACE(Escaped(name));
    auto expect_refused = [&](const Status& status, const std::string& op) {
      ASSERT_FALSE(status.ok()) << op << " accepted it";
      EXPECT_EQ(NamespaceErrorCode(status), ErrorCode::kInvalidInput)
          << op << ": " << status;
      EXPECT_THAT(status.message(), HasSubstr(named)) << op;
    };
    expect_refused(ns_->DeclareTable({.id = {name}}).status(), "declare_table");
    expect_refused(ns_->DeclareTable({.id = {"team", name}}).status(), "nested declare");
    expect_refused(ns_->CreateEmptyTable({.id = {name}}).status(), "create_empty_table");
    expect_refused(ns_->DescribeTable({.id = {name}}).status(), "describe_table");
    expect_refused(ns_->CreateNamespace({.id = {name}}).status(), "create_namespace");
    auto data = Reader(0, 3);
    expect_refused(WriteDataset(*data, ns_, {name}).status(),
                   "write through the namespace");
  }
  // Nothing but the catalog (namespace "team") was written, and no table was listed.
  for (const std::string& key : KeysUnder(root_key_ + "/")) {
    EXPECT_EQ(key.rfind(root_key_ + "/__manifest/", 0), 0u) << key;
  }
  for (const Identifier& parent : {Identifier{}, Identifier{"team"}}) {
    ASSERT_OK_AND_ASSIGN(auto listed,
                         ns_->ListTables({.id = parent, .include_declared = true}));
    EXPECT_TRUE(listed.tables.empty()) << Printable(parent);
  }
  // And the vendor refuses such a location itself, or a whole bucket.
  ASSERT_OK_AND_ASSIGN(auto vendor, MakeAwsCredentialVendor(VendorOptions()));
  const std::string base = "s3://" + env_.bucket + "/" + root_key_;
  for (const std::string& location : std::vector<std::string>{
           base + "/*.lance", base + "/a?.lance", base + "/${aws:username}.lance",
           base + "/*", "s3://" + env_.bucket, "s3://" + env_.bucket + "/"}) {
    SCOPED_TRACE(location);
    auto vended = vendor->Vend(location, VendPermission::kRead);
    ASSERT_FALSE(vended.ok()) << "vended";
    EXPECT_EQ(NamespaceErrorCode(vended.status()), ErrorCode::kInvalidInput)
        << vended.status();
  }
}

// A name that is not UTF-8 cannot go into the policy's JSON: the namespace must refuse
// it (InvalidInput) or vend for it, never throw out of declare_table (a server thread
// would take the process down). (RGW itself refuses such keys: 400 InvalidObjectName.)
TEST_F(VendingScopeTest, NamesThatAreNotUtf8AreRefusedOrVendedWithoutThrowing) {
  for (const std::string& name : std::vector<std::string>{"\xFF", "a\xC3", "\xC3("}) {
    SCOPED_TRACE(Escaped(name));
    try {
      auto declared = ns_->DeclareTable({.id = {name}});
      if (!declared.ok()) {
        EXPECT_EQ(NamespaceErrorCode(declared.status()), ErrorCode::kInvalidInput)
            << declared.status();
        continue;
      }
      ASSERT_TRUE(declared->storage_options.has_value());
      auto store = StoreWith(*declared->storage_options);
      ASSERT_NE(store, nullptr);
      ExpectDenied(store->ListAll(root_key_ + "/", false).status(), "list of the root");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "declare_table threw: " << e.what();
    }
  }
}

// One table of the scope test: where its objects are and a store with its credentials.
struct ScopedTable {
  Identifier id;
  std::string dir;           // bucket-relative key prefix, without trailing '/'
  std::string manifest_key;  // one of its objects
  std::shared_ptr<io::S3ObjectStore> store;
};

TEST_F(VendingScopeTest, EachCredentialReachesItsOwnTableAndNoOther) {
  ASSERT_OK(ns_->CreateNamespace({.id = {"team"}}).status());
  const std::vector<Identifier> ids = {{"a"},
                                       {"a2"},
                                       {"ab"},
                                       {"a.lance"},
                                       {"team", "a"},
                                       {"team", "t"},
                                       {"\xC3\xA9\xE8\xA1\xA8"},  // "é表"
                                       {"team", "\xC3\xA9 t"},
                                       {"a b"}};
  const std::string bucket_uri = "s3://" + env_.bucket + "/";
  std::vector<ScopedTable> tables;
  for (const Identifier& id : ids) {
    SCOPED_TRACE(Printable(id));
    // Own work through the namespace: create (declare's credentials and location),
    // append and read (describe's).
    auto created = WriteDataset(*Reader(0, 3), ns_, id);
    EXPECT_THAT(created, IsOk()) << "own write refused";
    if (created.ok()) {
      auto appended = WriteDataset(*Reader(3, 2), ns_, id, {.mode = WriteMode::kAppend});
      EXPECT_THAT(appended, IsOk()) << "own append refused";
      auto opened = OpenDataset(ns_, id);
      EXPECT_THAT(opened, IsOk()) << "own read refused";
      if (opened.ok()) {
        auto rows = (*opened)->CountRows();
        ASSERT_THAT(rows, IsOk());
        EXPECT_EQ(*rows, appended.ok() ? 5 : 3);
      }
    }

    // The scope: describe's location and credentials. A table whose write failed still
    // takes part below with its declaration marker, so that the scope itself is checked.
    auto described = ns_->DescribeTable({.id = id});
    ASSERT_THAT(described, IsOk());
    ASSERT_TRUE(described->location && described->storage_options);
    ASSERT_EQ(described->location->rfind(bucket_uri + root_key_ + "/", 0), 0u)
        << *described->location;
    ScopedTable table;
    table.id = id;
    table.dir = described->location->substr(bucket_uri.size());
    EXPECT_EQ(table.dir.find('/', root_key_.size() + 1), std::string::npos) << table.dir;
    // The data lies where describe says.
    const std::vector<std::string> versions = KeysUnder(table.dir + "/_versions/");
    EXPECT_EQ(versions.empty(), !created.ok()) << "versions under " << table.dir;
    table.manifest_key =
        versions.empty() ? table.dir + "/.lance-reserved" : versions.front();
    ASSERT_OK(direct_->Head(table.manifest_key).status());
    table.store = StoreWith(*described->storage_options);
    ASSERT_NE(table.store, nullptr);
    tables.push_back(std::move(table));
  }
  ASSERT_EQ(tables.size(), ids.size());

  for (size_t i = 0; i < tables.size(); ++i) {
    const ScopedTable& t = tables[i];
    SCOPED_TRACE("credentials of " + Printable(t.id) + " (" + t.dir + ")");
    io::S3ObjectStore& store = *t.store;
    // Its own table: read, list with "P/", write, delete.
    auto got = store.Read(t.manifest_key);
    EXPECT_THAT(got, IsOk()) << "own get";
    auto own = store.ListAll(t.dir + "/", true);
    EXPECT_THAT(own, IsOk()) << "own list";
    if (own.ok()) {
      bool listed_manifest = false;
      for (const io::ObjectMeta& meta : own->objects) {
        EXPECT_EQ(meta.path.rfind(t.dir + "/", 0), 0u) << meta.path;
        listed_manifest = listed_manifest || meta.path == t.manifest_key;
      }
      EXPECT_TRUE(listed_manifest) << t.manifest_key << " not listed";
    }
    EXPECT_THAT(store.ListAll(t.dir + "/_versions/", false), IsOk()) << "own list";
    const std::string scratch = t.dir + "/scratch-" + std::to_string(i);
    EXPECT_OK(store.Put(scratch, "own"));
    auto back = store.Read(scratch);
    ASSERT_THAT(back, IsOk()) << "own get of the scratch object";
    EXPECT_EQ((*back)->ToStringView(), "own");
    EXPECT_OK(store.Delete(scratch));
    EXPECT_TRUE(direct_->Head(scratch).status().IsNotFound());
    // Not the bare prefix: it would list any sibling starting with it.
    ExpectDenied(store.ListAll(t.dir, true).status(), "list of the bare own prefix");

    // Every other table: refused, and untouched.
    for (const ScopedTable& u : tables) {
      if (&u == &t) continue;
      SCOPED_TRACE("on " + Printable(u.id) + " (" + u.dir + ")");
      ExpectDenied(store.Read(u.manifest_key).status(), "get");
      const std::string intruder = u.dir + "/data/intruder-" + std::to_string(i);
      ExpectDenied(store.Put(intruder, "x"), "put");
      EXPECT_TRUE(direct_->Head(intruder).status().IsNotFound());
      ExpectDenied(store.ListAll(u.dir + "/", true).status(), "list of dir/");
      ExpectDenied(store.ListAll(u.dir + "/_versions/", false).status(),
                   "list of dir/_versions/");
      ExpectDenied(store.ListAll(u.dir, true).status(), "list of the bare dir");
      ExpectDenied(store.Delete(u.manifest_key), "delete");
      EXPECT_OK(direct_->Head(u.manifest_key).status());
    }
    // The parents, the bucket and the catalog.
    ExpectDenied(store.ListAll(root_key_ + "/", false).status(), "list of the root");
    ExpectDenied(store.ListAll(root_key_, false).status(), "list of the bare root");
    ExpectDenied(store.ListAll("", false).status(), "list of the bucket");
    const std::vector<std::string> catalog = KeysUnder(root_key_ + "/__manifest/");
    ASSERT_FALSE(catalog.empty());
    ExpectDenied(store.Read(catalog.front()).status(), "get of the catalog");
    ExpectDenied(store.Put(root_key_ + "/__manifest/intruder", "x"),
                 "put in the catalog");
    ExpectDenied(store.Delete(catalog.front()), "delete in the catalog");
    ExpectDenied(store.Put(root_key_ + "/intruder", "x"), "put at the root");
  }

  // The bare-prefix ListBucket of old: `a`'s credentials listing "<root>/a" or
  // "<root>/a.lance" would have returned `a2`, `ab` and `a.lance`'s keys.
  const auto a = std::find_if(tables.begin(), tables.end(), [](const ScopedTable& t) {
    return t.id == Identifier{"a"};
  });
  ASSERT_NE(a, tables.end());
  for (const std::string& prefix :
       std::vector<std::string>{root_key_ + "/a", root_key_ + "/a.lance",
                                root_key_ + "/a.lance.", root_key_ + "/a2"}) {
    SCOPED_TRACE("a listing " + prefix);
    auto listed = a->store->ListAll(prefix, true);
    if (listed.ok()) {
      for (const io::ObjectMeta& meta : listed->objects) {
        EXPECT_EQ(meta.path.rfind(a->dir + "/", 0), 0u) << "a lists " << meta.path;
      }
    }
    ExpectDenied(listed.status(), "list");
  }
}

}  // namespace
}  // namespace lance::ns
