// SPDX-License-Identifier: Apache-2.0
// The Azurite of the test run (scripts/azurite.sh, started by scripts/run_tests.sh): its
// coordinates from LANCE_AZURE_*, fresh containers, service SASes, and a credentials
// source that counts what the store asks of it.
//
// There is no skip: without LANCE_AZURE_ENDPOINT, AzureTestEnv::Get() is an error that
// says how to run the tests, and the test fails.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>

#include "io/azure/azure_client.h"
#include "io/azure/sas.h"
#include "lance/io/azure_object_store.h"
#include "lance/io/credentials.h"
#include "lance/macros.h"
#include "lance/str_cat.h"
#include "tests/testing/env_test.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"

namespace lance::testing {

struct AzureTestEnv {
  std::string
      endpoint;  ///< LANCE_AZURE_ENDPOINT: http://127.0.0.1:<port>/devstoreaccount1
  std::string account;    ///< LANCE_AZURE_ACCOUNT
  std::string key;        ///< LANCE_AZURE_KEY (Azurite's published key)
  std::string container;  ///< LANCE_AZURE_CONTAINER (exists)

  static Result<AzureTestEnv> Get() {
    static const Result<AzureTestEnv> env = []() -> Result<AzureTestEnv> {
      auto get = [](const char* name) {
        const char* v = std::getenv(name);
        return v ? std::string(v) : std::string();
      };
      AzureTestEnv e{get("LANCE_AZURE_ENDPOINT"), get("LANCE_AZURE_ACCOUNT"),
                     get("LANCE_AZURE_KEY"), get("LANCE_AZURE_CONTAINER")};
      if (e.endpoint.empty() || e.account.empty() || e.key.empty()) {
        return Status::Invalid(
            "LANCE_AZURE_ENDPOINT, LANCE_AZURE_ACCOUNT and LANCE_AZURE_KEY are not set: "
            "run "
            "the Azure tests through `make test`, or eval \"$(scripts/azurite.sh start "
            "DIR)\"");
      }
      if (e.container.empty()) e.container = "lance-test";
      return e;
    }();
    return env;
  }

  /// \brief "http://127.0.0.1:<port>" (the endpoint without the account).
  std::string Origin() const { return endpoint.substr(0, endpoint.rfind('/')); }

  /// \brief Storage options for Shared Key with the account key (endpoint as given).
  io::StorageOptions Options() const {
    return {{"azure_storage_account_name", account},
            {"azure_storage_account_key", key},
            {"azure_storage_endpoint", endpoint},
            {"allow_http", "true"}};
  }
  /// \brief Storage options authorizing with `sas` only (no key).
  io::StorageOptions SasOptions(const std::string& sas) const {
    return {{"azure_storage_account_name", account},
            {"azure_storage_sas_token", sas},
            {"azure_storage_endpoint", endpoint},
            {"allow_http", "true"}};
  }

  /// \brief A service SAS for `container` with `permissions`, valid from a minute ago
  /// for `lifetime`; recorded in the secrets ledger.
  Result<std::string> ContainerSas(const std::string& container,
                                   const std::string& permissions,
                                   std::chrono::seconds lifetime) const {
    io::azure::SasOptions o;
    o.account = account;
    o.container = container;
    o.permissions = permissions;
    const auto now = std::chrono::system_clock::now();
    o.start = now - std::chrono::minutes(1);
    o.expiry = now + lifetime;
    Result<std::string> sas = io::azure::MakeServiceSas(o, key);
    if (sas.ok()) {
      RecordSecret(*sas, "azure sas");
      const size_t sig = sas->find("sig=");
      if (sig != std::string::npos) RecordSecret(sas->substr(sig + 4), "azure sas sig");
    }
    return sas;
  }
};

/// \brief A unique lower-case token for container names.
inline std::string UniqueAzureToken() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%012llx",
                static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
  return buf;
}

/// \brief A new, empty container "t-<unique>" (made with the account key), and a store on
/// it built from `options(container)` and `credentials`. The container is deleted when
/// the store is dropped (best effort).
inline Result<std::shared_ptr<io::ObjectStore>> MakeFreshContainerStore(
    const std::function<Result<io::StorageOptions>(const std::string&)>& options,
    std::shared_ptr<io::CredentialsSource> credentials = nullptr) {
  LANCE_ASSIGN_OR_RAISE(AzureTestEnv env, AzureTestEnv::Get());
  const std::string container = "t-" + UniqueAzureToken();
  LANCE_ASSIGN_OR_RAISE(auto admin, io::MakeAzureObjectStoreFromStorageOptions(
                                        "az", container, env.Options()));
  LANCE_RETURN_NOT_OK(admin->client()->CreateContainer());
  LANCE_ASSIGN_OR_RAISE(io::StorageOptions opts, options(container));
  LANCE_ASSIGN_OR_RAISE(auto store, io::MakeAzureObjectStoreFromStorageOptions(
                                        "az", container, opts, std::move(credentials)));
  io::ObjectStore* raw = store.get();
  return std::shared_ptr<io::ObjectStore>(raw, [store, admin](io::ObjectStore*) {
    (void)admin->client()->DeleteContainer();
  });
}

/// \brief A source handing out a fresh SAS (from `mint`) on every OnRejected, counting
/// the calls.
class CountingSasSource final : public io::CredentialsSource {
 public:
  explicit CountingSasSource(std::function<Result<std::string>()> mint)
      : mint_(std::move(mint)) {}

  Result<std::shared_ptr<const io::Credentials>> Current() override {
    current_calls.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    if (creds_ == nullptr) LANCE_RETURN_NOT_OK(MintLocked());
    return creds_;
  }
  Result<std::shared_ptr<const io::Credentials>> OnRejected(
      const io::Credentials&) override {
    rejected_calls.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    LANCE_RETURN_NOT_OK(MintLocked());
    return creds_;
  }
  std::string id() const override { return "counting-sas"; }
  std::string ToString() const override { return "CountingSasSource"; }

  std::atomic<int> current_calls{0};
  std::atomic<int> rejected_calls{0};

 private:
  Status MintLocked() {
    LANCE_ASSIGN_OR_RAISE(std::string sas, mint_());
    io::Credentials c;
    c.azure.sas_token = std::move(sas);
    creds_ = std::make_shared<const io::Credentials>(std::move(c));
    return Status::OK();
  }

  std::function<Result<std::string>()> mint_;
  std::mutex mu_;
  std::shared_ptr<const io::Credentials> creds_;
};

/// A test against the Azurite of the run: env_ set before the derived SetUp.
class AzureEnvTest : public EnvTest<AzureTestEnv> {};

/// An AzureEnvTest on a fresh container, container_: SetUp creates it through admin_, a
/// store with AdminOptions() (the account key by default); TearDown deletes it.
class AzureContainerTest : public AzureEnvTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(AzureEnvTest::SetUp());
    container_ = "t-" + UniqueAzureToken();
    ASSERT_OK_AND_ASSIGN(admin_, io::MakeAzureObjectStoreFromStorageOptions(
                                     "az", container_, AdminOptions()));
    ASSERT_OK(admin_->client()->CreateContainer());
  }
  void TearDown() override {
    if (admin_ != nullptr) EXPECT_OK(admin_->client()->DeleteContainer());
  }

  virtual io::StorageOptions AdminOptions() const { return env_.Options(); }

  std::string container_;
  std::shared_ptr<io::AzureObjectStore> admin_;
};

}  // namespace lance::testing
