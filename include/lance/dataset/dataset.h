// SPDX-License-Identifier: Apache-2.0
/// \file dataset.h
/// \brief Dataset: open, scan, count, write, append, overwrite, delete, versions, and the
/// distributed-write pair WriteFragments + Commit -- pylance's API in C++.
///
/// Datasets are read and written in Lance's on-disk format (docs/commit-protocol.md):
/// real Lance opens what we write and we open what it writes. New datasets get file
/// format 2.2 unless asked otherwise (2.0, 2.1); appends keep the dataset's format;
/// datasets of legacy (0.1) files are read, not written.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/dataset/fragment.h"
#include "lance/dataset/maintenance.h"
#include "lance/dataset/mutation.h"
#include "lance/dataset/statistics.h"
#include "lance/io/storage_access.h"
#include "lance/result.h"

namespace lance {

enum class WriteMode : uint8_t { kCreate, kAppend, kOverwrite };

/// \brief "create" / "append" / "overwrite".
/// \return the mode; Invalid for any other text.
Result<WriteMode> ParseWriteMode(const std::string& text);

struct WriteParams {
  WriteMode mode = WriteMode::kCreate;
  /// \brief Rows per data file (and so per fragment) before a new one starts.
  int64_t max_rows_per_file = 1024 * 1024;
  /// \brief Rows per row group (write batch size).
  int64_t max_rows_per_group = 1024;
  /// \brief File format for new datasets: "2.0", "2.1", "2.2" or "stable" (= 2.2, as
  /// in pylance 14); the default is what pylance 14 writes. "legacy" / "0.1" and
  /// "next" / "2.3" are refused (NotImplemented), other spellings are Invalid ("Unknown
  /// Lance storage version"), for appends too. Appends keep the dataset's own format
  /// whatever is asked; appending to a legacy dataset is NotImplemented.
  std::string data_storage_version = "2.2";
  /// \brief Manifest naming for new datasets (Lance 8 default: V2 names). Existing
  /// datasets keep theirs.
  bool enable_v2_manifest_paths = true;
  /// \brief Object store options (Lance's keys) and, optionally, a
  /// StorageOptionsProvider refreshing their credentials (or a credentials source).
  io::StorageAccess access;
  /// \brief Commit attempts when racing writers (Lance: 20).
  int commit_retries = 20;
};

struct OpenOptions {
  /// \brief A version to open; latest when absent.
  std::optional<uint64_t> version;
  /// \brief Object store options (Lance's keys) and, optionally, a
  /// StorageOptionsProvider refreshing their credentials (or a credentials source).
  io::StorageAccess access;
};

struct ScanOptions {
  /// \brief Columns to read, in order; empty means all. "_rowid" (when the dataset has
  /// no such column) selects the row id column at that position. A name that is not a
  /// top-level column may be a dotted path to a struct's field ("s.a", "s.c.d";
  /// `backticks` quote a segment holding a dot): as in pylance it comes out as a
  /// top-level column named by the path, nullable if the field or a struct above it is,
  /// null where a struct above it is null. Lists and maps cannot be entered.
  std::vector<std::string> columns;
  /// \brief Output columns given as (name, expression) pairs, in order, as pylance's
  /// `to_table(columns={"out": "lower(s)", "x": "x"})`; when non-empty it replaces
  /// `columns` (which must then be empty). An expression that is a column name (or a
  /// struct field's dotted path, or "_rowid") outputs that column under the new name,
  /// as `columns` would; any other is a value expression of the filter language
  /// (docs/filters.md: arithmetic, CAST, CASE, functions ...) computed on the rows the
  /// filter keeps, in a nullable column of the expression's type.
  std::vector<std::pair<std::string, std::string>> projections;
  /// \brief SQL-like predicate ("x > 10 AND s IS NOT NULL"); empty means none.
  std::string filter;
  int64_t batch_size = 8192;
  std::optional<int64_t> limit;
  int64_t offset = 0;
  /// \brief Appends a `_rowid: uint64` column: (fragment id << 32) | row offset within
  /// the fragment, as Lance's row addresses (no stable row ids). Declared nullable, as
  /// pylance and Lance 8 declare it, though it never holds a null. It comes last even
  /// when `columns` names "_rowid" elsewhere, as in pylance.
  bool with_row_id = false;
  /// \brief Only these fragments (by id, in this order), as pylance's
  /// `scanner(fragments=...)`; absent means every fragment in manifest order.
  std::optional<std::vector<uint64_t>> fragment_ids;
  /// \brief Fragments read at once (pylance's `fragment_readahead`): each is decoded by
  /// tasks on the I/O executor (io::Executor::Default()) while earlier ones are consumed.
  /// A scan with a limit or an offset reads one fragment ahead.
  int fragment_readahead = 4;
  /// \brief Batches one read-ahead task decodes (and filters) before handing them over
  /// (pylance's `batch_readahead` plays the same role); with fragment_readahead it bounds
  /// the memory of a scan to about fragment_readahead x batch_readahead x batch_size
  /// rows.
  int batch_readahead = 4;
};

struct TakeOptions {
  /// \brief Columns to read, in order of first mention; empty means all. "_rowid" (when
  /// the dataset has no such column) selects the row address column at that position.
  /// Dotted paths ("s.a", and into lists by their item field: "l.item.x") select
  /// nested fields as in pylance's take: the top-level column comes out pruned to the
  /// requested fields (`s: struct<a>`), whole if it is also requested whole; Take keeps
  /// the schema's order of struct fields, TakeFromFragment the order of the request (as
  /// LanceDataset.take and LanceFragment.take do). A column named twice is taken once.
  std::vector<std::string> columns;
  /// \brief Appends the `_rowid` column (see ScanOptions::with_row_id).
  bool with_row_id = false;
};

struct VersionInfo {
  uint64_t version = 0;
  /// \brief Commit time, milliseconds since the epoch.
  int64_t timestamp_ms = 0;
  std::map<std::string, std::string> metadata;
};

/// \brief The operations a distributed write can commit.
struct OverwriteOp {
  SchemaPtr schema;
  std::vector<FragmentMetadata> fragments;
};
struct AppendOp {
  std::vector<FragmentMetadata> fragments;
};
/// \brief Lance's `Operation::Delete`: rows of existing fragments marked deleted (a new
/// deletion file) and fragments removed whole. Nothing is evaluated at commit: the
/// caller has written the deletion files (under `_deletions/`) and chosen the fragments.
struct DeleteOp {
  /// \brief Fragments of the read version whose deletion file changes, by id. Only `id`
  /// and `deletion_file` are used (absent: the fragment loses its deletion file); the
  /// rest of the fragment is kept as the committed version has it.
  std::vector<FragmentMetadata> updated_fragments;
  /// \brief Ids of fragments of the read version to remove from the dataset (their files
  /// stay on disk until cleaned up, as in Lance).
  std::vector<uint64_t> deleted_fragment_ids;
  /// \brief The predicate that selected the rows; recorded in the transaction (readers
  /// such as Lance's conflict resolver show it), never evaluated here.
  std::string predicate;
};
using Operation = std::variant<OverwriteOp, AppendOp, DeleteOp>;

class DatasetImpl;
struct DatasetImplAccess;

/// \brief One version of a Lance dataset.
///
/// Reads (Scan, CountRows, ...) are thread-safe and always see this object's version.
/// Delete commits a new version and moves this object to it (as pylance's
/// `LanceDataset.delete`); do not call it concurrently with other methods.
class Dataset {
 public:
  /// \brief Opens the latest (or a given) version at `uri` (a path, file://, memory://
  /// or another scheme the object store registry knows). Reads one manifest; no data
  /// file is opened.
  /// \return NotFound if there is no dataset (or no such version); Corrupt naming the
  /// manifest; NotImplemented for feature flags we cannot honour (stable row ids, base
  /// paths, unknown flags); IOError.
  static Result<std::shared_ptr<Dataset>> Open(const std::string& uri,
                                               OpenOptions options = {});

  /// \brief Writes `data` as a new dataset, or appends to / overwrites one.
  ///
  /// Append to a missing dataset creates it (as Lance). Append matches columns by name
  /// and keeps the dataset's schema, field ids, data storage version and manifest
  /// naming; Overwrite replaces the schema and all fragments. Every data file (one per
  /// fragment) holds at most max_rows_per_file rows.
  /// \return the dataset at the committed version; AlreadyExists for create on an
  /// existing dataset; Invalid for a schema mismatch on append (missing or extra
  /// columns, other types, nulls in a non-nullable column) or bad parameters;
  /// NotImplemented for storage versions we cannot write; Conflict if a concurrent
  /// commit cannot be rebased over.
  static Result<std::shared_ptr<Dataset>> Write(RecordBatchReader& data,
                                                const std::string& uri,
                                                WriteParams params = {});

  /// \brief Commits fragments written by WriteFragments (possibly on other machines,
  /// possibly by pylance's `write_fragments`), as pylance's `LanceDataset.commit`.
  /// `read_version` is the version the operation was planned against (required for
  /// Append; for Overwrite absent means "whatever is latest", or creates the dataset).
  /// Fragment ids are assigned here. A Delete names fragments of `read_version`
  /// (required) and is rebased over concurrent commits that did not touch them, as
  /// Dataset::Delete is. `access`: as WriteParams::access.
  /// \return the dataset at the committed version; Invalid (no read_version for
  /// Append or Delete, no schema for Overwrite, fragments naming unknown field ids, a
  /// Delete naming a fragment twice or one `read_version` lacks); NotFound (Append or
  /// Delete on a missing dataset or version); Conflict.
  static Result<std::shared_ptr<Dataset>> Commit(
      const std::string& uri, const Operation& op,
      std::optional<uint64_t> read_version = {}, const io::StorageAccess& access = {});

  /// \brief The URI the dataset was opened or written with.
  const std::string& uri() const;
  /// \brief The storage access the dataset was opened or written with, resolved (a
  /// provider's refreshing source built: io::ResolveStorageAccess). Pass it to reach the
  /// same dataset the same way, e.g. WriteParams::access for an append that shares this
  /// handle's store and credentials.
  const io::StorageAccess& storage_access() const;
  /// \brief The refresh counters of this dataset's credentials source when it was opened
  /// or written with a storage options provider (the source is shared by every handle
  /// on the same provider id, so the counters are those of the provider's live source,
  /// not of this handle alone); nullopt without a provider or with a caller's own
  /// non-refreshing source. Process-wide counters: io::CredentialRefreshStats().
  std::optional<io::ProviderRefreshStats> credential_stats() const;
  /// \brief The version this object reads.
  uint64_t version() const;
  /// \brief The newest committed version (lists the store).
  /// \return NotFound if the dataset disappeared; Corrupt; IOError.
  Result<uint64_t> LatestVersion() const;
  SchemaPtr schema() const;
  /// \brief The fragments of this version, by ascending id.
  const std::vector<FragmentMetadata>& fragments() const;
  /// \brief "0.1" (legacy), "2.0", "2.1" or "2.2": the manifest's data_format version
  /// (single files of another version may exist when the mixed-versions flag is set).
  std::string data_storage_version() const;

  /// \brief Live rows (deleted rows excluded), optionally only those matching `filter`.
  /// Without a filter the manifest's counts suffice.
  /// \return Invalid for a bad filter; Corrupt / NotFound naming a damaged or missing
  /// file; NotImplemented for files the format layer cannot read (filters only).
  Result<int64_t> CountRows(const std::string& filter = "") const;
  /// \brief Streams the rows fragment by fragment (memory bounded by the batch size):
  /// projection, filter (its columns are read and dropped), deleted rows removed,
  /// offset/limit applied after the filter. The first fragment is opened here so that
  /// unreadable files are reported by Scan itself.
  /// \return Invalid for unknown or repeated columns, a bad filter or bad sizes;
  /// NotImplemented naming a data file the format layer cannot read (v2.1 for now);
  /// Corrupt / NotFound naming a damaged or missing file.
  Result<RecordBatchReaderPtr> Scan(const ScanOptions& options = {}) const;
  /// \brief Scan() drained into a table. \return as Scan and its batches.
  Result<TablePtr> ToTable(const ScanOptions& options = {}) const;
  /// \brief The rows at `indices` -- positions among the live rows, in scan order, as
  /// pylance's `LanceDataset.take` -- in the order given (repeats allowed).
  ///
  /// Reads only what holds the rows: per data file, the mini-block chunks or full-zip
  /// values (2.1, 2.2), the pages (2.0) or batches (legacy) of those rows.
  /// \return Invalid for an index outside [0, CountRows()) or unknown columns; errors
  /// of the reads, naming the data file.
  Result<TablePtr> Take(const std::vector<int64_t>& indices,
                        const TakeOptions& options = {}) const;
  /// \brief The rows at `indices` -- positions among the live rows of fragment
  /// `fragment_id` -- as pylance's `LanceFragment.take`.
  /// \return NotFound for an unknown fragment; as Take.
  Result<TablePtr> TakeFromFragment(uint64_t fragment_id,
                                    const std::vector<int64_t>& indices,
                                    const TakeOptions& options = {}) const;
  /// \brief Every committed version, ascending, with its commit time and pylance's
  /// summary keys in `metadata` (total_rows, total_fragments, total_data_files, ...).
  /// \return Corrupt naming a damaged manifest; IOError.
  Result<std::vector<VersionInfo>> Versions() const;
  /// \brief Another version of the same dataset. \return NotFound; Corrupt.
  Result<std::shared_ptr<Dataset>> CheckoutVersion(uint64_t version) const;

  /// \brief Deletes the rows matching `predicate`, committing a new version (even when
  /// nothing matches, as Lance): deletion files (.arrow up to 5000 deleted rows of a
  /// fragment, .bin above) merged with existing ones; fully deleted fragments are
  /// dropped. On success this object moves to the new version.
  /// \return Invalid for a bad predicate; Conflict if a concurrent commit touched the
  /// same fragments (this object then stays at its version) -- retryable() when the
  /// delete planned again on the latest version may succeed (Lance's retryable
  /// conflicts, which pylance's `delete(conflict_retries=...)` retries), not when the
  /// dataset was overwritten or restored meanwhile; errors of the reads.
  Status Delete(const std::string& predicate);

  // ==== Mutations (issue 12): Update, MergeInsert, AddColumns, DropColumns,
  // AlterColumns. Implemented in src/dataset/update.cc, merge_insert.cc,
  // schema_evolution.cc; option and result types in lance/dataset/mutation.h.
  // (Keep this block's declarations between its two ==== lines.)

  /// \brief `UPDATE t SET col = expr, ... WHERE where` (pylance's `update`): each
  /// expression (the filter language plus functions, see docs/mutations.md) is computed
  /// on the old row and stored in the column's type. Only fragments holding matched
  /// rows are touched: those rows are marked deleted and rewritten into new fragments
  /// (Lance's `Update` operation). Commits a version even when nothing matches, and
  /// moves this object to it. Retryable conflicts are retried (options.retry).
  /// \return the count; Invalid for an unknown column, a bad expression or where
  /// clause, a value that does not fit the column; Conflict; errors of the reads.
  Result<UpdateResult> Update(
      const std::vector<std::pair<std::string, std::string>>& updates,
      const std::string& where = "", const UpdateOptions& options = {});

  /// \brief A merge-insert (upsert) on the key columns `on` (pylance's `merge_insert`).
  /// The builder keeps a pointer to this object, which must outlive it; Execute moves
  /// this object to the committed version.
  MergeInsertBuilder MergeInsert(std::vector<std::string> on);

  /// \brief New columns computed by SQL expressions over the existing ones (pylance's
  /// `add_columns({"name": "expr"})`): one new data file per fragment beside the old
  /// ones, new field ids above every id in use (Lance's `Merge`). Moves to the new
  /// version. \return Invalid for an existing name or a bad expression.
  Status AddColumns(const std::vector<std::pair<std::string, std::string>>& expressions,
                    const AddColumnsOptions& options = {});
  /// \brief New columns `new_fields` computed by `fn` from batches of the existing rows
  /// (pylance's add_columns with a UDF or a reader, which the Python layer adapts).
  /// \return Invalid when `fn` returns other columns or lengths than asked.
  Status AddColumns(const SchemaPtr& new_fields, const AddColumnsFunction& fn,
                    const AddColumnsOptions& options = {});
  /// \brief All-null new columns, a metadata-only change (pylance's add_columns with
  /// pyarrow fields): no data file is written; readers see nulls.
  Status AddNullColumns(const SchemaPtr& new_fields);
  /// \brief Removes columns from the schema (Lance's `Project`); data files holding only
  /// dropped columns leave the manifest, others stay as they are.
  /// \return Invalid for an unknown column or dropping every column.
  Status DropColumns(const std::vector<std::string>& columns);
  /// \brief Renames (ids kept), changes nullability (Lance's `Project`), or casts
  /// (values rewritten into new data files, a new field id: Lance's `Merge`).
  /// \return Invalid for an unknown path, a name clash, making a column holding nulls
  /// non-nullable, a cast Lance does not allow.
  Status AlterColumns(const std::vector<ColumnAlteration>& alterations);

 private:
  friend class MergeInsertBuilder;

 public:
  // ==== end of mutations.
  //
  //
  //
  // ==== Maintenance (issue 12): CompactFiles, CleanupOldVersions, Restore, tags,
  // checkout by tag / timestamp, config and schema / field metadata. Implemented in
  // src/dataset/compaction.cc, cleanup.cc, tags.cc, restore.cc, config.cc; types in
  // lance/dataset/maintenance.h.

  /// \brief Rewrites small fragments (and, with materialize_deletions, fragments with
  /// many deleted rows) into fewer, larger ones, committing Lance's `Rewrite`: planned
  /// as Lance plans it (runs of adjacent candidate fragments, split into bins of about
  /// target_rows_per_fragment live rows). Commits nothing when there is nothing to do.
  /// On success this object moves to the new version.
  /// \return the metrics; Invalid for bad options; Conflict (retryable) when a
  /// concurrent delete / update touched a rewritten fragment; errors of reads/writes.
  Result<CompactionMetrics> CompactFiles(const CompactionOptions& options = {});

  /// \brief Removes versions older than the cutoff (never the latest one nor a tagged
  /// one) and every file under data/, _deletions/, _transactions/ and _indices/ that no
  /// kept version references, as Lance's cleanup (rust/lance/src/dataset/cleanup.rs):
  /// unreferenced files younger than 7 days are kept unless delete_unverified, and
  /// files written after the oldest kept version are never looked at, so concurrent
  /// writers are safe.
  /// \return the stats; Invalid when a tagged version would be removed and
  /// error_if_tagged_old_versions; errors of the store.
  Result<CleanupStats> CleanupOldVersions(const CleanupOptions& options = {});

  /// \brief Commits this object's version as the newest one (Lance's `Restore`) and
  /// moves this object to it.
  Status Restore();

  /// \brief The version a tag points at. \return NotFound for an unknown tag.
  Result<uint64_t> TagVersion(const std::string& name) const;
  /// \brief Every tag by name. \return Corrupt naming a damaged tag file.
  Result<std::map<std::string, TagInfo>> ListTags() const;
  /// \brief Tags `version` (`_refs/tags/<name>.json`). \return AlreadyExists; NotFound
  /// for a version that does not exist; Invalid for a bad name.
  Status CreateTag(const std::string& name, uint64_t version);
  /// \brief Points an existing tag at another version. \return NotFound.
  Status UpdateTag(const std::string& name, uint64_t version);
  /// \brief Removes a tag. \return NotFound.
  Status DeleteTag(const std::string& name);
  /// \brief The version tagged `name`.
  Result<std::shared_ptr<Dataset>> CheckoutTag(const std::string& name) const;
  /// \brief The latest version committed at or before `timestamp_ms` (milliseconds
  /// since the epoch). \return NotFound when every version is younger.
  Result<std::shared_ptr<Dataset>> CheckoutTimestamp(int64_t timestamp_ms) const;

  /// \brief The table config (Manifest.config) of this version.
  std::map<std::string, std::string> Config() const;
  /// \brief Sets config keys, and removes those mapped to nullopt (Lance's
  /// `UpdateConfig`); with `replace` the config becomes exactly the given keys. Moves
  /// to the new version.
  Status UpdateConfig(const std::map<std::string, std::optional<std::string>>& updates,
                      bool replace = false);
  /// \brief Removes config keys (Lance's `UpdateConfig`); moves to the new version.
  Status DeleteConfigKeys(const std::vector<std::string>& keys);
  /// \brief Replaces the schema metadata; moves to the new version.
  Status ReplaceSchemaMetadata(const std::map<std::string, std::string>& metadata);
  /// \brief Replaces one top-level or nested (dotted path) field's metadata.
  /// \return Invalid for an unknown field.
  Status ReplaceFieldMetadata(const std::string& field,
                              const std::map<std::string, std::string>& metadata);

  // ==== end of maintenance.
  //
  //
  //
  // ==== Inspection (issue 12): Head, Sample, data statistics, ... Implemented in
  // src/dataset/inspect.cc; types in lance/dataset/statistics.h.

  /// \brief The first `num_rows` rows a scan with `options` returns (its limit
  /// replaced), as pylance's `head`. \return Invalid for a negative count; as Scan.
  Result<TablePtr> Head(int64_t num_rows, ScanOptions options = {}) const;
  /// \brief `num_rows` distinct live rows chosen uniformly at random, read with Take.
  /// \return Invalid when `num_rows` is negative or more than CountRows() (pylance's
  /// "sample larger than population"); as Take.
  Result<TablePtr> Sample(int64_t num_rows, const SampleOptions& options = {}) const;
  /// \brief The rows at the row addresses `row_addresses` ((fragment id << 32) | row
  /// offset, as the `_rowid` column gives them), in the order given, repeats kept, as
  /// pylance's `LanceDataset._take_rows`: deleted rows are left out.
  /// \return Invalid for an address in a fragment this version lacks or past the
  /// fragment's physical rows; as Take.
  Result<TablePtr> TakeRowAddresses(const std::vector<uint64_t>& row_addresses,
                                    const TakeOptions& options = {}) const;
  /// \brief Bytes on disk per field, computed as Lance's `calculate_data_stats`: the page
  /// buffer sizes of each data file's column metadata, attributed to fields through the
  /// data file's `fields` / `column_indices` (a column no field maps to continues the
  /// previous field). Reads only each data file's footer and column metadata.
  /// \return Corrupt naming a data file whose footer or metadata does not decode;
  /// NotFound / IOError naming a missing or unreadable data file.
  Result<DataStatistics> DataStats() const;
  /// \brief pylance's `stats.dataset_stats(max_rows_per_group)`: deleted rows,
  /// fragments, and fragments with fewer physical rows than `max_rows_per_group`.
  /// \return errors reading deletion files when the manifest lacks their counts.
  Result<DatasetStatistics> Stats(int64_t max_rows_per_group = 1024) const;
  /// \brief Lance's `Manifest::max_field_id`: the largest field id of the schema or of
  /// any data file (-1 for none).
  int32_t max_field_id() const;
  /// \brief The indices the manifest records (built by real Lance; read only).
  /// \return Corrupt naming the manifest when its index section does not decode.
  Result<std::vector<IndexSummary>> Indices() const;
  /// \brief Lance's `validate`: fragment ids unique and ascending, every data file of
  /// each fragment (or only of `fragment_id`) opens and holds the fragment's physical
  /// rows, deletion files decode within them, index UUIDs unique. Reads every file's
  /// footer and metadata. \return Corrupt naming what is wrong; NotFound for a missing
  /// file or an unknown `fragment_id`; IOError.
  Status Validate(std::optional<uint64_t> fragment_id = std::nullopt) const;

  // ==== end of inspection.

  /// \brief Internal: use Open / Write / Commit.
  explicit Dataset(std::shared_ptr<DatasetImpl> impl);

 private:
  // The dataset layer's own code (and its tests) reach the state through
  // src/dataset/dataset_internal.h; no other layer can.
  friend struct DatasetImplAccess;
  std::shared_ptr<DatasetImpl> impl_;
};

/// \brief Writes `data` into new data files under `uri` without committing, returning
/// the fragments (ids unassigned) for a later Dataset::Commit. With mode append on an
/// existing dataset the files use its schema (field ids) and storage version; otherwise
/// the field ids are assigned from 0 for an Overwrite of `data`'s schema.
/// \return the fragments; AlreadyExists for create on an existing dataset; Invalid
/// for a schema mismatch on append; errors of the writes.
Result<std::vector<FragmentMetadata>> WriteFragments(RecordBatchReader& data,
                                                     const std::string& uri,
                                                     WriteParams params = {});

}  // namespace lance
