// SPDX-License-Identifier: Apache-2.0
// Dataset::CompactFiles: Lance's compaction (rust/lance/src/dataset/optimize.rs), planned
// the same way and committed as a `Rewrite` transaction whose groups map old fragments
// to the new ones (deleted rows are not copied, so deletions are materialised).
#include <algorithm>

#include "dataset/dataset_internal.h"
#include "dataset/fragment_reader.h"
#include "dataset/fragment_sink.h"
#include "lance/dataset/dataset.h"
#include "lance/format/file_writer.h"
#include "lance/macros.h"
#include "table/commit.h"
#include "table/ids.h"
#include "table/transaction.h"

namespace lance {

namespace ti = table_internal;
namespace pb = ti::pb;

namespace {

enum class Candidacy : uint8_t { kWithNeighbors, kItself };

struct Bin {
  std::vector<const pb::DataFragment*> fragments;
  std::vector<Candidacy> candidacy;
  std::vector<int64_t> live_rows;

  bool IsNoop() const {
    if (fragments.empty()) return true;
    return fragments.size() == 1 && candidacy[0] == Candidacy::kWithNeighbors;
  }
};

// Lance's split_for_size: walking the fragments, cut a bin once it holds `min_rows`
// live rows and what remains still holds at least that many (and is not empty).
std::vector<Bin> SplitForSize(Bin bin, int64_t min_rows) {
  int64_t remaining = 0;
  for (int64_t r : bin.live_rows) remaining += r;
  std::vector<Bin> out;
  Bin piece;
  int64_t rows = 0;
  for (size_t i = 0; i < bin.fragments.size(); ++i) {
    piece.fragments.push_back(bin.fragments[i]);
    piece.candidacy.push_back(bin.candidacy[i]);
    piece.live_rows.push_back(bin.live_rows[i]);
    rows += bin.live_rows[i];
    remaining -= bin.live_rows[i];
    if (rows >= min_rows && remaining > 0 && remaining >= min_rows) {
      out.push_back(std::move(piece));
      piece = Bin();
      rows = 0;
    }
  }
  if (!piece.fragments.empty()) out.push_back(std::move(piece));
  return out;
}

// Lance 14's output size: max(1, live / target) files sharing the rows evenly (the
// first ones one row more); the writer cuts files at the first file's size, so a bin
// slightly over the target stays one fragment instead of leaving a small tail.
int64_t RowsPerOutputFile(const Bin& bin, int64_t target) {
  int64_t live = 0;
  for (int64_t r : bin.live_rows) live += r;
  if (live == 0) return 1;
  const int64_t files = std::max<int64_t>(1, live / target);
  return live / files + (live % files != 0 ? 1 : 0);
}

Status CheckOptions(const CompactionOptions& o) {
  if (o.target_rows_per_fragment <= 0) {
    return Status::Invalid("target_rows_per_fragment must be positive, got ",
                           o.target_rows_per_fragment);
  }
  if (o.max_rows_per_group <= 0) {
    return Status::Invalid("max_rows_per_group must be positive, got ",
                           o.max_rows_per_group);
  }
  if (o.batch_size && *o.batch_size <= 0) {
    return Status::Invalid("batch_size must be positive, got ", *o.batch_size);
  }
  if (o.num_threads && *o.num_threads <= 0) {
    return Status::Invalid("num_threads must be positive, got ", *o.num_threads);
  }
  return Status::OK();
}

// Writes the live rows of `bin`'s fragments, in order, into new fragments of
// RowsPerOutputFile rows (ids unassigned).
Result<std::vector<pb::DataFragment>> RewriteBin(
    const std::shared_ptr<const DatasetImpl>& ds, const Bin& bin,
    const CompactionOptions& options, format::LanceFileVersion version) {
  ScanOptions scan;
  scan.batch_size = options.batch_size.value_or(8192);
  std::vector<uint64_t> ids;
  for (const auto* f : bin.fragments) ids.push_back(f->id());
  scan.fragment_ids = ids;
  LANCE_ASSIGN_OR_RAISE(auto reader, ti::MakeScanner(ds, scan, false));

  const int64_t rows_per_file = RowsPerOutputFile(bin, options.target_rows_per_fragment);
  ti::FragmentSink sink(ds->dir, ds->schema, version,
                        {rows_per_file, options.max_rows_per_group});
  auto write_all = [&]() -> Status {
    while (true) {
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->Next());
      if (!batch) break;
      LANCE_RETURN_NOT_OK(sink.Write(*batch));
    }
    return Status::OK();
  };
  Status st = write_all();
  if (!st.ok()) return st.WithContext("compacting fragments of " + ds->uri);
  return sink.Finish();
}

}  // namespace

Result<CompactionMetrics> Dataset::CompactFiles(const CompactionOptions& options) {
  LANCE_RETURN_NOT_OK(CheckOptions(options));
  const std::shared_ptr<DatasetImpl> ds = impl_;
  LANCE_ASSIGN_OR_RAISE(format::LanceFileVersion version,
                        format::ParseFileVersion(ds->data_storage_version));
  if (version == format::LanceFileVersion::kLegacy) {
    return Status::NotImplemented(
        "Compacting the dataset at ", ds->uri,
        " is not supported: its files are in the legacy format, "
        "which lance-cpp does not write");
  }
  const bool materialize =
      options.materialize_deletions && options.materialize_deletions_threshold < 1.0;

  // Plan: runs of adjacent candidates (by ascending id, as the manifest lists them).
  std::vector<Bin> bins;
  std::optional<Bin> current;
  for (const pb::DataFragment& frag : ds->proto().fragments()) {
    LANCE_ASSIGN_OR_RAISE(int64_t physical, ti::FragmentPhysicalRows(*ds, frag));
    LANCE_ASSIGN_OR_RAISE(int64_t live, ti::FragmentLiveRows(*ds, frag));
    const int64_t deleted = physical - live;
    const double fraction =
        physical > 0 ? static_cast<double>(deleted) / static_cast<double>(physical) : 0.0;
    std::optional<Candidacy> candidacy;
    if (materialize && fraction > options.materialize_deletions_threshold) {
      candidacy = Candidacy::kItself;
    } else if (physical < options.target_rows_per_fragment) {
      candidacy = Candidacy::kWithNeighbors;
    }
    if (!candidacy) {
      if (current) bins.push_back(std::move(*current));
      current.reset();
      continue;
    }
    if (!current) current.emplace();
    current->fragments.push_back(&frag);
    current->candidacy.push_back(*candidacy);
    current->live_rows.push_back(live);
  }
  if (current) bins.push_back(std::move(*current));

  CompactionMetrics metrics;
  pb::Transaction txn;
  txn.set_read_version(ds->proto().version());
  pb::Transaction::Rewrite* op = txn.mutable_rewrite();
  for (Bin& candidate : bins) {
    if (candidate.IsNoop()) continue;
    for (Bin& bin :
         SplitForSize(std::move(candidate), options.target_rows_per_fragment)) {
      LANCE_ASSIGN_OR_RAISE(auto fresh, RewriteBin(ds, bin, options, version));
      pb::Transaction::Rewrite::RewriteGroup* group = op->add_groups();
      for (const auto* f : bin.fragments) {
        *group->add_old_fragments() = *f;
        metrics.files_removed += f->files_size() + (f->has_deletion_file() ? 1 : 0);
      }
      metrics.fragments_removed += static_cast<int64_t>(bin.fragments.size());
      metrics.fragments_added += static_cast<int64_t>(fresh.size());
      for (auto& f : fresh) {
        metrics.files_added += f.files_size();
        *group->add_new_fragments() = std::move(f);
      }
    }
  }
  if (op->groups_size() == 0) return metrics;  // nothing to do: no new version

  ti::CommitOptions commit_options;
  // As Lance (without stable row ids): first a version that reserves the new fragments'
  // ids, so that the Rewrite names its fragments by their final ids (what index
  // remapping needs), then the Rewrite itself, still planned against the read version.
  int num_new = 0;
  for (const auto& group : op->groups()) num_new += group.new_fragments_size();
  pb::Transaction reserve;
  reserve.set_read_version(ds->proto().version());
  reserve.mutable_reserve_fragments()->set_num_fragments(static_cast<uint32_t>(num_new));
  LANCE_ASSIGN_OR_RAISE(
      ti::LoadedManifest reserved,
      ti::CommitTransaction(ds->dir, &ds->manifest, std::move(reserve), commit_options));
  uint64_t next_id = reserved.manifest.max_fragment_id() + 1 - num_new;
  for (auto& group : *op->mutable_groups()) {
    for (auto& f : *group.mutable_new_fragments()) f.set_id(next_id++);
  }
  LANCE_ASSIGN_OR_RAISE(
      ti::LoadedManifest committed,
      ti::CommitTransaction(ds->dir, &ds->manifest, std::move(txn), commit_options));
  LANCE_ASSIGN_OR_RAISE(
      impl_, ti::MakeDatasetImpl(ds->uri, ds->access, ds->dir, std::move(committed)));
  return metrics;
}

}  // namespace lance
