// SPDX-License-Identifier: Apache-2.0
// Dataset::Restore (Lance's `Restore` operation) and checkout by timestamp.
#include "dataset/dataset_internal.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"
#include "table/commit.h"
#include "table/transaction.h"

namespace lance {

namespace ti = table_internal;
namespace pb = ti::pb;

Status Dataset::Restore() {
  const std::shared_ptr<DatasetImpl> ds = impl_;
  LANCE_ASSIGN_OR_RAISE(auto latest, ti::FindLatestManifest(ds->dir));
  if (!latest) return Status::NotFound("No Lance dataset at ", ds->dir.Uri());
  LANCE_ASSIGN_OR_RAISE(ti::LoadedManifest head, ti::ReadManifest(ds->dir, *latest));
  pb::Transaction txn;
  // Lance plans a Restore against the latest version; the content is ours.
  txn.set_read_version(latest->version);
  txn.mutable_restore()->set_version(ds->proto().version());
  const pb::Manifest source = ds->proto();
  ti::RestoreSourceScope scope(&source);
  ti::CommitOptions options;
  // The restored version's indices, not the latest's: an index built later may leave
  // out rows that were deleted later and are live again in the restored version.
  options.index_section = ds->manifest.index_section;
  LANCE_ASSIGN_OR_RAISE(ti::LoadedManifest committed,
                        ti::CommitTransaction(ds->dir, &head, std::move(txn), options));
  LANCE_ASSIGN_OR_RAISE(
      impl_, ti::MakeDatasetImpl(ds->uri, ds->access, ds->dir, std::move(committed)));
  return Status::OK();
}

Result<std::shared_ptr<Dataset>> Dataset::CheckoutTimestamp(int64_t timestamp_ms) const {
  LANCE_ASSIGN_OR_RAISE(auto versions, Versions());
  std::optional<uint64_t> chosen;
  for (const VersionInfo& v : versions) {
    if (v.timestamp_ms <= timestamp_ms) chosen = v.version;
  }
  if (!chosen) {
    return Status::NotFound("No version of the dataset at ", impl_->dir.Uri(),
                            " was committed at or before ", timestamp_ms,
                            " ms since the epoch");
  }
  return CheckoutVersion(*chosen);
}

}  // namespace lance
