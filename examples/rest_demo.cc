// SPDX-License-Identifier: Apache-2.0
// lance-demo --rest: a served namespace vending scoped credentials, on a real RGW (the
// Makefile's `demo` target starts one and exports LANCE_S3_*).
//
// A DirectoryNamespace on an s3:// root with credential vending on (STS AssumeRole with a
// session policy per table) is served over the Lance REST namespace routes; a
// RestNamespace client creates two tables through it and reads them back with the
// credentials the server vended. The credentials of one table are then shown to be
// refused by RGW on the other table's prefix. Public API only; no secret is printed.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/logging.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/storage_options.h"
#include "lance/macros.h"
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

// The vended options of a describe, printed without secrets.
void PrintVended(const lance::ns::Properties& options) {
  for (const auto& [key, value] : options) {
    std::printf("    %-24s %s\n", key.c_str(),
                lance::io::RedactOptionValue(key, value).c_str());
  }
}

Status Story() {
  LANCE_RETURN_NOT_OK(RequireRgwEnv("LANCE_S3_STS_ROLE_ARN"));
  const std::string endpoint = Env("LANCE_S3_ENDPOINT");
  const std::string bucket = Env("LANCE_S3_BUCKET");
  const std::string role = Env("LANCE_S3_STS_ROLE_ARN");
  const std::string region =
      Env("LANCE_S3_REGION").empty() ? "us-east-1" : Env("LANCE_S3_REGION");
  const std::string root = "s3://" + bucket + "/demo-rest-" + std::to_string(NowMillis());

  // The server side: the namespace keeps the long-lived key for itself (its __manifest)
  // and hands clients only STS credentials scoped to one table.
  lance::ns::Properties props = {
      {"root", root},
      {"storage.aws_endpoint", endpoint},
      {"storage.aws_region", region},
      {"storage.allow_http", "true"},
      {"storage.aws_access_key_id", Env("LANCE_S3_ACCESS_KEY")},
      {"storage.aws_secret_access_key", Env("LANCE_S3_SECRET_KEY")},
      {"credential_vendor.enabled", "true"},
      {"credential_vendor.permission", "write"},
      {"credential_vendor.aws_role_arn", role},
      {"credential_vendor.aws_region", region},
  };
  LANCE_ASSIGN_OR_RAISE(auto dir, lance::ns::DirectoryNamespace::FromProperties(props));
  lance::server::RestAdapterOptions server_options;
  server_options.port = 0;
  LANCE_ASSIGN_OR_RAISE(auto server,
                        lance::server::RestAdapter::Make(dir, server_options));
  LANCE_RETURN_NOT_OK(server->Start());
  const std::string uri = "http://127.0.0.1:" + std::to_string(server->port());
  std::printf("serving %s on %s (credential vending: STS AssumeRole, %s)\n",
              dir->namespace_id().c_str(), uri.c_str(), role.c_str());

  // The client side: only the server's URI; every credential comes from the server.
  LANCE_ASSIGN_OR_RAISE(auto client,
                        lance::ns::RestNamespace::FromProperties({{"uri", uri}}));
  LANCE_RETURN_NOT_OK(client->CreateNamespace({.id = {"demo"}}).status());
  std::vector<std::string> locations;
  for (const std::string name : {"orders", "customers"}) {
    LANCE_ASSIGN_OR_RAISE(auto batch, NamedRows(name, 0, 100));
    auto reader = lance::RecordBatchReader::FromBatches(batch->schema(), {batch});
    lance::WriteParams create;
    create.mode = lance::WriteMode::kCreate;
    LANCE_ASSIGN_OR_RAISE(
        auto ds, lance::ns::WriteDataset(*reader, client, {"demo", name}, create));
    std::printf(
        "client: created demo$%s through the REST namespace -> version %llu at %s\n",
        name.c_str(), static_cast<unsigned long long>(ds->version()), ds->uri().c_str());
    locations.push_back(ds->uri());
  }

  lance::ns::DescribeTableRequest describe{.id = {"demo", "orders"}};
  describe.vend_credentials = true;
  LANCE_ASSIGN_OR_RAISE(auto described, client->DescribeTable(describe));
  const auto vended = described.storage_options.value_or(lance::ns::Properties{});
  std::printf("\ndescribe_table demo$orders vended (secrets redacted):\n");
  PrintVended(vended);

  LANCE_ASSIGN_OR_RAISE(auto opened, lance::ns::OpenDataset(client, {"demo", "orders"}));
  LANCE_ASSIGN_OR_RAISE(auto rows, opened->CountRows());
  std::printf("\nclient: opened demo$orders with them: %lld rows\n",
              static_cast<long long>(rows));

  // Scope: the orders credentials, used directly, on both tables' prefixes.
  std::printf("\nthe demo$orders credentials used directly (no namespace):\n");
  // The refusal is the point here: keep the library's warning about it off the screen.
  const lance::LogLevel previous_level = lance::SetLogLevel(lance::LogLevel::kError);
  for (size_t i = 0; i < locations.size(); ++i) {
    lance::OpenOptions direct;
    direct.access.storage_options = vended;
    direct.access.storage_options["client_max_retries"] = "0";
    auto ds = lance::Dataset::Open(locations[i], direct);
    std::printf("  open %s: %s\n", locations[i].c_str(),
                ds.ok() ? "ok" : ("refused by RGW: " + ds.status().ToString()).c_str());
  }
  lance::SetLogLevel(previous_level);

  std::printf("\nserver-side calls:");
  for (const auto& [op, n] : server->ops_metrics()) {
    std::printf(" %s=%lld", op.c_str(), static_cast<long long>(n));
  }
  std::printf("\n");
  server->Stop();
  return Status::OK();
}

}  // namespace

Status RunRestDemo() { return Story(); }

}  // namespace demo
