// SPDX-License-Identifier: Apache-2.0

#include "lance/namespace/storage_options_provider.h"

#include <utility>

#include "lance/core/logging.h"
#include "lance/io/refreshing_credentials.h"

namespace lance::ns {

namespace {

// ["a", "b"]: the id as Lance's Debug formatting of a Vec<String> prints it, so that
// provider ids read the same in both implementations' logs.
std::string QuotedList(const Identifier& id) {
  std::string out = "[";
  for (size_t i = 0; i < id.size(); ++i) {
    if (i > 0) out += ", ";
    out += '"';
    for (char c : id[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += "]";
  return out;
}

}  // namespace

LanceNamespaceStorageOptionsProvider::LanceNamespaceStorageOptionsProvider(
    std::shared_ptr<LanceNamespace> ns, Identifier table_id)
    : ns_(std::move(ns)), table_id_(std::move(table_id)) {
  // Computed once: provider_id() must be stable, and namespace_id() need not be cheap.
  provider_id_ = "LanceNamespaceStorageOptionsProvider { namespace: " +
                 (ns_ ? ns_->namespace_id() : std::string("<none>")) +
                 ", table_id: " + QuotedList(table_id_) + " }";
}

Result<std::shared_ptr<LanceNamespaceStorageOptionsProvider>>
LanceNamespaceStorageOptionsProvider::Make(std::shared_ptr<LanceNamespace> ns,
                                           Identifier table_id) {
  if (ns == nullptr) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "a namespace storage options provider needs a namespace");
  }
  if (table_id.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "a namespace storage options provider needs a table id (got an "
                          "empty one) for " +
                              ns->namespace_id());
  }
  return std::make_shared<LanceNamespaceStorageOptionsProvider>(std::move(ns),
                                                                std::move(table_id));
}

Result<std::optional<io::StorageOptions>>
LanceNamespaceStorageOptionsProvider::FetchStorageOptions() {
  if (ns_ == nullptr || table_id_.empty()) {
    return Status::Invalid("cannot fetch storage options: " + provider_id_ +
                           " has no namespace or no table id");
  }
  DescribeTableRequest request;
  request.id = table_id_;
  // Ask for vended credentials, as Lance's provider does: a vending namespace answers
  // with credentials scoped to this table.
  request.vend_credentials = true;
  Result<DescribeTableResponse> response = ns_->DescribeTable(request);
  if (!response.ok()) {
    LANCE_LOG(Warn, "namespace")
        << "describe_table of " << QuotedList(table_id_) << " for " << provider_id_
        << " failed: " << response.status().ToString();
    return response.status().WithContext(
        "fetching storage options with describe_table of " + QuotedList(table_id_) +
        " in " + ns_->namespace_id());
  }
  // Only the redacted key id of what was vended, never the map itself (it holds secrets).
  LANCE_LOG(Debug, "namespace") << [&] {
    std::string line =
        "describe_table of " + QuotedList(table_id_) + " for " + provider_id_;
    if (!response->storage_options.has_value()) return line + ": no storage options";
    Result<io::Credentials> creds =
        io::CredentialsFromStorageOptions(*response->storage_options);
    line +=
        ": " + std::to_string(response->storage_options->size()) + " storage options, ";
    line += !creds.ok()      ? "malformed credentials"
            : creds->empty() ? std::string("no credentials")
                             : creds->ToString();
    auto expires = io::ExpiresAtMillis(*response->storage_options);
    if (expires.ok() && expires->has_value()) {
      line += ", expires at " + io::FormatEpochMillis(**expires);
    }
    return line;
  }();
  return std::move(response->storage_options);
}

std::string LanceNamespaceStorageOptionsProvider::provider_id() const {
  return provider_id_;
}

}  // namespace lance::ns
