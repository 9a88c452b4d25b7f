// SPDX-License-Identifier: Apache-2.0
// No secret in any log line, error message or ToString, at the most verbose log level,
// while driving the credential error paths against the real RGW of the tests: a wrong
// secret, an unknown key, a revoked key, a refreshing source whose provider first vends a
// revoked key and then a good one, STS session credentials with a wrong token, the
// namespace provider vending the static key, and the ToString of every
// options/credentials object involved.
//
// The check has two sides, so it cannot pass by logging nothing: no secret (secret keys,
// session tokens, a signature) appears anywhere, AND the captured debug lines do show the
// redacted key id (AwsCredentials::ToString: first 4 characters + "…") of every key used.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/logging.h"
#include "lance/io/credentials.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/s3/s3_options.h"
#include "lance/io/s3_object_store.h"
#include "lance/io/storage_options_provider.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/storage_options_provider.h"
#include "tests/s3/s3_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"

namespace lance {
namespace {

using io::StorageOptions;
using io::s3::AwsCredentials;

// What AwsCredentials::ToString shows of a key id.
std::string RedactedKeyId(const std::string& key_id) {
  return "access_key_id=" + key_id.substr(0, 4) + "\u2026";
}

// A provider that vends a scripted sequence of credentials (the last one repeats).
class ScriptedProvider final : public io::StorageOptionsProvider {
 public:
  ScriptedProvider(StorageOptions base, std::vector<AwsCredentials> script)
      : base_(std::move(base)), script_(std::move(script)) {}

  Result<std::optional<StorageOptions>> FetchStorageOptions() override {
    std::lock_guard<std::mutex> lock(mu_);
    const AwsCredentials& c = script_[std::min(next_, script_.size() - 1)];
    ++next_;
    StorageOptions options = base_;
    options["aws_access_key_id"] = c.access_key_id;
    options["aws_secret_access_key"] = c.secret_access_key;
    // Expiring, so the source treats them as vended (refresh offset 0: no background
    // refresh during the test).
    options[std::string(io::kExpiresAtMillisKey)] =
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count() +
                       600'000);
    options[std::string(io::kRefreshOffsetMillisKey)] = "0";
    return options;
  }
  std::string provider_id() const override { return "scripted-secret-capture"; }
  size_t fetches() const {
    std::lock_guard<std::mutex> lock(mu_);
    return next_;
  }

 private:
  mutable std::mutex mu_;
  StorageOptions base_;
  std::vector<AwsCredentials> script_;
  size_t next_ = 0;
};

// The first text that contains a secret (whole, or its first or last 12 characters when
// it is long), a signature, an Authorization value or a full key id; nullopt if none.
std::optional<std::string> FindLeak(const std::vector<std::string>& texts,
                                    const std::vector<std::string>& secrets,
                                    const std::vector<std::string>& key_ids) {
  for (const auto& text : texts) {
    for (const auto& secret : secrets) {
      if (text.find(secret) != std::string::npos) return "secret in: " + text;
      if (secret.size() >= 24 &&
          (text.find(secret.substr(0, 12)) != std::string::npos ||
           text.find(secret.substr(secret.size() - 12)) != std::string::npos)) {
        return "part of a secret in: " + text;
      }
    }
    if (text.find("Signature=") != std::string::npos ||
        text.find("AWS4-HMAC-SHA256 Credential") != std::string::npos) {
      return "a signature in: " + text;
    }
    // Key ids are shown only redacted.
    for (const auto& id : key_ids) {
      if (text.find(id) != std::string::npos) return "a full key id in: " + text;
    }
  }
  return std::nullopt;
}

// The checker itself catches what it must (so the real check cannot pass by a bug in it).
TEST(SecretCaptureCheckerTest, FindsLeaks) {
  const std::vector<std::string> secrets = {"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"};
  const std::vector<std::string> ids = {"LCTFULLKEYID0001"};
  EXPECT_EQ(FindLeak({"all clean", "access_key_id=LCTF\u2026"}, secrets, ids),
            std::nullopt);
  EXPECT_NE(FindLeak({"x AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 y"}, secrets, ids),
            std::nullopt);
  EXPECT_NE(FindLeak({"prefix AbCdEfGhIjKl..."}, secrets, ids), std::nullopt);
  EXPECT_NE(FindLeak({"...OpQrStUvWxYz0123456789"}, secrets, ids), std::nullopt);
  EXPECT_NE(FindLeak({"Authorization: AWS4-HMAC-SHA256 Credential=x"}, secrets, ids),
            std::nullopt);
  EXPECT_NE(FindLeak({"Signature=abc"}, secrets, ids), std::nullopt);
  EXPECT_NE(FindLeak({"key LCTFULLKEYID0001"}, secrets, ids), std::nullopt);
  // And a secret that is logged is caught in a capture.
  ScopedLogCapture capture(LogLevel::kDebug);
  LANCE_LOG(Debug, "test") << "oops " << secrets[0];
  EXPECT_NE(FindLeak(capture.lines(), secrets, ids), std::nullopt);
}

class SecretCaptureTest : public ::lance::testing::S3EnvTest {
 protected:
  void TearDown() override {
    for (const auto& key : keys_to_remove_) (void)testing::RemoveAccessKey(key);
  }

  // Options without credentials: endpoint, region, allow_http.
  StorageOptions BaseOptions() const {
    StorageOptions o = env_.Options();
    o.erase("aws_access_key_id");
    o.erase("aws_secret_access_key");
    return o;
  }

  Result<std::shared_ptr<io::S3ObjectStore>> StoreWith(const AwsCredentials& c) {
    return io::S3ObjectStore::FromStorageOptions(env_.bucket, env_.OptionsWith(c));
  }

  void Secret(const std::string& s) {
    if (!s.empty()) secrets_.push_back(s);
    testing::RecordSecret(s);  // for scripts/scan_secrets.sh
  }
  void Note(const Status& st) { texts_.push_back(st.ToString()); }
  void Note(std::string s) { texts_.push_back(std::move(s)); }

  std::vector<std::string> secrets_;
  std::vector<std::string> texts_;  // status messages and ToString outputs
  std::vector<std::string> keys_to_remove_;
};

TEST_F(SecretCaptureTest, NoSecretInLogsErrorsOrToStringButRedactedKeyIds) {
  const std::string prefix =
      "secret-capture-" +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  std::vector<std::string> expected_key_ids;  // full ids, checked in redacted form
  std::vector<std::string> all_key_ids;

  ScopedLogCapture capture(LogLevel::kTrace);
  Secret(env_.secret_key);
  all_key_ids.push_back(env_.access_key);

  // A good object to read, written with the static test key.
  const std::string object = prefix + "/object";
  {
    ASSERT_OK_AND_ASSIGN(
        auto store, io::S3ObjectStore::FromStorageOptions(env_.bucket, env_.Options()));
    ASSERT_OK(store->Put(object, "payload"));
    Note(store->ToString());
    expected_key_ids.push_back(env_.access_key);
  }

  // 1. Wrong secret for a real key: 403 SignatureDoesNotMatch.
  {
    AwsCredentials wrong{env_.access_key, "WrongSecretKeyForCaptureTest0123456789abc",
                         ""};
    Secret(wrong.secret_access_key);
    ASSERT_OK_AND_ASSIGN(auto store, StoreWith(wrong));
    auto read = store->Read(object);
    EXPECT_FALSE(read.ok());
    Note(read.status());
    Note(store->ToString());
    auto parsed = io::s3::ParseS3Options(env_.OptionsWith(wrong));
    ASSERT_OK(parsed.status());
    Note(parsed->ToString());
  }

  // 2. Unknown key id: 403 InvalidAccessKeyId.
  {
    AwsCredentials unknown{"LCTUNKNOWNKEYCAPTURE01",
                           "UnknownKeySecretForCaptureTest9876543210", ""};
    Secret(unknown.secret_access_key);
    all_key_ids.push_back(unknown.access_key_id);
    expected_key_ids.push_back(unknown.access_key_id);
    ASSERT_OK_AND_ASSIGN(auto store, StoreWith(unknown));
    auto head = store->Head(object);
    EXPECT_FALSE(head.ok());
    Note(head.status());
  }

  // 3. Revoked key: works, is removed on the server, then is refused.
  {
    ASSERT_OK_AND_ASSIGN(AwsCredentials key, testing::CreateAccessKey());
    keys_to_remove_.push_back(key.access_key_id);
    Secret(key.secret_access_key);
    all_key_ids.push_back(key.access_key_id);
    expected_key_ids.push_back(key.access_key_id);
    ASSERT_OK_AND_ASSIGN(auto store, StoreWith(key));
    ASSERT_OK(store->Read(object).status());
    ASSERT_OK(testing::RemoveAccessKey(key.access_key_id));
    auto read = store->Read(object);
    EXPECT_FALSE(read.ok()) << "a revoked key still reads";
    Note(read.status());
    Note(AwsCredentials(key).ToString());
    Note(io::StaticCredentialsSource(key).ToString());
  }

  // 4. A refreshing source whose provider vends a revoked key, then a good one: the
  // request is refused, the source refreshes once (logged), the retry succeeds.
  {
    ASSERT_OK_AND_ASSIGN(AwsCredentials revoked, testing::CreateAccessKey());
    keys_to_remove_.push_back(revoked.access_key_id);
    ASSERT_OK(testing::RemoveAccessKey(revoked.access_key_id));
    ASSERT_OK_AND_ASSIGN(AwsCredentials good, testing::CreateAccessKey());
    keys_to_remove_.push_back(good.access_key_id);
    for (const auto* c : {&revoked, &good}) {
      Secret(c->secret_access_key);
      all_key_ids.push_back(c->access_key_id);
      expected_key_ids.push_back(c->access_key_id);
    }
    auto provider = std::make_shared<ScriptedProvider>(
        BaseOptions(), std::vector<AwsCredentials>{revoked, good});
    io::RefreshingCredentialsOptions opts;
    opts.min_fetch_interval = std::chrono::milliseconds(0);
    std::vector<std::string> events;
    std::mutex events_mu;
    opts.on_event = [&](const io::RefreshEvent& e) {
      std::lock_guard<std::mutex> lock(events_mu);
      events.push_back(e.ToString());
    };
    ASSERT_OK_AND_ASSIGN(auto source, io::RefreshingCredentialsSource::Make(
                                          BaseOptions(), provider, nullptr, opts));
    ASSERT_OK_AND_ASSIGN(auto store, io::S3ObjectStore::FromStorageOptions(
                                         env_.bucket, BaseOptions(), source));
    ASSERT_OK_AND_ASSIGN(auto data, store->Read(object));
    EXPECT_EQ(data->ToStringView(), "payload");
    EXPECT_EQ(provider->fetches(), 2u);
    ASSERT_TRUE(source->WaitIdle(std::chrono::seconds(10)));
    Note(source->ToString());
    Note(store->ToString());
    std::lock_guard<std::mutex> lock(events_mu);
    EXPECT_EQ(events.size(), 2u);
    for (const auto& e : events) Note(e);
  }

  // 5. STS session credentials: with their token they work; with a wrong token they are
  // refused.
  {
    ASSERT_OK_AND_ASSIGN(AwsCredentials session, testing::AssumeRole());
    Secret(session.secret_access_key);
    Secret(session.session_token);
    all_key_ids.push_back(session.access_key_id);
    expected_key_ids.push_back(session.access_key_id);
    ASSERT_OK_AND_ASSIGN(auto good_store, StoreWith(session));
    ASSERT_OK(good_store->Read(object).status());
    Note(good_store->ToString());

    AwsCredentials wrong_token = session;
    wrong_token.session_token =
        "WrongSessionTokenForCaptureTest" + session.session_token.substr(0, 8);
    Secret(wrong_token.session_token);
    ASSERT_OK_AND_ASSIGN(auto store, StoreWith(wrong_token));
    auto read = store->Read(object);
    EXPECT_FALSE(read.ok()) << "a wrong session token was accepted";
    Note(read.status());
    Note(store->ToString());
    auto parsed = io::s3::ParseS3Options(env_.OptionsWith(wrong_token));
    ASSERT_OK(parsed.status());
    Note(parsed->ToString());
  }

  // 6. The namespace provider on an S3 root whose storage options carry the static key,
  // passed on (vend_input_storage_options): describe_table answers them; the fetch is
  // logged with the redacted key id only.
  {
    ns::Properties props{{"root", env_.UniqueUri("ns")},
                         {"vend_input_storage_options", "true"}};
    for (const auto& [k, v] : env_.Options()) props["storage." + k] = v;
    ASSERT_OK_AND_ASSIGN(auto dir, ns::DirectoryNamespace::FromProperties(props));
    ASSERT_OK(dir->DeclareTable({.id = {"capture"}}).status());
    ASSERT_OK_AND_ASSIGN(
        auto provider, ns::LanceNamespaceStorageOptionsProvider::Make(dir, {"capture"}));
    ASSERT_OK_AND_ASSIGN(auto fetched, provider->FetchStorageOptions());
    ASSERT_TRUE(fetched.has_value());
    EXPECT_EQ(fetched->at("aws_secret_access_key"), env_.secret_key);
    Note(provider->provider_id());
    // A table that does not exist: the failure is logged and returned without secrets.
    ASSERT_OK_AND_ASSIGN(
        auto missing, ns::LanceNamespaceStorageOptionsProvider::Make(dir, {"missing"}));
    auto none = missing->FetchStorageOptions();
    EXPECT_FALSE(none.ok());
    Note(none.status());
  }

  const std::vector<std::string> lines = capture.lines();
  std::vector<std::string> everything = lines;
  everything.insert(everything.end(), texts_.begin(), texts_.end());

  // No secret, not even a sizeable piece of one, no signature, no full key id.
  const std::optional<std::string> leak = FindLeak(everything, secrets_, all_key_ids);
  EXPECT_EQ(leak, std::nullopt) << leak.value_or("");

  // ...and the logs are not empty: every key used shows up, redacted, in a debug line.
  const std::string joined = capture.Joined();
  // LANCE_TEST_DUMP_LOGS=1 shows what was captured.
  if (std::getenv("LANCE_TEST_DUMP_LOGS") != nullptr) std::cerr << joined;
  for (const auto& id : expected_key_ids) {
    EXPECT_THAT(joined, ::testing::HasSubstr(RedactedKeyId(id)))
        << "no log line names key " << id.substr(0, 4) << "...";
  }
  EXPECT_THAT(joined, ::testing::HasSubstr("HTTP 403"));
  EXPECT_THAT(joined, ::testing::HasSubstr("credential refresh (rejected)"));
  EXPECT_THAT(joined, ::testing::HasSubstr("describe_table of [\"capture\"]"));
  EXPECT_GE(capture.CountAtLevel(LogLevel::kDebug), 15u) << joined;
  EXPECT_GE(capture.CountAtLevel(LogLevel::kWarn), 4u) << joined;
}

}  // namespace
}  // namespace lance
