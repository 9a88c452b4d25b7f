// SPDX-License-Identifier: Apache-2.0
// Retries against Azurite through the tests' fault-injecting proxy: throttling (503),
// server errors (500), reset connections and cut bodies are retried with backoff; a
// conditional create whose answer was lost is recognised as ours; an exhausted retry
// budget is Unavailable and says how many attempts it made.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "io/azure/azure_client.h"
#include "lance/io/azure_object_store.h"
#include "tests/azure/azure_fixture.h"
#include "tests/testing/fault_proxy.h"
#include "tests/testing/matchers.h"
#include "tests/testing/object_store_conformance.h"

namespace lance::io {
namespace {

using ::lance::testing::FaultAction;
using ::lance::testing::FaultProxy;
using ::lance::testing::RandomBytes;
using ::testing::HasSubstr;

class AzureFaultTest : public ::lance::testing::AzureContainerTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(AzureContainerTest::SetUp());
    ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start(env_.Origin()));
    StorageOptions options = env_.Options();
    options["azure_storage_endpoint"] = proxy_->endpoint() + "/" + env_.account;
    options["client_max_retries"] = "4";
    options["lance_cpp_initial_backoff_ms"] = "10";
    options["lance_cpp_max_backoff_ms"] = "50";
    options["lance_cpp_read_chunk_size"] = std::to_string(64 << 10);
    ASSERT_OK_AND_ASSIGN(
        store_, MakeAzureObjectStoreFromStorageOptions("az", container_, options));
  }
  int64_t Retries() const { return store_->client()->stats().retries.load(); }

  std::unique_ptr<FaultProxy> proxy_;
  std::shared_ptr<AzureObjectStore> store_;
};

TEST_F(AzureFaultTest, TransientFailuresAreRetried) {
  proxy_->AddFault(FaultAction::kSlowDown, 2, "PUT");
  ASSERT_OK(store_->Put("f/a", "throttled"));
  EXPECT_EQ(Retries(), 2);
  proxy_->AddFault(FaultAction::kInternalError, 1, "GET");
  proxy_->AddFault(FaultAction::kReset, 1, "GET");
  ASSERT_OK_AND_ASSIGN(BufferPtr read, store_->Read("f/a"));
  EXPECT_EQ(read->ToStringView(), "throttled");
  EXPECT_EQ(Retries(), 4);
  // A body cut short is read again (into the same slice of the buffer).
  const std::string big = RandomBytes(200 << 10, 3);
  ASSERT_OK(store_->Put("f/big", big));
  proxy_->AddFault(FaultAction::kTruncateBody, 2, "GET");
  ASSERT_OK_AND_ASSIGN(read, store_->ReadRange("f/big", 10, 150 << 10));
  EXPECT_EQ(read->ToStringView(), std::string_view(big).substr(10, 150 << 10));
}

TEST_F(AzureFaultTest, LostAnswerOfAConditionalCreateIsOurs) {
  // Azurite creates the blob, the answer never arrives; the retry meets our own blob.
  proxy_->AddFault(FaultAction::kDropReply, 1, "PUT");
  ASSERT_OK(store_->PutIfNotExists("commit/1", "mine"));
  ASSERT_OK_AND_ASSIGN(BufferPtr read, admin_->Read("commit/1"));
  EXPECT_EQ(read->ToStringView(), "mine");
  // Someone else's blob stays AlreadyExists, lost answer or not.
  proxy_->AddFault(FaultAction::kDropReply, 1, "PUT");
  EXPECT_TRUE(store_->PutIfNotExists("commit/1", "theirs").IsAlreadyExists());
  ASSERT_OK_AND_ASSIGN(read, admin_->Read("commit/1"));
  EXPECT_EQ(read->ToStringView(), "mine");
}

TEST_F(AzureFaultTest, ExhaustedRetriesAreUnavailable) {
  proxy_->AddFault(FaultAction::kSlowDown, 10, "HEAD");
  auto head = store_->Head("f/missing");
  ASSERT_FALSE(head.ok());
  EXPECT_TRUE(head.status().IsUnavailable()) << head.status().ToString();
  EXPECT_TRUE(head.status().retryable());
  EXPECT_THAT(head.status().message(),
              HasSubstr("GetBlobProperties of az://" + container_));
  EXPECT_THAT(head.status().message(), HasSubstr("after 5 attempts"));
}

}  // namespace
}  // namespace lance::io
