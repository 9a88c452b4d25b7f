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

namespace {

// One CommitTransaction: the transaction, the manifest it builds on (the one read, then
// whatever won the races) and what rebasing has checked so far. `base_` may point into
// `rebased_`, hence no copies.
class Committer {
 public:
  Committer(const DatasetDir& dir, const LoadedManifest* read, pb::Transaction txn,
            const CommitOptions& options)
      : dir_(dir),
        read_(read),
        txn_(std::move(txn)),
        options_(options),
        read_version_(read != nullptr ? read->manifest.version() : 0),
        scheme_(read != nullptr ? read->location.scheme : options.new_dataset_scheme),
        txn_bytes_(txn_.SerializeAsString()),
        base_(read),
        checked_up_to_(read_version_) {
    build_.data_storage_version = options.data_storage_version;
    build_.transaction_file = std::to_string(read_version_) + "-" + txn_.uuid() + ".txn";
  }
  Committer(const Committer&) = delete;
  Committer& operator=(const Committer&) = delete;

  Result<LoadedManifest> Run();

 private:
  Result<LoadedManifest> LoadVersion(uint64_t v);
  Status CatchUp(uint64_t latest_version);
  Status RebaseOnto(uint64_t v, LoadedManifest theirs_manifest, uint64_t* gap_first,
                    uint64_t gap_last);
  Result<pb::Manifest> Build(uint64_t version) const;
  Status CheckNoOtherScheme() const;
  Result<std::optional<LoadedManifest>> TryPublish(uint64_t version);
  Result<bool> ReadBack(uint64_t version, const std::string& key, const Status& put);
  LoadedManifest Published(uint64_t version, const std::string& key, pb::Manifest built,
                           std::string index_section, size_t size) const;

  const DatasetDir& dir_;
  const LoadedManifest* const read_;
  pb::Transaction txn_;
  const CommitOptions& options_;
  const uint64_t read_version_;
  const NamingScheme scheme_;
  ManifestBuildOptions build_;
  const std::string txn_bytes_;

  // The manifest we build on: the one read, then whatever won the races.
  std::optional<LoadedManifest> rebased_;
  const LoadedManifest* base_;
  uint64_t checked_up_to_;
  // Manifests read back after a failed put, so that CatchUp reads each version once.
  std::map<uint64_t, LoadedManifest> preloaded_;
  // Set by CatchUp when a version holds this very commit (IsSameCommit): it is done.
  std::optional<LoadedManifest> already_committed_;
};

Result<LoadedManifest> Committer::LoadVersion(uint64_t v) {
  auto it = preloaded_.find(v);
  if (it != preloaded_.end()) {
    LoadedManifest m = std::move(it->second);
    preloaded_.erase(it);
    return m;
  }
  LANCE_ASSIGN_OR_RAISE(ManifestLocation loc, FindManifest(dir_, v, scheme_));
  return ReadManifest(dir_, loc);
}

// Reads every version committed after `checked_up_to_` up to `latest_version` and makes
// sure our transaction still makes sense on top of each; the last one becomes the base.
Status Committer::CatchUp(uint64_t latest_version) {
  // Versions a cleanup running beside us (older_than = 0) removed after they were
  // committed: their transactions are gone, so what they changed is judged from the
  // manifests on either side of the gap (CheckUnseenVersions). Lance skips them.
  uint64_t gap_first = 0;  // 0: no gap (versions start at 1)
  uint64_t gap_last = 0;
  for (uint64_t v = checked_up_to_ + 1; v <= latest_version; ++v) {
    Result<LoadedManifest> loaded = LoadVersion(v);
    if (!loaded.ok()) {
      if (!loaded.status().IsNotFound()) return loaded.status();
      if (gap_first == 0) gap_first = v;
      gap_last = v;
      continue;
    }
    LANCE_RETURN_NOT_OK(RebaseOnto(v, std::move(*loaded), &gap_first, gap_last));
    if (already_committed_) return Status::OK();
  }
  if (gap_first != 0) {
    // Nothing after the gap to build on (a listing that lags, or a cleanup of the
    // newest versions): start again from the latest one.
    return Status(StatusCode::kConflict,
                  "Commit conflict on " + dir_.Uri() + ": version " +
                      std::to_string(gap_last) +
                      " was committed concurrently and has been removed since "
                      "(cleanup); reload the dataset and retry",
                  /*retryable=*/true);
  }
  checked_up_to_ = std::max(checked_up_to_, latest_version);
  return CheckWriterFlags(base_->manifest,
                          dir_.store()->DisplayPath(base_->location.key));
}

// Checks our transaction against version `v` (and the gap of removed versions before
// it, if any) and makes `v` the base; sets already_committed_ instead when `v` is this
// very commit.
Status Committer::RebaseOnto(uint64_t v, LoadedManifest theirs_manifest,
                             uint64_t* gap_first, uint64_t gap_last) {
  auto theirs = LoadTransaction(dir_, theirs_manifest);
  if (theirs.ok() && IsSameCommit(txn_, *theirs, options_.same_commit_by_content)) {
    // Version v is this commit: an earlier put of it went through although its
    // answer was lost, or the caller retries a commit that was published.
    // Committing it again would apply it twice.
    LANCE_LOG(Info, "commit") << "version " << v << " of " << dir_.Uri()
                              << " already holds this commit (transaction "
                              << build_.transaction_file << "); not committing it again";
    already_committed_ = std::move(theirs_manifest);
    return Status::OK();
  }
  if (*gap_first != 0) {
    LANCE_RETURN_NOT_OK(CheckUnseenVersions(txn_, base_->manifest,
                                            theirs_manifest.manifest, *gap_first,
                                            gap_last, dir_.Uri()));
    *gap_first = 0;
  }
  if (!theirs.ok()) {
    // Without their transaction we cannot tell what changed: refuse to rebase.
    return Status::Conflict(
        "Commit conflict on " + dir_.Uri() + ": version " + std::to_string(v) +
        " was committed concurrently and its transaction cannot be "
        "read (" +
        theirs.status().ToString() + "); reload the dataset and retry");
  }
  LANCE_RETURN_NOT_OK(CheckConflict(txn_, *theirs, v, dir_.Uri()));
  rebased_ = std::move(theirs_manifest);
  base_ = &*rebased_;
  return Status::OK();
}

Result<pb::Manifest> Committer::Build(uint64_t version) const {
  auto built =
      BuildManifest(base_ != nullptr ? &base_->manifest : nullptr, txn_, version, build_);
  if (!built.ok() && built.status().IsConflict() && checked_up_to_ != read_version_) {
    // Planned again on the latest version it may well succeed.
    return Status(StatusCode::kConflict,
                  "Commit conflict on " + dir_.Uri() + ": " + built.status().message() +
                      " after rebasing to version " + std::to_string(checked_up_to_),
                  /*retryable=*/true);
  }
  return built;
}

// A creator using the other naming scheme would not collide on the name; refuse
// to mix schemes (the check narrows that race, create-only puts close ours).
Status Committer::CheckNoOtherScheme() const {
  const NamingScheme other =
      scheme_ == NamingScheme::kV1 ? NamingScheme::kV2 : NamingScheme::kV1;
  LANCE_ASSIGN_OR_RAISE(bool taken, dir_.store()->Exists(dir_.ManifestKey(1, other)));
  if (taken) {
    return Status::Conflict("Commit conflict on " + dir_.Uri() +
                            ": the dataset was created concurrently with " +
                            std::string(NamingSchemeName(other)) + " manifest names");
  }
  return Status::OK();
}

LoadedManifest Committer::Published(uint64_t version, const std::string& key,
                                    pb::Manifest built, std::string index_section,
                                    size_t size) const {
  if (options_.write_version_hint && dir_.store()->has_directories()) {
    WriteVersionHint(dir_, version);
  }
  LoadedManifest out;
  out.location = ManifestLocation{version, scheme_, key, static_cast<int64_t>(size)};
  out.manifest = std::move(built);
  out.index_section = std::move(index_section);
  out.transaction_section = txn_bytes_;
  return out;
}

// One attempt at publishing `version` on `base_`: the committed manifest, or nullopt
// when another writer took that version first.
Result<std::optional<LoadedManifest>> Committer::TryPublish(uint64_t version) {
  LANCE_ASSIGN_OR_RAISE(pb::Manifest built, Build(version));
  std::string index_section;
  if (options_.index_section) {
    index_section = *options_.index_section;
  } else if (base_ != nullptr && txn_.operation_case() != pb::Transaction::kOverwrite) {
    index_section = base_->index_section;
  }
  std::string bytes = SerializeManifestFile(built, index_section, &txn_);
  const std::string key = dir_.ManifestKey(version, scheme_);
  if (version == 1) LANCE_RETURN_NOT_OK(CheckNoOtherScheme());
  const Status put = dir_.store()->PutIfNotExists(key, bytes);
  bool ours = put.ok();
  if (!ours) {
    LANCE_ASSIGN_OR_RAISE(ours, ReadBack(version, key, put));
  }
  if (!ours) return std::optional<LoadedManifest>();
  return std::optional<LoadedManifest>(
      Published(version, key, std::move(built), std::move(index_section), bytes.size()));
}

// The put of `version` failed, but that does not say the manifest is not there: the
// store may have carried the put out and lost only its answer (a reset or timeout after
// the request reached S3), and an AlreadyExists may be a retry meeting our own first
// attempt. The name decides: read back what it holds. See "Lost acknowledgements" in
// docs/commit-protocol.md. True: the manifest there is ours; false: we lost the race.
Result<bool> Committer::ReadBack(uint64_t version, const std::string& key,
                                 const Status& put) {
  Result<LoadedManifest> there =
      ReadManifest(dir_, ManifestLocation{version, scheme_, key, -1});
  if (there.ok()) {
    if (there->manifest.transaction_file() == build_.transaction_file) {
      LANCE_LOG(Info, "commit")
          << "publishing version " << version << " of " << dir_.Uri() << " reported "
          << put.ToString() << ", but the manifest there is ours: committed";
      return true;
    }
    // Another writer's: the version is taken and our put cannot land any more (it
    // creates only), so this is a lost race like any other.
    preloaded_[version] = std::move(*there);
  } else if (there.status().IsNotFound()) {
    // Nothing there: the put did not take effect. (AlreadyExists with nothing to read:
    // a cleanup removed it since, or the store is slow to show it; CatchUp decides.)
    if (!put.IsAlreadyExists()) {
      return put.WithContext("publishing version " + std::to_string(version) + " of " +
                             dir_.Uri());
    }
  } else if (there.status().IsCorrupt()) {
    // Our bytes decode, so these are not ours (puts are atomic): the version is taken
    // by something unreadable, which no commit can build on.
    return there.status();
  } else {
    return Status(
        StatusCode::kCommitStateUnknown,
        "Commit of version " + std::to_string(version) + " of " + dir_.Uri() +
            " may have succeeded: publishing " + dir_.store()->DisplayPath(key) +
            " failed (" + put.ToString() + ") and reading it back failed too (" +
            there.status().ToString() + "), so whether it holds this commit (" +
            "transaction _transactions/" + build_.transaction_file +
            ") is unknown. Retrying the same commit (the same operation on the same "
            "read version, e.g. Dataset::Commit with the same fragments) is safe: it "
            "finds the version if it holds the commit. Repeating another write may "
            "apply the change twice: check version " +
            std::to_string(version) + " first",
        /*retryable=*/false);
  }
  return false;
}

Result<LoadedManifest> Committer::Run() {
  LANCE_RETURN_NOT_OK_CTX(
      dir_.store()->Put(dir_.Key("_transactions/" + build_.transaction_file), txn_bytes_),
      "writing the transaction file of a commit to " + dir_.Uri());

  if (read_ != nullptr) {
    // Start from the latest version, as Lance does before every attempt. Publishing
    // read_version + 1 blindly is not safe: if a cleanup has since removed that version
    // (and others have committed past it), the create-only put would succeed and
    // publish a manifest below the latest one, a commit nobody would ever read.
    // Costs one listing per commit (a LIST request on S3), as in Lance.
    LANCE_ASSIGN_OR_RAISE(auto latest, FindLatestManifest(dir_));
    if (latest && latest->version > read_version_) {
      LANCE_RETURN_NOT_OK(CatchUp(latest->version));
      if (already_committed_) return std::move(*already_committed_);
    }
  }

  for (int attempt = 0; attempt <= options_.max_retries; ++attempt) {
    const uint64_t version = (base_ != nullptr ? base_->manifest.version() : 0) + 1;
    LANCE_ASSIGN_OR_RAISE(std::optional<LoadedManifest> published, TryPublish(version));
    if (published) return std::move(*published);
    if (read_ == nullptr) {
      // Creating a dataset never rebases (as Lance's commit of a new dataset): someone
      // else created it first, whatever we meant to write.
      return Status::Conflict("Commit conflict on " + dir_.Uri() +
                              ": the dataset was created concurrently by another writer");
    }
    // Lost the race for `version`: check what won it, and anything after it.
    LANCE_ASSIGN_OR_RAISE(auto latest, FindLatestManifest(dir_));
    uint64_t latest_version = latest ? latest->version : 0;
    // A store whose listing lags its writes may not show `version` yet.
    if (latest_version < version) latest_version = version;
    LANCE_RETURN_NOT_OK(CatchUp(latest_version));
    if (already_committed_) return std::move(*already_committed_);
  }
  return Status::Conflict("Commit to " + dir_.Uri() + " gave up after " +
                          std::to_string(options_.max_retries + 1) +
                          " attempts: other writers kept committing first");
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
  Committer committer(dir, read, std::move(txn), options);
  return committer.Run();
}

}  // namespace lance::table_internal
