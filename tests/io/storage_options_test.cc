// SPDX-License-Identifier: Apache-2.0
// The one rule for secret storage options (storage_options.h), and that the registry,
// S3Options::ToString and AwsCredentials::ToString follow it.
#include "lance/io/storage_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/io/credentials.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/s3/s3_options.h"
#include "tests/testing/matchers.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

TEST(StorageOptionsSecretsRule, Classification) {
  for (const char* k :
       {"aws_secret_access_key", "AWS_SESSION_TOKEN", "token", "password", "passwd",
        "google_service_account_key", "azure_storage_account_key", "account_key", "key",
        "api_key", "client_secret", "sas_token", "credentials", "azure_storage_sas_key",
        "storage.aws_session_token", "signature", "AWS_SECRET"}) {
    EXPECT_EQ(ClassifyOptionKey(k), OptionSensitivity::kSecret) << k;
    EXPECT_TRUE(IsSecretOptionKey(k)) << k;
    EXPECT_TRUE(IsSensitiveOptionKey(k)) << k;
  }
  for (const char* k :
       {"aws_access_key_id", "ACCESS_KEY_ID", "key_id", "storage.aws_access_key_id"}) {
    EXPECT_EQ(ClassifyOptionKey(k), OptionSensitivity::kIdentifier) << k;
    EXPECT_FALSE(IsSecretOptionKey(k)) << k;
    EXPECT_TRUE(IsSensitiveOptionKey(k)) << k;
  }
  for (const char* k :
       {"region", "aws_region", "aws_endpoint", "allow_http", "client_id", "account_name",
        "timeout", "aws_virtual_hosted_style_request", "expires_at_millis"}) {
    EXPECT_EQ(ClassifyOptionKey(k), OptionSensitivity::kPlain) << k;
    EXPECT_FALSE(IsSensitiveOptionKey(k)) << k;
  }
}

TEST(StorageOptionsSecretsRule, Redaction) {
  EXPECT_EQ(RedactOptionValue("aws_region", "eu-west-1"), "eu-west-1");
  EXPECT_EQ(RedactOptionValue("aws_secret_access_key", "wJalrXUtnFEMI"), "<redacted>");
  EXPECT_EQ(RedactOptionValue("aws_session_token", ""), "<redacted>");
  EXPECT_EQ(RedactOptionValue("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE"), "AKIA\u2026");
  EXPECT_EQ(RedactOptionValue("AWS_ACCESS_KEY_ID", "AK"), "AK\u2026");
  EXPECT_EQ(RedactOptionValue("aws_access_key_id", ""), "\u2026");
}

TEST(StorageOptionsSecretsRule, RegistryAndS3FollowTheRule) {
  // The registry keeps key ids and secrets out of cache keys alike.
  EXPECT_TRUE(ObjectStoreRegistry::IsSecretOptionKey("aws_access_key_id"));
  EXPECT_TRUE(ObjectStoreRegistry::IsSecretOptionKey("aws_secret_access_key"));
  EXPECT_FALSE(ObjectStoreRegistry::IsSecretOptionKey("aws_region"));
  const std::string cache_key = ObjectStoreRegistry::CacheKey(
      Uri{"s3", "b", ""}, {{"aws_access_key_id", "AKIAVISIBLEID"},
                           {"aws_secret_access_key", "hidden-secret"},
                           {"aws_region", "eu-west-1"}});
  EXPECT_THAT(cache_key, HasSubstr("eu-west-1"));
  EXPECT_THAT(cache_key, Not(HasSubstr("AKIAVISIBLEID")));
  EXPECT_THAT(cache_key, Not(HasSubstr("hidden-secret")));

  const s3::AwsCredentials creds{"AKIAVISIBLEID", "hidden-secret", "hidden-token"};
  const std::string shown = creds.ToString();
  EXPECT_THAT(shown, HasSubstr("access_key_id=AKIA\u2026"));
  EXPECT_THAT(shown, Not(HasSubstr("AKIAVISIBLEID")));
  EXPECT_THAT(shown, Not(HasSubstr("hidden")));

  auto o = s3::ParseS3Options({{"aws_access_key_id", "AKIAVISIBLEID"},
                               {"aws_secret_access_key", "hidden-secret"}},
                              [](std::string_view) { return std::nullopt; });
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_THAT(o->ToString(), HasSubstr("credentials=AKIA\u2026"));
  EXPECT_THAT(o->ToString(), Not(HasSubstr("AKIAVISIBLEID")));

  // Two spellings of the key id that disagree: named, values shown only redacted.
  auto conflict = s3::ParseS3Options({{"aws_access_key_id", "AKIAFIRSTKEY"},
                                      {"access_key_id", "AKIBSECONDKEY"},
                                      {"aws_secret_access_key", "hidden-secret"}},
                                     [](std::string_view) { return std::nullopt; });
  ASSERT_FALSE(conflict.ok());
  const std::string msg = conflict.status().message();
  EXPECT_THAT(msg, HasSubstr("'aws_access_key_id'"));
  EXPECT_THAT(msg, Not(HasSubstr("AKIAFIRSTKEY")));
  EXPECT_THAT(msg, Not(HasSubstr("AKIBSECONDKEY")));
  // Two secrets that disagree: no value at all.
  auto secrets = s3::ParseS3Options({{"aws_access_key_id", "AKIAFIRSTKEY"},
                                     {"aws_secret_access_key", "hidden-one"},
                                     {"secret_access_key", "hidden-two"}},
                                    [](std::string_view) { return std::nullopt; });
  ASSERT_FALSE(secrets.ok());
  EXPECT_THAT(secrets.status().message(), Not(HasSubstr("hidden")));
}

}  // namespace
}  // namespace lance::io
