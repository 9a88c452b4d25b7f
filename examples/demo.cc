// SPDX-License-Identifier: Apache-2.0
// lance-demo: the main job of lance-cpp on the embedded default, through the public API
// only. `make demo` runs it.
//
//  1. builds a small table in memory and prints it;
//  2. writes it as a Lance dataset to memory:// and to a local folder, reads both back;
//  3. appends to the local dataset, reads the old and the new version, lists versions;
//  4. the same story through a Lance directory namespace on a local folder: tables are
//     addressed by id (["team", "people"]), created, appended to and opened through it.
//
// `lance-demo --s3` is the RGW part (s3_demo.cc): vended, expiring credentials.
// `lance-demo --azure` (azure_demo.cc): a namespace on Azurite vending SAS tokens.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/namespace.h"
#include "s3_demo.h"

namespace {

using lance::RecordBatch;
using lance::RecordBatchPtr;
using lance::Result;
using lance::Status;

Result<RecordBatchPtr> MakeBatch(int64_t first_id,
                                 const std::vector<std::string>& names) {
  auto schema = lance::schema({lance::field("id", lance::int64(), false),
                               lance::field("name", lance::utf8()),
                               lance::field("score", lance::float64()),
                               lance::field("tags", lance::list(lance::utf8()))});
  lance::Int64Builder ids;
  lance::StringBuilder name_builder;
  lance::DoubleBuilder scores;
  lance::ListBuilder tags(std::make_unique<lance::StringBuilder>());
  auto* tag_values = static_cast<lance::StringBuilder*>(tags.value_builder());
  for (size_t i = 0; i < names.size(); ++i) {
    int64_t id = first_id + static_cast<int64_t>(i);
    LANCE_RETURN_NOT_OK(ids.Append(id));
    LANCE_RETURN_NOT_OK(name_builder.Append(names[i]));
    // Every third score is missing, to show nulls.
    if (id % 3 == 2) {
      LANCE_RETURN_NOT_OK(scores.AppendNull());
    } else {
      LANCE_RETURN_NOT_OK(scores.Append(0.5 * static_cast<double>(id)));
    }
    LANCE_RETURN_NOT_OK(tags.Append());
    for (int64_t t = 0; t < id % 3; ++t) {
      LANCE_RETURN_NOT_OK(tag_values->Append("t" + std::to_string(t)));
    }
  }
  std::vector<lance::ArrayPtr> columns(4);
  LANCE_ASSIGN_OR_RAISE(columns[0], ids.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[1], name_builder.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[2], scores.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[3], tags.Finish());
  return RecordBatch::Make(schema, static_cast<int64_t>(names.size()),
                           std::move(columns));
}

Status WriteBatch(const RecordBatchPtr& batch, const std::string& uri,
                  lance::WriteMode mode) {
  auto reader = lance::RecordBatchReader::FromBatches(batch->schema(), {batch});
  lance::WriteParams params;
  params.mode = mode;
  LANCE_ASSIGN_OR_RAISE(auto ds, lance::Dataset::Write(*reader, uri, params));
  std::printf("  wrote %lld rows to %s -> version %llu\n",
              static_cast<long long>(batch->num_rows()), uri.c_str(),
              static_cast<unsigned long long>(ds->version()));
  return Status::OK();
}

Status PrintDataset(const std::string& uri, std::optional<uint64_t> version = {}) {
  lance::OpenOptions options;
  options.version = version;
  LANCE_ASSIGN_OR_RAISE(auto ds, lance::Dataset::Open(uri, options));
  LANCE_ASSIGN_OR_RAISE(auto rows, ds->CountRows());
  LANCE_ASSIGN_OR_RAISE(auto table, ds->ToTable());
  std::printf("\n%s @ version %llu (%lld rows, file format %s)\n", uri.c_str(),
              static_cast<unsigned long long>(ds->version()),
              static_cast<long long>(rows), ds->data_storage_version().c_str());
  std::printf("%s", table->ToString().c_str());
  return Status::OK();
}

// Part 4: a directory namespace (manifest layout, Lance's default) on a local folder.
Status NamespaceStory(const std::string& root) {
  std::printf("\n== 4. through a directory namespace on %s\n", root.c_str());
  LANCE_ASSIGN_OR_RAISE(auto ns, lance::ns::ConnectNamespace("dir", {{"root", root}}));
  std::printf("connected: %s\n", ns->namespace_id().c_str());
  LANCE_RETURN_NOT_OK(ns->CreateNamespace({.id = {"team"}}).status());
  const lance::ns::Identifier id = {"team", "people"};

  // Create: one declare_table reserves the id and its directory, the write makes v1.
  LANCE_ASSIGN_OR_RAISE(auto first, MakeBatch(0, {"ada", "grace", "edsger"}));
  auto reader = lance::RecordBatchReader::FromBatches(first->schema(), {first});
  lance::WriteParams create;
  create.mode = lance::WriteMode::kCreate;
  LANCE_ASSIGN_OR_RAISE(auto created, lance::ns::WriteDataset(*reader, ns, id, create));
  std::printf("  created team$people -> version %llu at %s\n",
              static_cast<unsigned long long>(created->version()),
              created->uri().c_str());

  // Append: one describe_table locates it.
  LANCE_ASSIGN_OR_RAISE(auto second, MakeBatch(3, {"barbara", "donald"}));
  auto more = lance::RecordBatchReader::FromBatches(second->schema(), {second});
  lance::WriteParams append;
  append.mode = lance::WriteMode::kAppend;
  LANCE_ASSIGN_OR_RAISE(auto appended, lance::ns::WriteDataset(*more, ns, id, append));
  std::printf("  appended 2 rows -> version %llu\n",
              static_cast<unsigned long long>(appended->version()));

  LANCE_ASSIGN_OR_RAISE(auto namespaces, ns->ListNamespaces({}));
  LANCE_ASSIGN_OR_RAISE(auto tables, ns->ListTables({.id = {"team"}}));
  std::printf("  namespaces:");
  for (const auto& n : namespaces.namespaces) std::printf(" %s", n.c_str());
  std::printf("; tables in team:");
  for (const auto& t : tables.tables) std::printf(" %s", t.c_str());
  std::printf("\n");

  // Open (one describe_table), scan, versions.
  LANCE_ASSIGN_OR_RAISE(auto ds, lance::ns::OpenDataset(ns, id));
  LANCE_ASSIGN_OR_RAISE(auto table, ds->ToTable());
  std::printf("\nteam$people @ version %llu\n%s",
              static_cast<unsigned long long>(ds->version()), table->ToString().c_str());
  LANCE_ASSIGN_OR_RAISE(auto versions, ds->Versions());
  std::printf("versions:");
  for (const auto& v : versions) {
    std::printf(" %llu", static_cast<unsigned long long>(v.version));
  }
  lance::OpenOptions v1;
  v1.version = 1;
  LANCE_ASSIGN_OR_RAISE(auto old, lance::ns::OpenDataset(ns, id, v1));
  LANCE_ASSIGN_OR_RAISE(auto old_rows, old->CountRows());
  std::printf("; version 1 has %lld rows\n", static_cast<long long>(old_rows));
  std::printf(
      "the same table from the command line:\n"
      "  lance-cpp scan --namespace dir --ns-prop root=%s --table-id team "
      "--table-id people\n",
      root.c_str());
  return Status::OK();
}

Status Run(const std::string& local_root) {
  std::printf("== 1. a table in memory\n");
  LANCE_ASSIGN_OR_RAISE(auto first, MakeBatch(0, {"ada", "grace", "edsger", "barbara"}));
  std::printf("%s", first->ToString().c_str());

  std::printf("\n== 2. written as Lance datasets (in memory and on local disk)\n");
  const std::string memory_uri = "memory://demo/people.lance";
  const std::string local_uri = local_root + "/people.lance";
  LANCE_RETURN_NOT_OK(WriteBatch(first, memory_uri, lance::WriteMode::kCreate));
  LANCE_RETURN_NOT_OK(WriteBatch(first, local_uri, lance::WriteMode::kCreate));
  LANCE_RETURN_NOT_OK(PrintDataset(memory_uri));
  LANCE_RETURN_NOT_OK(PrintDataset(local_uri));

  std::printf("\n== 3. append, then read the old and the new version\n");
  LANCE_ASSIGN_OR_RAISE(auto second, MakeBatch(4, {"donald", "frances"}));
  LANCE_RETURN_NOT_OK(WriteBatch(second, local_uri, lance::WriteMode::kAppend));
  LANCE_RETURN_NOT_OK(PrintDataset(local_uri, 1));
  LANCE_RETURN_NOT_OK(PrintDataset(local_uri));

  LANCE_ASSIGN_OR_RAISE(auto ds, lance::Dataset::Open(local_uri));
  LANCE_ASSIGN_OR_RAISE(auto versions, ds->Versions());
  std::printf("\nversions of %s:\n", local_uri.c_str());
  for (const auto& v : versions) {
    std::printf("  version %llu  committed at %lld ms\n",
                static_cast<unsigned long long>(v.version),
                static_cast<long long>(v.timestamp_ms));
  }
  LANCE_ASSIGN_OR_RAISE(auto filtered, ds->CountRows("score > 1.0"));
  std::printf("rows with score > 1.0: %lld\n", static_cast<long long>(filtered));
  LANCE_RETURN_NOT_OK(NamespaceStory(local_root + "/namespace"));

  std::printf(
      "\nThe local dataset stays in %s: open it with real Lance, e.g.\n"
      "  python -c \"import lance; print(lance.dataset('%s').to_table())\"\n",
      local_root.c_str(), local_uri.c_str());
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  // The RGW stories, one per flag; without one of them, the local story.
  static constexpr struct {
    const char* flag;
    Status (*run)();
  } kRgwStories[] = {{"--s3", demo::RunS3Demo},
                     {"--rest", demo::RunRestDemo},
                     {"--azure", demo::RunAzureDemo}};
  for (const auto& story : kRgwStories) {
    if (argc <= 1 || std::string(argv[1]) != story.flag) continue;
    Status st = story.run();
    if (!st.ok()) {
      std::fprintf(stderr, "lance-demo %s failed: %s\n", story.flag,
                   st.ToString().c_str());
      return 1;
    }
    return 0;
  }
  std::string root = argc > 1 ? argv[1] : "build/demo";
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  std::filesystem::create_directories(root, ec);
  root = std::filesystem::absolute(root).string();
  Status st = Run(root);
  if (!st.ok()) {
    std::fprintf(stderr, "lance-demo failed: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
