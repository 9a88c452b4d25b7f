// SPDX-License-Identifier: Apache-2.0
// Manifest building and conflict rules of the mutation operations (see transaction.h):
// Update (update, merge-insert), Merge (add columns, casts), Project (drop, rename,
// nullability) and DataReplacement. The rules follow Lance's conflict_resolver.rs;
// docs/mutations.md has the table.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "lance/macros.h"
#include "table/transaction.h"

namespace lance::table_internal {
namespace {

using Op = pb::Transaction::OperationCase;

Status ApplyUpdate(const pb::Transaction::Update& op, pb::Manifest* m) {
  std::unordered_map<uint64_t, int> index;
  for (int i = 0; i < m->fragments_size(); ++i) index[m->fragments(i).id()] = i;
  for (const pb::DataFragment& updated : op.updated_fragments()) {
    auto it = index.find(updated.id());
    if (it == index.end()) {
      return Status(
          StatusCode::kConflict,
          StrCat("Fragment ", updated.id(), " this Update changes no longer exists"),
          true);
    }
    // Only the deletion vector changes; everything else of the fragment is kept as the
    // latest version has it (a concurrent Project may have dropped one of its files).
    pb::DataFragment* target = m->mutable_fragments(it->second);
    if (updated.has_deletion_file()) {
      *target->mutable_deletion_file() = updated.deletion_file();
    } else {
      target->clear_deletion_file();
    }
  }
  std::set<uint64_t> removed;
  for (uint64_t id : op.removed_fragment_ids()) {
    if (index.find(id) == index.end()) {
      return Status(StatusCode::kConflict,
                    StrCat("Fragment ", id, " this Update removes no longer exists"),
                    true);
    }
    removed.insert(id);
  }
  int64_t mark = HighWaterMark(*m);
  if (!removed.empty()) {
    google::protobuf::RepeatedPtrField<pb::DataFragment> kept;
    for (auto& f : *m->mutable_fragments()) {
      if (removed.count(f.id()) == 0) *kept.Add() = std::move(f);
    }
    m->mutable_fragments()->Swap(&kept);
  }
  for (const pb::DataFragment& frag : op.new_fragments()) {
    pb::DataFragment* out = m->add_fragments();
    *out = frag;
    out->set_id(static_cast<uint64_t>(++mark));
  }
  return SetHighWaterMark(m, mark);
}

Status ApplyMerge(const pb::Transaction::Merge& op, pb::Manifest* m) {
  // The Merge lists every fragment of the new version (ids kept).
  const int64_t mark = HighWaterMark(*m);
  *m->mutable_fragments() = op.fragments();
  *m->mutable_fields() = op.schema();
  *m->mutable_schema_metadata() = op.schema_metadata();
  return SetHighWaterMark(m, std::max(mark, HighWaterMark(*m)));
}

Status ApplyProject(const pb::Transaction::Project& op, pb::Manifest* m) {
  *m->mutable_fields() = op.schema();
  std::set<int32_t> remaining;
  for (const auto& field : op.schema()) remaining.insert(field.id());
  // Data files left without any field of the schema leave the manifest, as in Lance.
  for (pb::DataFragment& frag : *m->mutable_fragments()) {
    google::protobuf::RepeatedPtrField<pb::DataFile> kept;
    for (pb::DataFile& file : *frag.mutable_files()) {
      const bool used = std::any_of(file.fields().begin(), file.fields().end(),
                                    [&](int32_t id) { return remaining.count(id) != 0; });
      if (used) *kept.Add() = std::move(file);
    }
    frag.mutable_files()->Swap(&kept);
  }
  return Status::OK();
}

// The conflict matrix of the mutations (see ConflictRow; docs/mutations.md). The '?'
// cells (CheckFragmentOverlap): Lance can sometimes merge two deletion vectors of one
// fragment; we ask for a new plan instead whenever both touched the same fragment.
constexpr ConflictRow kUpdateRow = {
    // Ap De Ov CI Rw Me Rs RF Up Pr UC DR MW Cl UB DO
    "  .  ?  I  .  ?  R  I  .  ?  .  .  ?  -  .  .  ?",
    "it changed the schema and every fragment's files",
    "it replaced the dataset's fragments", &CheckFragmentOverlap};

// A Merge lists every fragment: any change to the fragments needs a new plan.
constexpr ConflictRow kMergeRow = {
    // Ap De Ov CI Rw Me Rs RF Up Pr UC DR MW Cl UB DO
    "  R  R  I  .  R  R  I  .  R  I  .  R  -  .  .  R",
    "a Merge lists every fragment, and it changed the fragments",
    "it replaced the schema or the fragments"};

constexpr ConflictRow kProjectRow = {
    // Ap De Ov CI Rw Me Rs RF Up Pr UC DR MW Cl UB DO
    "  .  .  I  .  .  R  I  .  .  R  .  .  -  .  .  -",
    "the schema changed; compute the new schema again",
    "it replaced the dataset's schema"};

constexpr ConflictRow kDataReplacementRow = {
    // Ap De Ov CI Rw Me Rs RF Up Pr UC DR MW Cl UB DO
    "  .  .  -  R  ?  .  -  .  .  .  .  ?  -  .  .  -", "", "", &CheckFragmentOverlap};

static_assert(IsValidConflictRow(kUpdateRow));
static_assert(IsValidConflictRow(kMergeRow));
static_assert(IsValidConflictRow(kProjectRow));
static_assert(IsValidConflictRow(kDataReplacementRow));

}  // namespace

Status ApplyMutation(const pb::Transaction& txn, pb::Manifest* m) {
  switch (txn.operation_case()) {
    case Op::kUpdate:
      return ApplyUpdate(txn.update(), m);
    case Op::kMerge:
      return ApplyMerge(txn.merge(), m);
    case Op::kProject:
      return ApplyProject(txn.project(), m);
    default:
      return CannotApply(txn);
  }
}

Status CheckMutationConflict(const ConflictCheck& check) {
  switch (check.mine.operation_case()) {
    case Op::kUpdate:
      return check.Apply(kUpdateRow);
    case Op::kMerge:
      return check.Apply(kMergeRow);
    case Op::kProject:
      return check.Apply(kProjectRow);
    case Op::kDataReplacement:
      return check.Apply(kDataReplacementRow);
    default:
      return check.Incompatible("");
  }
}

}  // namespace lance::table_internal
