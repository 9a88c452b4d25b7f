// SPDX-License-Identifier: Apache-2.0
// lance-demo --azure: a namespace on Azure Blob Storage vending SAS tokens, on a real
// Azurite (the Makefile's `demo` target starts a throw-away one and exports
// LANCE_AZURE_*).
//
// A DirectoryNamespace on an az:// root keeps the account key for itself and, with
// credential vending on, answers every describe/declare with a service SAS signed with
// that key (never the key). It is served over the Lance REST namespace routes; a
// RestNamespace client that knows only the server's URI creates a table, appends to it
// and reads it back with the vended SAS. The vended options are printed redacted, with
// the scope the SAS reaches (lance_cpp_vended_scope); the bare vended options then
// open the table directly, and a read-only server's SAS is refused a write by Azurite.
// Public API only; no secret is printed.

#include <cstdio>
#include <memory>
#include <string>

#include "lance/core/logging.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/rest_namespace.h"
#include "lance/server/rest_adapter.h"
#include "s3_demo.h"
#include "vending_namespace.h"

namespace demo {

namespace {

using lance::Result;
using lance::Status;

struct Served {
  std::shared_ptr<lance::ns::DirectoryNamespace> dir;
  std::unique_ptr<lance::server::RestAdapter> server;
  std::shared_ptr<lance::ns::RestNamespace> client;
};

// A DirectoryNamespace on `root` vending SAS tokens with `permission`, served on a free
// port, and a RestNamespace client of it.
Result<Served> Serve(const std::string& root, const std::string& permission) {
  lance::ns::Properties props = {
      {"root", root},
      {"storage.azure_storage_account_name", Env("LANCE_AZURE_ACCOUNT")},
      {"storage.azure_storage_account_key", Env("LANCE_AZURE_KEY")},
      {"storage.azure_storage_endpoint", Env("LANCE_AZURE_ENDPOINT")},
      {"storage.allow_http", "true"},
      {"credential_vendor.enabled", "true"},
      {"credential_vendor.permission", permission},
  };
  Served out;
  LANCE_ASSIGN_OR_RAISE(out.dir, lance::ns::DirectoryNamespace::FromProperties(props));
  lance::server::RestAdapterOptions options;
  options.port = 0;
  LANCE_ASSIGN_OR_RAISE(out.server, lance::server::RestAdapter::Make(out.dir, options));
  LANCE_RETURN_NOT_OK(out.server->Start());
  const std::string uri = "http://127.0.0.1:" + std::to_string(out.server->port());
  LANCE_ASSIGN_OR_RAISE(out.client,
                        lance::ns::RestNamespace::FromProperties({{"uri", uri}}));
  std::printf("serving %s on %s (credential vending: Azure service SAS, permission %s)\n",
              out.dir->namespace_id().c_str(), uri.c_str(), permission.c_str());
  return out;
}

Status Write(const std::shared_ptr<lance::ns::RestNamespace>& client,
             const std::vector<std::string>& id, int64_t first, int64_t n,
             lance::WriteMode mode) {
  LANCE_ASSIGN_OR_RAISE(auto batch, NamedRows("order", first, n));
  auto reader = lance::RecordBatchReader::FromBatches(batch->schema(), {batch});
  lance::WriteParams params;
  params.mode = mode;
  LANCE_ASSIGN_OR_RAISE(auto ds, lance::ns::WriteDataset(*reader, client, id, params));
  std::printf("client: %s %lld rows -> version %llu at %s\n",
              mode == lance::WriteMode::kCreate ? "created the table with" : "appended",
              static_cast<long long>(n), static_cast<unsigned long long>(ds->version()),
              ds->uri().c_str());
  return Status::OK();
}

Status Story() {
  for (const char* name : {"LANCE_AZURE_ENDPOINT", "LANCE_AZURE_ACCOUNT",
                           "LANCE_AZURE_KEY", "LANCE_AZURE_CONTAINER"}) {
    if (Env(name).empty()) {
      return Status::Invalid(
          "LANCE_AZURE_ENDPOINT, LANCE_AZURE_ACCOUNT, LANCE_AZURE_KEY and "
          "LANCE_AZURE_CONTAINER must be set: run `make demo` (it starts an Azurite) or "
          "source the output of scripts/azurite.sh start");
    }
  }
  // The vendor's note that Azurite's flat accounts cannot scope a SAS to a directory is
  // shown below as the vended scope; keep the warning itself off the screen.
  const lance::LogLevel previous_level = lance::SetLogLevel(lance::LogLevel::kError);
  const std::string root = "az://" + Env("LANCE_AZURE_CONTAINER") + "/demo-azure-" +
                           std::to_string(NowMillis());
  const std::vector<std::string> id = {"sales", "orders"};

  LANCE_ASSIGN_OR_RAISE(Served served, Serve(root, "write"));
  LANCE_RETURN_NOT_OK(served.client->CreateNamespace({.id = {"sales"}}).status());
  LANCE_RETURN_NOT_OK(Write(served.client, id, 0, 100, lance::WriteMode::kCreate));
  LANCE_RETURN_NOT_OK(Write(served.client, id, 100, 20, lance::WriteMode::kAppend));

  lance::ns::DescribeTableRequest describe{.id = id};
  describe.vend_credentials = true;
  LANCE_ASSIGN_OR_RAISE(auto described, served.client->DescribeTable(describe));
  const auto vended = described.storage_options.value_or(lance::ns::Properties{});
  std::printf("\ndescribe_table sales$orders vended (secrets redacted):\n");
  for (const auto& [key, value] : vended) {
    std::printf("    %-28s %s\n", key.c_str(),
                lance::io::RedactOptionValue(key, value).c_str());
  }
  auto scope = vended.find(std::string(lance::ns::kVendedScopeKey));
  std::printf(
      "vended scope: %s%s\n",
      scope == vended.end() ? "(none said)" : scope->second.c_str(),
      scope != vended.end() && scope->second.rfind("container:", 0) == 0
          ? " (Azurite's accounts have no hierarchical namespace: the SAS reaches "
            "the container, not just the table's directory)"
          : "");

  LANCE_ASSIGN_OR_RAISE(auto opened, lance::ns::OpenDataset(served.client, id));
  LANCE_ASSIGN_OR_RAISE(auto rows, opened->CountRows());
  std::printf(
      "\nclient: opened sales$orders through the namespace: version %llu, %lld rows\n",
      static_cast<unsigned long long>(opened->version()), static_cast<long long>(rows));

  // The vended options alone (no account key anywhere) open the table at its location.
  const std::string location = described.location.value_or(opened->uri());
  lance::OpenOptions direct;
  direct.access.storage_options = vended;
  LANCE_ASSIGN_OR_RAISE(auto alone, lance::Dataset::Open(location, direct));
  LANCE_ASSIGN_OR_RAISE(auto alone_rows, alone->CountRows());
  std::printf("the vended SAS alone (no key) opens %s: %lld rows\n", location.c_str(),
              static_cast<long long>(alone_rows));
  served.server->Stop();

  // A read-only server: its SAS reads, and Azurite refuses it a write.
  std::printf("\n");
  LANCE_ASSIGN_OR_RAISE(Served reader, Serve(root, "read"));
  LANCE_ASSIGN_OR_RAISE(auto read_only, reader.client->DescribeTable(describe));
  lance::OpenOptions ro;
  ro.access.storage_options = read_only.storage_options.value_or(lance::ns::Properties{});
  ro.access.storage_options["client_max_retries"] = "0";
  LANCE_ASSIGN_OR_RAISE(auto ro_ds, lance::Dataset::Open(location, ro));
  LANCE_ASSIGN_OR_RAISE(auto ro_rows, ro_ds->CountRows());
  LANCE_ASSIGN_OR_RAISE(auto batch, NamedRows("order", 500, 1));
  auto more = lance::RecordBatchReader::FromBatches(batch->schema(), {batch});
  lance::WriteParams append;
  append.mode = lance::WriteMode::kAppend;
  append.access = ro.access;
  auto written = lance::Dataset::Write(*more, location, append);
  std::printf(
      "read-only SAS: reads %lld rows; append %s\n", static_cast<long long>(ro_rows),
      written.ok() ? "SUCCEEDED (unexpected)"
                   : ("refused by Azurite: " + written.status().ToString()).c_str());
  reader.server->Stop();
  lance::SetLogLevel(previous_level);
  if (written.ok()) return Status::Invalid("a read-only SAS was allowed to write");
  return Status::OK();
}

}  // namespace

Status RunAzureDemo() { return Story(); }

}  // namespace demo
