// SPDX-License-Identifier: Apache-2.0
// lance-demo --s3: vended, expiring credentials refreshed during reads and writes, on a
// real RGW (the Makefile's `demo` target starts one and exports LANCE_S3_* and
// LANCE_RGW_CONF). Every key is a real RGW key that dies on the server a second after it
// expires, so a read or write that used a stale key would fail, not pass silently.

#include "s3_demo.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/macros.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "vending_namespace.h"

namespace demo {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

lance::Status RequireRgwEnv(const char* extra) {
  for (const char* name :
       {"LANCE_S3_ENDPOINT", "LANCE_S3_BUCKET", "LANCE_S3_ACCESS_KEY", extra}) {
    if (Env(name).empty()) {
      return lance::Status::Invalid(
          std::string("LANCE_S3_ENDPOINT, LANCE_S3_BUCKET, LANCE_S3_ACCESS_KEY, "
                      "LANCE_S3_SECRET_KEY and ") +
          extra +
          " must be set: run `make demo` (it starts an RGW) or source the output of "
          "scripts/rgw.sh start");
    }
  }
  return lance::Status::OK();
}

lance::Result<lance::RecordBatchPtr> NamedRows(const std::string& prefix, int64_t first,
                                               int64_t n) {
  lance::Int64Builder ids;
  lance::StringBuilder names;
  for (int64_t i = first; i < first + n; ++i) {
    LANCE_RETURN_NOT_OK(ids.Append(i));
    LANCE_RETURN_NOT_OK(names.Append(prefix + "-" + std::to_string(i)));
  }
  auto schema = lance::schema(
      {lance::field("id", lance::int64(), false), lance::field("name", lance::utf8())});
  std::vector<lance::ArrayPtr> columns(2);
  LANCE_ASSIGN_OR_RAISE(columns[0], ids.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[1], names.Finish());
  return lance::RecordBatch::Make(schema, n, std::move(columns));
}

namespace {

using lance::Result;
using lance::Status;
using Millis = std::chrono::milliseconds;

// Keys live 6 s; clients refresh 1 s before expiry; the server revokes them 1 s after.
constexpr Millis kTtl{6'000};
constexpr Millis kRefreshOffset{1'000};
constexpr Millis kRevokeGrace{1'000};

std::mutex print_mu;

void Say(const char* format, const std::string& a = "", const std::string& b = "") {
  std::lock_guard lock(print_mu);
  std::printf(format, a.c_str(), b.c_str());
  std::fflush(stdout);
}

std::string Seconds(int64_t millis) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f s", static_cast<double>(millis) / 1000.0);
  return buf;
}

const char* TriggerName(lance::io::RefreshEvent::Trigger t) {
  switch (t) {
    case lance::io::RefreshEvent::Trigger::kBackground:
      return "background (inside the refresh window)";
    case lance::io::RefreshEvent::Trigger::kExpired:
      return "blocking (the key had expired)";
    case lance::io::RefreshEvent::Trigger::kRejected:
      return "forced (the server rejected the key)";
  }
  return "?";
}

void PrintRefresh(const lance::io::RefreshEvent& e) {
  std::lock_guard lock(print_mu);
  if (e.kind == lance::io::RefreshEvent::Kind::kSucceeded) {
    std::printf("  [refresh] %s refresh succeeded in %lld ms: %s, expires in %s\n",
                TriggerName(e.trigger), static_cast<long long>(e.latency.count()),
                e.credentials.c_str(),
                e.expires_at_millis ? Seconds(*e.expires_at_millis - NowMillis()).c_str()
                                    : "never");
  } else {
    std::printf("  [refresh] %s refresh FAILED: %s\n", TriggerName(e.trigger),
                e.error.ToString().c_str());
  }
  std::fflush(stdout);
}

Status Story() {
  LANCE_RETURN_NOT_OK(RequireRgwEnv("LANCE_RGW_CONF"));
  const std::string endpoint = Env("LANCE_S3_ENDPOINT");
  const std::string bucket = Env("LANCE_S3_BUCKET");
  const std::string conf = Env("LANCE_RGW_CONF");
  // The namespace's own I/O (its __manifest) uses the RGW user's long-lived key; the
  // tables' readers and writers get only vended keys.
  lance::io::StorageOptions connection = {
      {"endpoint", endpoint},
      {"region", Env("LANCE_S3_REGION").empty() ? "us-east-1" : Env("LANCE_S3_REGION")},
      {"allow_http", "true"}};
  const std::string root = "s3://" + bucket + "/demo-" + std::to_string(NowMillis());
  lance::ns::Properties props = {{"root", root}};
  for (const auto& [k, v] : connection) props["storage." + k] = v;
  props["storage.aws_access_key_id"] = Env("LANCE_S3_ACCESS_KEY");
  props["storage.aws_secret_access_key"] = Env("LANCE_S3_SECRET_KEY");
  LANCE_ASSIGN_OR_RAISE(auto dir, lance::ns::DirectoryNamespace::FromProperties(props));

  RgwKeyAdmin admin(conf, "test");
  KeyReaper reaper(&admin, [](const std::string& key) {
    Say("  [rgw] revoked key %s on the server\n", RedactKeyId(key));
  });
  lance::ns::Properties connection_props(connection.begin(), connection.end());
  auto ns = std::make_shared<VendingNamespace>(dir, connection_props, &admin, &reaper,
                                               kTtl, kRefreshOffset, kRevokeGrace);
  std::printf("RGW %s, namespace root %s\n", endpoint.c_str(), root.c_str());
  std::printf(
      "every describe_table / declare_table answer carries a NEW RGW key that "
      "expires %s later\n(refresh_offset_millis = %lld) and is revoked on the "
      "server %s after expiry.\n",
      Seconds(kTtl.count()).c_str(), static_cast<long long>(kRefreshOffset.count()),
      Seconds(kRevokeGrace.count()).c_str());

  lance::ns::NamespaceAccessOptions access_options;
  access_options.refresh.on_event = PrintRefresh;
  const lance::ns::Identifier table = {"demo", "events"};
  const int64_t start = NowMillis();
  auto elapsed = [&] { return "t=" + Seconds(NowMillis() - start); };

  // 1. Create through the namespace: one declare_table, then version 1 with its key.
  std::printf(
      "\n-- create demo$events through the namespace (declare_table, then write)\n");
  LANCE_ASSIGN_OR_RAISE(auto first, NamedRows("event", 0, 1000));
  auto reader = lance::RecordBatchReader::FromBatches(first->schema(), {first});
  lance::WriteParams create;
  create.mode = lance::WriteMode::kCreate;
  LANCE_ASSIGN_OR_RAISE(
      auto ds, lance::ns::WriteDataset(*reader, ns, table, create, access_options));
  std::printf("  %s wrote 1000 rows -> version %llu at %s\n", elapsed().c_str(),
              static_cast<unsigned long long>(ds->version()), ds->uri().c_str());

  // 2. Reads across an expiry with the dataset the write returned.
  std::printf(
      "\n-- read it every second for 9 s with the dataset the write returned\n"
      "   (no namespace call while the key is valid; one describe_table per "
      "expiry)\n");
  for (int i = 0; i < 9; ++i) {
    LANCE_ASSIGN_OR_RAISE(auto rows, ds->ToTable());
    Say("  %s read %s rows\n", elapsed(), std::to_string(rows->num_rows()));
    std::this_thread::sleep_for(Millis(1'000));
  }

  const std::string events_uri = ds->uri();
  // 3. The first key is dead on the server now: a client that kept it would fail.
  const auto first_key = ns->vended().front();
  std::printf("\n-- the first key, revoked, is refused by RGW:\n");
  {
    lance::OpenOptions stale;
    stale.access.storage_options = connection;
    stale.access.storage_options["aws_access_key_id"] = first_key.access_key_id;
    stale.access.storage_options["aws_secret_access_key"] = first_key.secret_access_key;
    stale.access.storage_options["client_max_retries"] = "0";
    auto opened = lance::Dataset::Open(events_uri, stale);
    std::string what = opened.ok() ? "opened?! (the key was not revoked yet)"
                                   : opened.status().ToString();
    std::printf("  open with key %s: %s\n", RedactKeyId(first_key.access_key_id).c_str(),
                what.c_str());
  }

  // Done with this handle: its refreshing source (and its store, shared by provider id)
  // goes with it, so the next open of demo$events starts from its own describe_table.
  ds.reset();

  // 4. Writes across an expiry, by a long-lived writer that holds one refreshing source
  //    for a second table: declare_table locates it and seeds the source (the library's
  //    building blocks under WriteDataset, used directly to show the source's stats).
  const lance::ns::Identifier metrics = {"demo", "metrics"};
  std::printf(
      "\n-- create demo$metrics, then append 3 times, 4 s apart, through one "
      "refreshing source\n");
  LANCE_ASSIGN_OR_RAISE(auto declared, ns->DeclareTable({.id = metrics}));
  LANCE_ASSIGN_OR_RAISE(auto access, lance::ns::MakeTableAccess(
                                         ns, metrics, declared.location.value_or(""),
                                         declared.storage_options, {}, access_options));
  auto source = std::dynamic_pointer_cast<lance::io::RefreshingCredentialsSource>(
      access.access.credentials);
  if (source == nullptr) return Status::Invalid("the namespace vended no credentials");
  for (int i = 0; i < 4; ++i) {
    if (i > 0) std::this_thread::sleep_for(Millis(4'000));
    LANCE_ASSIGN_OR_RAISE(auto batch, NamedRows("event", 1000 + 100 * i, 100));
    auto more = lance::RecordBatchReader::FromBatches(batch->schema(), {batch});
    lance::WriteParams write;
    write.mode = i == 0 ? lance::WriteMode::kCreate : lance::WriteMode::kAppend;
    // The resolved access: the table's options and its refreshing source.
    write.access = access.access;
    LANCE_ASSIGN_OR_RAISE(auto written,
                          lance::Dataset::Write(*more, access.location, write));
    Say("  %s wrote 100 rows -> version %s\n", elapsed(),
        std::to_string(written->version()));
  }
  const lance::io::RefreshStats stats = source->stats();
  std::printf("  source: %s\n", source->ToString().c_str());
  std::printf(
      "  stats: fetches=%lld background=%lld blocking=%lld forced=%lld failures=%lld "
      "failed_requests=%lld\n",
      static_cast<long long>(stats.fetches),
      static_cast<long long>(stats.background_refreshes),
      static_cast<long long>(stats.blocking_refreshes),
      static_cast<long long>(stats.forced_refreshes),
      static_cast<long long>(stats.failures),
      static_cast<long long>(stats.failed_requests));

  // 5. Open through the namespace (one describe_table), scan, versions.
  std::printf(
      "\n-- open both tables through the namespace (one describe_table each), "
      "scan, versions\n");
  LANCE_ASSIGN_OR_RAISE(auto latest,
                        lance::ns::OpenDataset(ns, table, {}, access_options));
  LANCE_ASSIGN_OR_RAISE(auto count, latest->CountRows());
  LANCE_ASSIGN_OR_RAISE(auto metrics_ds,
                        lance::ns::OpenDataset(ns, metrics, {}, access_options));
  LANCE_ASSIGN_OR_RAISE(auto metrics_rows, metrics_ds->CountRows());
  std::printf("  demo$metrics: version %llu, %lld rows\n",
              static_cast<unsigned long long>(metrics_ds->version()),
              static_cast<long long>(metrics_rows));
  lance::ScanOptions head;
  head.limit = 3;
  LANCE_ASSIGN_OR_RAISE(auto some, latest->ToTable(head));
  std::printf("  demo$events: version %llu, %lld rows\n%s",
              static_cast<unsigned long long>(latest->version()),
              static_cast<long long>(count), some->ToString().c_str());
  LANCE_ASSIGN_OR_RAISE(auto versions, metrics_ds->Versions());
  std::printf("  versions of demo$metrics:");
  for (const auto& v : versions)
    std::printf(" %llu", static_cast<unsigned long long>(v.version));
  std::printf("\n");
  LANCE_ASSIGN_OR_RAISE(auto listed, ns->ListTables({.id = {"demo"}}));
  std::printf("  tables in namespace demo:");
  for (const auto& t : listed.tables) std::printf(" %s", t.c_str());
  std::printf("\n");

  std::printf(
      "\nnamespace calls: %s; keys vended: %zu, revoked so far: %d "
      "(the rest are revoked now)\n",
      ns->Counts().c_str(), ns->vended().size(), reaper.revoked());
  return Status::OK();
}

}  // namespace

Status RunS3Demo() { return Story(); }

}  // namespace demo
