// SPDX-License-Identifier: Apache-2.0
// The demo's credential-vending namespace: a DirectoryNamespace on an S3 root whose
// describe_table / declare_table answers carry a brand-new RGW access key (created with
// radosgw-admin, no session token) that expires a few seconds later and is revoked on the
// server soon after. This is what a real catalog service does with STS; here every key
// is a real, revocable key, so a client that kept using an old one would fail visibly.

#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lance/io/credentials.h"
#include "lance/macros.h"
#include "lance/namespace/namespace.h"
#include "lance/result.h"

namespace demo {

int64_t NowMillis();

/// \brief "K001…": how the demo shows a key id (never the secret).
std::string RedactKeyId(const std::string& access_key_id);

/// \brief radosgw-admin of one RGW (its ceph.conf) for one user.
class RgwKeyAdmin {
 public:
  RgwKeyAdmin(std::string ceph_conf, std::string uid);
  /// \brief A new S3 key of the user. \return the key; IOError (without the secret) if
  /// radosgw-admin fails.
  lance::Result<lance::io::s3::AwsCredentials> CreateKey();
  lance::Status RemoveKey(const std::string& access_key_id);

 private:
  lance::Status Run(std::vector<std::string> args, const std::string& secret,
                    const std::string& what);
  std::string conf_;
  std::string uid_;
  std::atomic<int> created_{0};
  std::mutex mu_;  // radosgw-admin rewrites the user's metadata: one change at a time
};

/// \brief Revokes keys at their deadline on a background thread; the rest when destroyed.
class KeyReaper {
 public:
  KeyReaper(RgwKeyAdmin* admin, std::function<void(const std::string&)> on_revoked);
  ~KeyReaper();
  void Schedule(const std::string& key_id, int64_t revoke_at_millis);
  int revoked() const { return revoked_.load(); }

 private:
  void Run();
  void Revoke(const std::string& key_id);
  RgwKeyAdmin* admin_;
  std::function<void(const std::string&)> on_revoked_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, int64_t> pending_;
  std::atomic<int> revoked_{0};
  bool stop_ = false;
  std::thread thread_;
};

/// \brief Wraps a namespace; counts its calls and vends a new key on each describe /
/// declare / create_empty answer, next to `connection` (the non-secret options a client
/// needs: endpoint, region; the inner namespace keeps its own options to itself).
class VendingNamespace final : public lance::ns::LanceNamespace {
 public:
  VendingNamespace(std::shared_ptr<lance::ns::LanceNamespace> inner,
                   lance::ns::Properties connection, RgwKeyAdmin* admin,
                   KeyReaper* reaper, std::chrono::milliseconds ttl,
                   std::chrono::milliseconds refresh_offset,
                   std::chrono::milliseconds revoke_grace);

  std::string namespace_id() const override { return inner_->namespace_id(); }
  lance::Result<lance::ns::DescribeTableResponse> DescribeTable(
      const lance::ns::DescribeTableRequest& r) override;
  lance::Result<lance::ns::DeclareTableResponse> DeclareTable(
      const lance::ns::DeclareTableRequest& r) override;
  lance::Result<lance::ns::CreateEmptyTableResponse> CreateEmptyTable(
      const lance::ns::CreateEmptyTableRequest& r) override;
  lance::Result<lance::ns::ListTablesResponse> ListTables(
      const lance::ns::ListTablesRequest& r) override {
    return inner_->ListTables(r);
  }
  lance::Status TableExists(const lance::ns::TableExistsRequest& r) override {
    return inner_->TableExists(r);
  }

  int describes() const { return describes_.load(); }
  int declares() const { return declares_.load(); }
  /// \brief "declare_table=1 describe_table=3".
  std::string Counts() const;
  /// \brief Every key vended, oldest first (with secrets: the demo uses the first one to
  /// show that a revoked key is refused; never print them).
  std::vector<lance::io::s3::AwsCredentials> vended() const;

 private:
  lance::Status Vend(const char* op, const lance::ns::Identifier& id,
                     std::optional<lance::ns::Properties>* options);
  /// \brief Counts the call, forwards it to the inner namespace and vends a fresh key
  /// into its answer: what every key-carrying operation does.
  template <typename Response, typename Request>
  lance::Result<Response> Vended(
      const char* op, std::atomic<int>* count,
      lance::Result<Response> (lance::ns::LanceNamespace::*call)(const Request&),
      const Request& r) {
    ++*count;
    LANCE_ASSIGN_OR_RAISE(auto response, ((*inner_).*call)(r));
    LANCE_RETURN_NOT_OK(Vend(op, r.id, &response.storage_options));
    return response;
  }

  std::shared_ptr<lance::ns::LanceNamespace> inner_;
  lance::ns::Properties connection_;
  RgwKeyAdmin* admin_;
  KeyReaper* reaper_;
  std::chrono::milliseconds ttl_, offset_, grace_;
  std::atomic<int> describes_{0}, declares_{0}, create_empties_{0};
  mutable std::mutex mu_;
  std::vector<lance::io::s3::AwsCredentials> vended_;
};

}  // namespace demo
