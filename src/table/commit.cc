// SPDX-License-Identifier: Apache-2.0
#include "table/commit.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <map>
#include <optional>

#include "lance/core/logging.h"
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

// `txn` without its uuid, serialized deterministically (map fields sorted), so that two
// transactions built from the same inputs compare equal byte for byte.
std::string CanonicalBytes(pb::Transaction txn) {
  txn.clear_uuid();
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    txn.SerializeToCodedStream(&coded);
  }
  return out;
}

bool AnyDataFiles(const google::protobuf::RepeatedPtrField<pb::DataFragment>& fragments) {
  return std::any_of(fragments.begin(), fragments.end(),
                     [](const pb::DataFragment& f) { return f.files_size() > 0; });
}

bool AnyDeletionFiles(
    const google::protobuf::RepeatedPtrField<pb::DataFragment>& fragments) {
  return std::any_of(fragments.begin(), fragments.end(),
                     [](const pb::DataFragment& f) { return f.has_deletion_file(); });
}

// Whether `txn` publishes files written for it alone (data files and deletion files
// have random names): then an equal transaction can only be the same commit again.
// Operations without such files (a Project, an UpdateConfig, a ReserveFragments...) may
// legitimately be committed twice with equal contents by two writers.
bool NamesOwnFiles(const pb::Transaction& txn) {
  switch (txn.operation_case()) {
    case pb::Transaction::kAppend:
      return AnyDataFiles(txn.append().fragments());
    case pb::Transaction::kOverwrite:
      return AnyDataFiles(txn.overwrite().fragments());
    case pb::Transaction::kDelete:
      return AnyDeletionFiles(txn.delete_().updated_fragments());
    case pb::Transaction::kUpdate:
      return AnyDataFiles(txn.update().new_fragments()) ||
             AnyDeletionFiles(txn.update().updated_fragments());
    default:
      return false;
  }
}

}  // namespace

bool IsSameCommit(const pb::Transaction& mine, const pb::Transaction& theirs,
                  bool by_content) {
  if (!mine.uuid().empty() && mine.uuid() == theirs.uuid()) return true;
  return by_content && NamesOwnFiles(mine) &&
         mine.read_version() == theirs.read_version() &&
         mine.operation_case() == theirs.operation_case() &&
         CanonicalBytes(mine) == CanonicalBytes(theirs);
}

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
  // Manifests read back after a failed put, so that catch_up reads each version once.
  std::map<uint64_t, LoadedManifest> preloaded;
  // Set by catch_up when a version holds this very commit (IsSameCommit): it is done.
  std::optional<LoadedManifest> already_committed;

  // Reads every version committed after `checked_up_to` up to `latest_version` and makes
  // sure our transaction still makes sense on top of each; the last one becomes the base.
  auto catch_up = [&](uint64_t latest_version) -> Status {
    // Versions a cleanup running beside us (older_than = 0) removed after they were
    // committed: their transactions are gone, so what they changed is judged from the
    // manifests on either side of the gap (CheckUnseenVersions). Lance skips them.
    uint64_t gap_first = 0;  // 0: no gap (versions start at 1)
    uint64_t gap_last = 0;
    for (uint64_t v = checked_up_to + 1; v <= latest_version; ++v) {
      Result<LoadedManifest> loaded = [&]() -> Result<LoadedManifest> {
        auto it = preloaded.find(v);
        if (it != preloaded.end()) {
          LoadedManifest m = std::move(it->second);
          preloaded.erase(it);
          return m;
        }
        LANCE_ASSIGN_OR_RAISE(ManifestLocation loc, FindManifest(dir, v, scheme));
        return ReadManifest(dir, loc);
      }();
      if (!loaded.ok()) {
        if (!loaded.status().IsNotFound()) return loaded.status();
        if (gap_first == 0) gap_first = v;
        gap_last = v;
        continue;
      }
      LoadedManifest theirs_manifest = std::move(*loaded);
      auto theirs = LoadTransaction(dir, theirs_manifest);
      if (theirs.ok() && IsSameCommit(txn, *theirs, options.same_commit_by_content)) {
        // Version v is this commit: an earlier put of it went through although its
        // answer was lost, or the caller retries a commit that was published.
        // Committing it again would apply it twice.
        LANCE_LOG(Info, "commit")
            << "version " << v << " of " << dir.Uri()
            << " already holds this commit (transaction " << build.transaction_file
            << "); not committing it again";
        already_committed = std::move(theirs_manifest);
        return Status::OK();
      }
      if (gap_first != 0) {
        LANCE_RETURN_NOT_OK(CheckUnseenVersions(txn, base->manifest,
                                                theirs_manifest.manifest, gap_first,
                                                gap_last, dir.Uri()));
        gap_first = 0;
      }
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
    if (gap_first != 0) {
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
      if (already_committed) return std::move(*already_committed);
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
    auto published = [&]() -> LoadedManifest {
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
    };
    put = dir.store()->PutIfNotExists(key, bytes);
    if (put.ok()) return published();

    // The put failed, but that does not say the manifest is not there: the store may
    // have carried the put out and lost only its answer (a reset or timeout after the
    // request reached S3), and an AlreadyExists may be a retry meeting our own first
    // attempt. The name decides: read back what it holds. See "Lost acknowledgements"
    // in docs/commit-protocol.md.
    Result<LoadedManifest> there =
        ReadManifest(dir, ManifestLocation{version, scheme, key, -1});
    if (there.ok()) {
      if (there->manifest.transaction_file() == build.transaction_file) {
        LANCE_LOG(Info, "commit")
            << "publishing version " << version << " of " << dir.Uri() << " reported "
            << put.ToString() << ", but the manifest there is ours: committed";
        return published();
      }
      // Another writer's: the version is taken and our put cannot land any more (it
      // creates only), so this is a lost race like any other.
      preloaded[version] = std::move(*there);
    } else if (there.status().IsNotFound()) {
      // Nothing there: the put did not take effect. (AlreadyExists with nothing to read:
      // a cleanup removed it since, or the store is slow to show it; catch_up decides.)
      if (!put.IsAlreadyExists()) {
        return put.WithContext("publishing version " + std::to_string(version) + " of " +
                               dir.Uri());
      }
    } else if (there.status().IsCorrupt()) {
      // Our bytes decode, so these are not ours (puts are atomic): the version is taken
      // by something unreadable, which no commit can build on.
      return there.status();
    } else {
      return Status(
          StatusCode::kCommitStateUnknown,
          "Commit of version " + std::to_string(version) + " of " + dir.Uri() +
              " may have succeeded: publishing " + dir.store()->DisplayPath(key) +
              " failed (" + put.ToString() + ") and reading it back failed too (" +
              there.status().ToString() + "), so whether it holds this commit (" +
              "transaction _transactions/" + build.transaction_file +
              ") is unknown. Retrying the same commit (the same operation on the same "
              "read version, e.g. Dataset::Commit with the same fragments) is safe: it "
              "finds the version if it holds the commit. Repeating another write may "
              "apply the change twice: check version " +
              std::to_string(version) + " first",
          /*retryable=*/false);
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
    if (already_committed) return std::move(*already_committed);
  }
  return Status::Conflict("Commit to " + dir.Uri() + " gave up after " +
                          std::to_string(options.max_retries + 1) +
                          " attempts: other writers kept committing first");
}

}  // namespace lance::table_internal
