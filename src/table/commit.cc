// SPDX-License-Identifier: Apache-2.0
#include "table/commit.h"

#include <algorithm>
#include <optional>

#include "lance/macros.h"
#include "table/ids.h"

namespace lance::table_internal {
namespace {

void WriteVersionHint(const DatasetDir& dir, uint64_t version) {
  // Best effort: racing committers may leave an older number here, which is why
  // nobody may rely on it. Errors are ignored for the same reason.
  const std::string body = "{\"version\":" + std::to_string(version) + "}";
  (void)dir.store()->Put(dir.Key(kVersionHintPath), body);
}

}  // namespace

Result<LoadedManifest> CommitTransaction(const DatasetDir& dir,
                                         const LoadedManifest* read, pb::Transaction txn,
                                         const CommitOptions& options) {
  const uint64_t read_version = read != nullptr ? read->manifest.version() : 0;
  if (txn.read_version() != read_version) {
    return Status::Invalid("Transaction read_version " +
                           std::to_string(txn.read_version()) +
                           " does not match the manifest it is based on (version " +
                           std::to_string(read_version) + ")");
  }
  if (read != nullptr) {
    LANCE_RETURN_NOT_OK(
        CheckWriterFlags(read->manifest, dir.store()->DisplayPath(read->location.key)));
  }
  if (txn.uuid().empty()) txn.set_uuid(RandomUuid());
  const bool is_overwrite = txn.operation_case() == pb::Transaction::kOverwrite;
  const NamingScheme scheme =
      read != nullptr ? read->location.scheme : options.new_dataset_scheme;

  ManifestBuildOptions build;
  build.data_storage_version = options.data_storage_version;
  build.transaction_file = std::to_string(read_version) + "-" + txn.uuid() + ".txn";
  const std::string txn_bytes = txn.SerializeAsString();
  LANCE_RETURN_NOT_OK_CTX(
      dir.store()->Put(dir.Key("_transactions/" + build.transaction_file), txn_bytes),
      "writing the transaction file of a commit to " + dir.Uri());

  // The manifest we build on: the one read, then whatever won the races.
  std::optional<LoadedManifest> rebased;
  const LoadedManifest* base = read;
  uint64_t checked_up_to = read_version;

  // Reads every version committed after `checked_up_to` up to `latest_version` and makes
  // sure our transaction still makes sense on top of each; the last one becomes the base.
  auto catch_up = [&](uint64_t latest_version) -> Status {
    // Versions a cleanup running beside us (older_than = 0) removed after they were
    // committed: their transactions are gone, so what they changed is judged from the
    // manifests on either side of the gap (CheckUnseenVersions). Lance skips them.
    std::optional<uint64_t> gap_first;
    uint64_t gap_last = 0;
    for (uint64_t v = checked_up_to + 1; v <= latest_version; ++v) {
      Result<LoadedManifest> loaded = [&]() -> Result<LoadedManifest> {
        LANCE_ASSIGN_OR_RAISE(ManifestLocation loc, FindManifest(dir, v, scheme));
        return ReadManifest(dir, loc);
      }();
      if (!loaded.ok()) {
        if (!loaded.status().IsNotFound()) return loaded.status();
        if (!gap_first) gap_first = v;
        gap_last = v;
        continue;
      }
      LoadedManifest theirs_manifest = std::move(*loaded);
      if (gap_first) {
        LANCE_RETURN_NOT_OK(CheckUnseenVersions(txn, base->manifest,
                                                theirs_manifest.manifest, *gap_first,
                                                gap_last, dir.Uri()));
        gap_first.reset();
      }
      auto theirs = LoadTransaction(dir, theirs_manifest);
      if (!theirs.ok()) {
        // Without their transaction we cannot tell what changed: refuse to rebase.
        return Status::Conflict(
            "Commit conflict on " + dir.Uri() + ": version " + std::to_string(v) +
            " was committed concurrently and its transaction cannot be "
            "read (" +
            theirs.status().ToString() + "); reload the dataset and retry");
      }
      LANCE_RETURN_NOT_OK(CheckConflict(txn, *theirs, v, dir.Uri()));
      rebased = std::move(theirs_manifest);
      base = &*rebased;
    }
    if (gap_first) {
      // Nothing after the gap to build on (a listing that lags, or a cleanup of the
      // newest versions): start again from the latest one.
      return Status(StatusCode::kConflict,
                    "Commit conflict on " + dir.Uri() + ": version " +
                        std::to_string(gap_last) +
                        " was committed concurrently and has been removed since "
                        "(cleanup); reload the dataset and retry",
                    /*retryable=*/true);
    }
    checked_up_to = std::max(checked_up_to, latest_version);
    return CheckWriterFlags(base->manifest, dir.store()->DisplayPath(base->location.key));
  };

  if (read != nullptr) {
    // Start from the latest version, as Lance does before every attempt. Publishing
    // read_version + 1 blindly is not safe: if a cleanup has since removed that version
    // (and others have committed past it), the create-only put would succeed and
    // publish a manifest below the latest one, a commit nobody would ever read.
    // Costs one listing per commit (a LIST request on S3), as in Lance.
    LANCE_ASSIGN_OR_RAISE(auto latest, FindLatestManifest(dir));
    if (latest && latest->version > read_version) {
      LANCE_RETURN_NOT_OK(catch_up(latest->version));
    }
  }

  for (int attempt = 0; attempt <= options.max_retries; ++attempt) {
    const uint64_t version = (base != nullptr ? base->manifest.version() : 0) + 1;
    auto built =
        BuildManifest(base != nullptr ? &base->manifest : nullptr, txn, version, build);
    if (!built.ok()) {
      if (built.status().IsConflict() && checked_up_to != read_version) {
        // Planned again on the latest version it may well succeed.
        return Status(StatusCode::kConflict,
                      "Commit conflict on " + dir.Uri() + ": " +
                          built.status().message() + " after rebasing to version " +
                          std::to_string(checked_up_to),
                      /*retryable=*/true);
      }
      return built.status();
    }
    std::string index_section;
    if (options.index_section) {
      index_section = *options.index_section;
    } else if (base != nullptr && !is_overwrite) {
      index_section = base->index_section;
    }
    std::string bytes = SerializeManifestFile(*built, index_section, &txn);
    const std::string key = dir.ManifestKey(version, scheme);
    Status put;
    if (version == 1) {
      // A creator using the other naming scheme would not collide on the name; refuse
      // to mix schemes (the check narrows that race, create-only puts close ours).
      const NamingScheme other =
          scheme == NamingScheme::kV1 ? NamingScheme::kV2 : NamingScheme::kV1;
      LANCE_ASSIGN_OR_RAISE(bool taken, dir.store()->Exists(dir.ManifestKey(1, other)));
      if (taken) {
        return Status::Conflict("Commit conflict on " + dir.Uri() +
                                ": the dataset was created concurrently with " +
                                std::string(NamingSchemeName(other)) + " manifest names");
      }
    }
    put = dir.store()->PutIfNotExists(key, bytes);
    if (put.ok()) {
      if (options.write_version_hint && dir.store()->has_directories()) {
        WriteVersionHint(dir, version);
      }
      LoadedManifest out;
      out.location =
          ManifestLocation{version, scheme, key, static_cast<int64_t>(bytes.size())};
      out.manifest = std::move(*built);
      out.index_section = index_section;
      out.transaction_section = txn_bytes;
      return out;
    }
    if (!put.IsAlreadyExists()) {
      return put.WithContext("publishing version " + std::to_string(version) + " of " +
                             dir.Uri());
    }

    if (read == nullptr) {
      // Creating a dataset never rebases (as Lance's commit of a new dataset): someone
      // else created it first, whatever we meant to write.
      return Status::Conflict("Commit conflict on " + dir.Uri() +
                              ": the dataset was created concurrently by another writer");
    }
    // Lost the race for `version`: check what won it, and anything after it.
    LANCE_ASSIGN_OR_RAISE(auto latest, FindLatestManifest(dir));
    uint64_t latest_version = latest ? latest->version : 0;
    // A store whose listing lags its writes may not show `version` yet.
    if (latest_version < version) latest_version = version;
    LANCE_RETURN_NOT_OK(catch_up(latest_version));
  }
  return Status::Conflict("Commit to " + dir.Uri() + " gave up after " +
                          std::to_string(options.max_retries + 1) +
                          " attempts: other writers kept committing first");
}

}  // namespace lance::table_internal
