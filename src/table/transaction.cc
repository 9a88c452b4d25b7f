// SPDX-License-Identifier: Apache-2.0
#include "table/transaction.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <unordered_map>

#include "lance/macros.h"

namespace lance::table_internal {
namespace {

using Op = pb::Transaction::OperationCase;

std::string FlagNames(uint64_t bits) {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (bits & kFlagStableRowIds) add("2 (stable row ids)");
  if (bits & kFlagBasePaths) add("16 (multiple base paths)");
  const uint64_t rest = bits & ~(kFlagStableRowIds | kFlagBasePaths);
  if (rest != 0) add("unknown bits " + std::to_string(rest));
  return out;
}

void SetTimestampNow(pb::Manifest* m) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  m->mutable_timestamp()->set_seconds(nanos / 1000000000);
  m->mutable_timestamp()->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

std::string InferDataFormat(const pb::Transaction::Overwrite& op) {
  for (const auto& frag : op.fragments()) {
    for (const auto& file : frag.files()) {
      if (file.file_major_version() == 2) {
        return "2." + std::to_string(file.file_minor_version());
      }
    }
  }
  return "2.0";
}

// Lance: a Merge or Project that does not assert preserves_nullability may add a column
// (or tighten one) that rows written concurrently do not satisfy.
bool MayAlterNullability(const pb::Transaction& txn) {
  return (txn.operation_case() == Op::kMerge && !txn.merge().preserves_nullability()) ||
         (txn.operation_case() == Op::kProject && !txn.project().preserves_nullability());
}

// The oneof number of an operation this build does not know (0 if none): protobuf keeps
// it among the unknown fields, and Lance reserves 100-199 for operations.
int UnknownOperationNumber(const pb::Transaction& txn) {
  const google::protobuf::UnknownFieldSet& unknown =
      txn.GetReflection()->GetUnknownFields(txn);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const int number = unknown.field(i).number();
    if (number >= 100 && number < 200) return number;
  }
  return 0;
}

// "2.0", "2.1", ... for a data file's recorded version, "0.1" for legacy files (Lance's
// from_data_file_numbers: 0.0-0.2 legacy, 0.3 = 2.0); empty when unknown.
std::string DataFileVersion(const pb::DataFile& file) {
  const uint32_t major = file.file_major_version();
  const uint32_t minor = file.file_minor_version();
  if (major == 0 && minor <= 2) return "0.1";
  if ((major == 0 && minor == 3) || (major == 2 && minor == 0)) return "2.0";
  if (major == 2 && minor <= 3) return "2." + std::to_string(minor);
  return "";
}

// The manifest's data_format version in the same spelling ("" when absent or unknown).
std::string DefaultDataVersion(const pb::Manifest& m) {
  if (!m.has_data_format()) return "";
  const std::string& v = m.data_format().version();
  if (v == "legacy" || v == "0.1" || v == "0.2") return "0.1";
  if (v == "0.3" || v == "2.0") return "2.0";
  if (v == "2.1" || v == "2.2" || v == "2.3") return v;
  return "";
}

// Lance 14's finalize_manifest_storage_version: V2 data files of another version than the
// manifest's default need the (sticky, paired) mixed-versions flag; legacy and V2 files
// never mix.
Status FinalizeStorageVersion(pb::Manifest* m) {
  const std::string fallback = DefaultDataVersion(*m);
  bool saw_legacy = false, saw_v2 = false, non_default = false;
  for (const auto& frag : m->fragments()) {
    for (const auto& file : frag.files()) {
      const std::string v = DataFileVersion(file);
      if (v.empty()) continue;  // unknown versions fail when read, with the file named
      (v == "0.1" ? saw_legacy : saw_v2) = true;
      if (!fallback.empty() && v != fallback) non_default = true;
    }
  }
  if (saw_legacy && (saw_v2 || (non_default && fallback != "0.1"))) {
    return Status::Invalid(
        "The commit would mix legacy (0.x) and 2.x data files in one dataset, which "
        "Lance "
        "does not allow");
  }
  if (non_default && fallback != "0.1") {
    m->set_reader_feature_flags(m->reader_feature_flags() | kFlagMixedDataFileVersions);
    m->set_writer_feature_flags(m->writer_feature_flags() | kFlagMixedDataFileVersions);
  }
  return Status::OK();
}

}  // namespace

Status ConflictError(const pb::Transaction& mine, const pb::Transaction& theirs,
                     uint64_t their_version, std::string_view uri, std::string_view why,
                     bool retryable) {
  return Status(
      StatusCode::kConflict,
      "Commit conflict on " + std::string(uri) + ": this " + OperationName(mine) +
          " (planned against version " + std::to_string(mine.read_version()) +
          ") cannot be rebased over the " + OperationName(theirs) +
          " committed concurrently as version " + std::to_string(their_version) +
          (why.empty() ? "" : ": " + std::string(why)) +
          (retryable ? "; plan it again on the latest version"
                     : "; reload the dataset and retry"),
      retryable);
}

#ifndef LANCE_CPP_VERSION
#define LANCE_CPP_VERSION "0.0.0"
#endif

std::string WriterBuildMetadata() { return "lance-cpp." LANCE_CPP_VERSION; }

Status CheckReaderFlags(const pb::Manifest& manifest, std::string_view name) {
  if ((manifest.reader_feature_flags() ^ manifest.writer_feature_flags()) &
      kFlagMixedDataFileVersions) {
    return Status::Corrupt("Manifest " + std::string(name) +
                           " has only one of the reader and writer mixed "
                           "data-file-version feature flags (256) set");
  }
  const uint64_t unsupported = manifest.reader_feature_flags() & ~kKnownReaderFlags;
  if (unsupported != 0) {
    return Status::NotImplemented(
        "Manifest " + std::string(name) + " requires reader feature flag(s) " +
        FlagNames(unsupported) + ", which lance-cpp does not support");
  }
  return Status::OK();
}

Status CheckWriterFlags(const pb::Manifest& manifest, std::string_view name) {
  const uint64_t unsupported = manifest.writer_feature_flags() & ~kKnownWriterFlags;
  if (unsupported != 0) {
    return Status::NotImplemented(
        "Manifest " + std::string(name) + " requires writer feature flag(s) " +
        FlagNames(unsupported) + ", which lance-cpp cannot maintain when committing");
  }
  return CheckReaderFlags(manifest, name);
}

std::string OperationName(const pb::Transaction& txn) {
  // The message type of the operation's oneof field: the .proto is the one list of them.
  if (txn.operation_case() != Op::OPERATION_NOT_SET) {
    const google::protobuf::FieldDescriptor* field =
        pb::Transaction::descriptor()->FindFieldByNumber(txn.operation_case());
    if (field != nullptr && field->message_type() != nullptr) {
      return field->message_type()->name();
    }
  }
  const int number = UnknownOperationNumber(txn);
  if (number != 0) {
    return "operation unknown to lance-cpp (transaction field " + std::to_string(number) +
           ")";
  }
  return "transaction without an operation";
}

Status CannotApply(const pb::Transaction& txn, std::string_view why) {
  return Status::NotImplemented("lance-cpp cannot apply this transaction (",
                                OperationName(txn), ")", why);
}

void ApplyFeatureFlags(pb::Manifest* m) {
  // Keep the bits we do not own (they passed CheckWriterFlags, so they are safe to keep)
  // and recompute the ones that describe content.
  uint64_t reader = m->reader_feature_flags() & ~(kFlagDeletionFiles);
  uint64_t writer = m->writer_feature_flags() &
                    ~(kFlagDeletionFiles | kFlagTableConfig | kFlagInlineTransactionOnly);
  const bool has_deletions =
      std::any_of(m->fragments().begin(), m->fragments().end(),
                  [](const pb::DataFragment& f) { return f.has_deletion_file(); });
  if (has_deletions) {
    reader |= kFlagDeletionFiles;
    writer |= kFlagDeletionFiles;
  }
  if (!m->config().empty()) writer |= kFlagTableConfig;
  m->set_reader_feature_flags(reader);
  m->set_writer_feature_flags(writer);
}

int64_t HighWaterMark(const pb::Manifest& m) {
  int64_t mark = m.has_max_fragment_id() ? static_cast<int64_t>(m.max_fragment_id()) : -1;
  for (const auto& f : m.fragments()) mark = std::max(mark, static_cast<int64_t>(f.id()));
  return mark;
}

Status SetHighWaterMark(pb::Manifest* m, int64_t mark) {
  if (mark > static_cast<int64_t>(UINT32_MAX)) {
    return Status::Invalid("Fragment ids exhausted the 32-bit max_fragment_id");
  }
  if (mark >= 0) m->set_max_fragment_id(static_cast<uint32_t>(mark));
  return Status::OK();
}

Status ConflictCheck::Retryable(std::string_view why) const {
  return ConflictError(mine, theirs, their_version, uri, why, true);
}

Status ConflictCheck::Incompatible(std::string_view why) const {
  return ConflictError(mine, theirs, their_version, uri, why, false);
}

std::set<uint64_t> ChangedFragments(const pb::Transaction& txn) {
  std::set<uint64_t> ids;
  switch (txn.operation_case()) {
    case Op::kDelete:
      ids.insert(txn.delete_().deleted_fragment_ids().begin(),
                 txn.delete_().deleted_fragment_ids().end());
      for (const auto& f : txn.delete_().updated_fragments()) ids.insert(f.id());
      break;
    case Op::kUpdate:
      ids.insert(txn.update().removed_fragment_ids().begin(),
                 txn.update().removed_fragment_ids().end());
      for (const auto& f : txn.update().updated_fragments()) ids.insert(f.id());
      break;
    case Op::kRewrite:
      for (const auto& f : txn.rewrite().old_fragments()) ids.insert(f.id());
      for (const auto& group : txn.rewrite().groups()) {
        for (const auto& f : group.old_fragments()) ids.insert(f.id());
      }
      break;
    case Op::kDataReplacement:
      for (const auto& r : txn.data_replacement().replacements())
        ids.insert(r.fragment_id());
      break;
    case Op::kDataOverlay:
      for (const auto& g : txn.data_overlay().groups()) ids.insert(g.fragment_id());
      break;
    default:
      break;
  }
  return ids;
}

Status CheckFragmentOverlap(const ConflictCheck& c) {
  return c.RetryIfShared(ChangedFragments(c.mine), ChangedFragments(c.theirs));
}

Status ConflictCheck::RetryIfShared(const std::set<uint64_t>& ours,
                                    const std::set<uint64_t>& changed) const {
  for (uint64_t id : ours) {
    if (changed.count(id) != 0)
      return Retryable("both changed fragment " + std::to_string(id));
  }
  return Status::OK();
}

Status ConflictCheck::IncompatibleIfSameConfigKey() const {
  const auto a = ConfigKeys(mine);
  for (const auto& k : ConfigKeys(theirs)) {
    if (a.count(k) != 0) return Incompatible("both set config key " + k);
  }
  return Status::OK();
}

Status ConflictCheck::Apply(const ConflictRow& row) const {
  const int column = static_cast<int>(their_op()) - static_cast<int>(Op::kAppend);
  const size_t pos = 3 * static_cast<size_t>(column) + 2;
  if (column < 0 || pos >= row.cells.size()) return Incompatible("");
  switch (row.cells[pos]) {
    case '.':
      return Status::OK();
    case 'R':
      return Retryable(row.retryable_why);
    case 'I':
      return Incompatible(row.incompatible_why);
    case '?':
      return row.check != nullptr ? row.check(*this) : Incompatible("");
    default:  // '-'
      return Incompatible("");
  }
}

namespace {

Status BuildOverwrite(const pb::Manifest* previous, const pb::Transaction::Overwrite& op,
                      const ManifestBuildOptions& options, pb::Manifest* m) {
  // A fresh manifest: the old schema, fragments and indices describe data that is
  // gone. Only table-level settings carry over, as in Lance.
  if (previous != nullptr) {
    *m->mutable_config() = previous->config();
    *m->mutable_table_metadata() = previous->table_metadata();
  }
  for (const auto& [k, v] : op.config_upsert_values()) (*m->mutable_config())[k] = v;
  *m->mutable_fields() = op.schema();
  *m->mutable_schema_metadata() = op.schema_metadata();
  // Fragment ids continue above the high-water mark of every id ever used, as
  // pylance 14 numbers them (an overwrite of a dataset whose fragments were 0-2 gets
  // 3, ...), also when an Overwrite is rebased over appends: an id is never reused,
  // so nothing keyed by fragment id (deletion files, indices) can be mistaken.
  int64_t mark = previous != nullptr ? HighWaterMark(*previous) : -1;
  int64_t next_id = mark + 1;
  for (const auto& frag : op.fragments()) {
    pb::DataFragment* out = m->add_fragments();
    *out = frag;
    out->set_id(static_cast<uint64_t>(next_id++));
  }
  LANCE_RETURN_NOT_OK(SetHighWaterMark(m, std::max(mark, next_id - 1)));
  m->mutable_data_format()->set_file_format("lance");
  m->mutable_data_format()->set_version(options.data_storage_version.empty()
                                            ? InferDataFormat(op)
                                            : options.data_storage_version);
  return Status::OK();
}

Status ApplyAppend(const pb::Transaction::Append& op, pb::Manifest* m) {
  int64_t mark = HighWaterMark(*m);
  for (const auto& frag : op.fragments()) {
    pb::DataFragment* out = m->add_fragments();
    *out = frag;
    out->set_id(static_cast<uint64_t>(++mark));
  }
  return SetHighWaterMark(m, mark);
}

Status ApplyDelete(const pb::Transaction::Delete& op, pb::Manifest* m) {
  std::unordered_map<uint64_t, int> index;
  for (int i = 0; i < m->fragments_size(); ++i) index[m->fragments(i).id()] = i;
  for (const auto& updated : op.updated_fragments()) {
    auto it = index.find(updated.id());
    if (it == index.end()) {
      return Status::Conflict("Fragment " + std::to_string(updated.id()) +
                              " this Delete updates no longer exists");
    }
    // Only the deletion vector changes; keep everything else of the fragment as
    // the latest version has it.
    pb::DataFragment* target = m->mutable_fragments(it->second);
    if (updated.has_deletion_file()) {
      *target->mutable_deletion_file() = updated.deletion_file();
    } else {
      target->clear_deletion_file();
    }
  }
  std::set<uint64_t> removed;
  for (uint64_t id : op.deleted_fragment_ids()) {
    if (index.find(id) == index.end()) {
      return Status::Conflict("Fragment " + std::to_string(id) +
                              " this Delete removes no longer exists");
    }
    removed.insert(id);
  }
  if (!removed.empty()) {
    google::protobuf::RepeatedPtrField<pb::DataFragment> kept;
    for (auto& f : *m->mutable_fragments()) {
      if (removed.count(f.id()) == 0) *kept.Add() = std::move(f);
    }
    m->mutable_fragments()->Swap(&kept);
  }
  return Status::OK();
}

// What every new manifest gets, whatever the operation: fragments sorted by id,
// version, timestamp, writer and feature flags.
Status FinishManifest(uint64_t version, const ManifestBuildOptions& options,
                      pb::Manifest* m) {
  std::sort(m->mutable_fragments()->begin(), m->mutable_fragments()->end(),
            [](const pb::DataFragment& a, const pb::DataFragment& b) {
              return a.id() < b.id();
            });
  for (int i = 1; i < m->fragments_size(); ++i) {
    if (m->fragments(i).id() == m->fragments(i - 1).id()) {
      return Status::Corrupt("Two fragments share id " +
                             std::to_string(m->fragments(i).id()));
    }
  }
  m->set_version(version);
  SetTimestampNow(m);
  m->mutable_writer_version()->set_library(std::string(kWriterLibrary));
  m->mutable_writer_version()->set_version(std::string(kWriterVersion));
  m->mutable_writer_version()->clear_prerelease();
  m->mutable_writer_version()->set_build_metadata(WriterBuildMetadata());
  m->set_transaction_file(options.transaction_file);
  m->clear_index_section();
  m->clear_transaction_section();
  m->clear_tag();
  ApplyFeatureFlags(m);
  return FinalizeStorageVersion(m);
}

// The '?' cells of kOverwriteRow: only table-level settings survive an Overwrite, so it
// clashes with a concurrent change of the same config keys. Two Overwrites: pylance 14
// reports a retryable conflict (Lance 1.0.0-beta.1 let the later one win when their
// keys differ).
Status CheckOverwriteOverConfig(const ConflictCheck& c) {
  LANCE_RETURN_NOT_OK(c.IncompatibleIfSameConfigKey());
  if (c.their_op() == Op::kOverwrite)
    return c.Retryable("both replaced the whole dataset");
  return Status::OK();
}

// Lance's check_overwrite_txn: an Overwrite replaces the schema and every fragment, so
// whatever was committed since its read version is discarded and it wins.
// UpdateMemWalState and operations this build does not know are incompatible.
constexpr ConflictRow kOverwriteRow = {
    // Ap De Ov CI Rw Me Rs RF Up Pr UC DR MW Cl UB DO
    "  .  .  ?  .  .  .  .  .  .  .  ?  .  -  .  .  .", "", "",
    &CheckOverwriteOverConfig};

// New fragments touch nothing that existed. (Feature flags the other commit turned on,
// e.g. base paths, are checked on the rebased manifest.)
constexpr ConflictRow kAppendRow = {
    // Ap De Ov CI Rw Me Rs RF Up Pr UC DR MW Cl UB DO
    "  .  .  I  .  .  .  I  .  .  .  .  .  -  .  .  .", "",
    "it replaced the dataset's schema and fragments"};

// '?': compatible unless it changed a fragment whose deletion vector we rewrote (Lance
// could sometimes merge the two deletion vectors; we ask for a retry). A Merge may add
// columns holding values the predicate would have matched differently (retryable).
// Overwrites, restores, unknown operations: the rows we matched may be gone.
constexpr ConflictRow kDeleteRow = {
    // Ap De Ov CI Rw Me Rs RF Up Pr UC DR MW Cl UB DO
    "  .  ?  -  .  ?  R  -  .  ?  .  .  ?  -  .  .  .", "", "", &CheckFragmentOverlap};

static_assert(IsValidConflictRow(kOverwriteRow));
static_assert(IsValidConflictRow(kAppendRow));
static_assert(IsValidConflictRow(kDeleteRow));

Status CheckAppendConflict(const ConflictCheck& c) {
  if (MayAlterNullability(c.theirs)) {
    return c.Retryable(
        "it may change the schema's nullability, which rows appended concurrently "
        "need not satisfy");
  }
  return c.Apply(kAppendRow);
}

// The operations whose building and conflict rules live in another file (issue 12),
// named once so that BuildManifest and CheckConflict cannot disagree.
enum class Family { kMutation, kMaintenance, kOther };

Family FamilyOf(Op op) {
  switch (op) {
    case Op::kUpdate:
    case Op::kMerge:
    case Op::kProject:
    case Op::kDataReplacement:
      return Family::kMutation;
    case Op::kRewrite:
    case Op::kRestore:
    case Op::kUpdateConfig:
    case Op::kReserveFragments:
      return Family::kMaintenance;
    default:
      return Family::kOther;
  }
}

}  // namespace

Result<pb::Manifest> BuildManifest(const pb::Manifest* previous,
                                   const pb::Transaction& txn, uint64_t version,
                                   const ManifestBuildOptions& options) {
  pb::Manifest m;
  // Every operation but Overwrite edits the previous manifest, so needs one; `what`
  // completes "Cannot ...: the dataset does not exist".
  auto start_from_previous = [&](const std::string& what) -> Status {
    if (previous == nullptr) {
      return Status::NotFound("Cannot ", what, ": the dataset does not exist");
    }
    m = *previous;
    return Status::OK();
  };
  switch (txn.operation_case()) {
    case Op::kOverwrite:
      LANCE_RETURN_NOT_OK(BuildOverwrite(previous, txn.overwrite(), options, &m));
      break;
    case Op::kAppend:
      LANCE_RETURN_NOT_OK(start_from_previous("append"));
      LANCE_RETURN_NOT_OK(ApplyAppend(txn.append(), &m));
      break;
    case Op::kDelete:
      LANCE_RETURN_NOT_OK(start_from_previous("delete"));
      LANCE_RETURN_NOT_OK(ApplyDelete(txn.delete_(), &m));
      break;
    default: {
      const Family family = FamilyOf(txn.operation_case());
      if (family == Family::kOther) {
        return CannotApply(
            txn, ": only Append, Delete and Overwrite are committed by lance-cpp");
      }
      LANCE_RETURN_NOT_OK(start_from_previous("apply " + OperationName(txn)));
      LANCE_RETURN_NOT_OK(family == Family::kMutation ? ApplyMutation(txn, &m)
                                                      : ApplyMaintenance(txn, &m));
      break;
    }
  }
  LANCE_RETURN_NOT_OK(FinishManifest(version, options, &m));
  return m;
}

Status CheckConflict(const pb::Transaction& mine, const pb::Transaction& theirs,
                     uint64_t their_version, std::string_view uri) {
  const ConflictCheck check{mine, theirs, their_version, uri};
  switch (mine.operation_case()) {
    case Op::kOverwrite:
      return check.Apply(kOverwriteRow);
    case Op::kAppend:
      return CheckAppendConflict(check);
    case Op::kDelete:
      return check.Apply(kDeleteRow);
    default:
      switch (FamilyOf(mine.operation_case())) {
        case Family::kMutation:
          return CheckMutationConflict(check);
        case Family::kMaintenance:
          return CheckMaintenanceConflict(check);
        case Family::kOther:
          return check.Incompatible("");
      }
  }
  return check.Incompatible("");
}

namespace {

bool SameMessages(const google::protobuf::RepeatedPtrField<pb::DataFragment>& a,
                  const google::protobuf::RepeatedPtrField<pb::DataFragment>& b) {
  if (a.size() != b.size()) return false;
  for (int i = 0; i < a.size(); ++i) {
    if (a[i].SerializeAsString() != b[i].SerializeAsString()) return false;
  }
  return true;
}

bool SameFields(const pb::Manifest& a, const pb::Manifest& b) {
  if (a.fields_size() != b.fields_size()) return false;
  for (int i = 0; i < a.fields_size(); ++i) {
    if (a.fields(i).SerializeAsString() != b.fields(i).SerializeAsString()) return false;
  }
  return true;
}

const pb::DataFragment* FindFragment(const pb::Manifest& m, uint64_t id) {
  for (const auto& f : m.fragments()) {
    if (f.id() == id) return &f;
  }
  return nullptr;
}

}  // namespace

Status CheckUnseenVersions(const pb::Transaction& mine, const pb::Manifest& before,
                           const pb::Manifest& after, uint64_t first, uint64_t last,
                           std::string_view uri) {
  auto conflict = [&](std::string_view what) {
    const std::string versions =
        first == last ? "version " + std::to_string(first)
                      : "versions " + std::to_string(first) + "-" + std::to_string(last);
    return Status(StatusCode::kConflict,
                  "Commit conflict on " + std::string(uri) + ": " + OperationName(mine) +
                      " cannot be checked against " + versions +
                      ", committed concurrently and removed since (cleanup), which " +
                      std::string(what) + "; reload the dataset and retry",
                  /*retryable=*/true);
  };
  const Op op = mine.operation_case();
  if (op == Op::kOverwrite || op == Op::kRestore || op == Op::kUpdateConfig) {
    // The first two replace everything but table settings, the last changes only
    // settings: only the config keys they set can clash.
    for (const auto& key : ConfigKeys(mine)) {
      auto a = before.config().find(key);
      auto b = after.config().find(key);
      const bool same = (a == before.config().end()) == (b == after.config().end()) &&
                        (a == before.config().end() || a->second == b->second);
      if (!same) return conflict("changed config key " + key);
    }
    return Status::OK();
  }
  if (!SameFields(before, after)) return conflict("changed the schema");
  switch (op) {
    case Op::kAppend:
    case Op::kProject:
      return Status::OK();
    case Op::kDelete:
    case Op::kUpdate:
    case Op::kRewrite:
    case Op::kDataReplacement:
      // Each fragment we change must be exactly as we read it.
      for (uint64_t id : ChangedFragments(mine)) {
        const pb::DataFragment* a = FindFragment(before, id);
        const pb::DataFragment* b = FindFragment(after, id);
        if (a == nullptr || b == nullptr ||
            a->SerializeAsString() != b->SerializeAsString()) {
          return conflict("changed fragment " + std::to_string(id));
        }
      }
      return Status::OK();
    default:
      // Merge (replaces every fragment), indexes, reservations and operations
      // this build does not know: only an unchanged table is safe.
      if (!SameMessages(before.fragments(), after.fragments())) {
        return conflict("changed the fragments");
      }
      if (before.config().size() != after.config().size()) {
        return conflict("changed the config");
      }
      for (const auto& [k, v] : before.config()) {
        auto it = after.config().find(k);
        if (it == after.config().end() || it->second != v) {
          return conflict("changed the config");
        }
      }
      return Status::OK();
  }
}

Result<pb::Transaction> LoadTransaction(const DatasetDir& dir,
                                        const LoadedManifest& loaded) {
  pb::Transaction txn;
  if (loaded.transaction_section) {
    if (!txn.ParseFromString(*loaded.transaction_section)) {
      return Status::Corrupt("The inline transaction of manifest " +
                             dir.store()->DisplayPath(loaded.location.key) +
                             " does not decode");
    }
    return txn;
  }
  const std::string& file = loaded.manifest.transaction_file();
  if (file.empty()) {
    return Status::NotFound("Version " + std::to_string(loaded.manifest.version()) +
                            " of " + dir.Uri() + " records no transaction");
  }
  const std::string key = dir.Key("_transactions/" + file);
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, dir.store()->Read(key));
  if (!txn.ParseFromArray(bytes->data(), static_cast<int>(bytes->size()))) {
    return Status::Corrupt("Transaction file " + dir.store()->DisplayPath(key) +
                           " does not decode");
  }
  return txn;
}

}  // namespace lance::table_internal
