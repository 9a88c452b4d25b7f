// SPDX-License-Identifier: Apache-2.0
// A store decorator that injects a fault at the N-th mutating call: it fails (IOError),
// tears (writes a prefix of the bytes where a crash would leave them, then fails), fails
// after the call went through (a lost acknowledgement), or kills the process (SIGKILL,
// before the call, after a torn prefix, or after the call). The crash harness
// (tests/crash) and the commit fault test drive every step of a commit through it.
//
// Mutating calls ("steps"), in the order the wrapped code makes them:
//   kOpenWriter    OpenWriter
//   kStreamWrite   a stream's Write that crosses a multiple of write_step_bytes (so a
//                  large file -- an S3 multipart upload -- has steps inside it)
//   kStreamClose   a stream's Close (the object is published)
//   kPut, kPutIfNotExists, kDelete (Delete, each path of DeleteMany, DeletePrefix),
//   kCopy, kRename (Rename, RenameIfNotExists)
// Reads (Head, List, OpenReader, Read...) are never steps.
//
// Thread-safe: the step counter and the log are guarded by one mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "lance/io/object_store.h"

namespace lance::testing {

enum class StoreStep : uint32_t {
  kOpenWriter = 1u << 0,
  kStreamWrite = 1u << 1,
  kStreamClose = 1u << 2,
  kPut = 1u << 3,
  kPutIfNotExists = 1u << 4,
  kDelete = 1u << 5,
  kCopy = 1u << 6,
  kRename = 1u << 7,
};
constexpr uint32_t kAllStoreSteps = 0xff;

/// \brief "open_writer", "stream_write", "stream_close", "put", "put_if_not_exists",
/// "delete", "copy", "rename".
std::string_view StoreStepName(StoreStep step);

enum class StoreFault {
  kNone,       ///< count and log only
  kFail,       ///< return IOError instead of making the call
  kTear,       ///< write a prefix of the bytes (a stream left unpublished), then IOError
  kFailAfter,  ///< make the call, then return IOError (the acknowledgement is lost)
  kKill,       ///< SIGKILL this process before the call
  kKillTear,   ///< write a prefix of the bytes, then SIGKILL
  kKillAfter,  ///< make the call, then SIGKILL
};

/// \brief "none", "fail", "tear", "fail_after", "kill", "kill_tear", "kill_after".
std::string_view StoreFaultName(StoreFault action);

/// \brief One step seen: its 1-based number among matching steps, kind and key.
struct StepRecord {
  int64_t index = 0;
  StoreStep step = StoreStep::kPut;
  std::string path;
};

struct FaultSpec {
  StoreFault action = StoreFault::kNone;
  /// \brief The 1-based index of the matching step that faults (0: none does).
  int64_t nth = 0;
  /// \brief Which steps count (StoreStep bits).
  uint32_t steps = kAllStoreSteps;
  /// \brief Only steps on keys containing this string count (all when empty).
  std::string path_filter;
  /// \brief A stream write is a step each time the stream's byte count crosses a
  /// multiple of this.
  int64_t write_step_bytes = 4 << 20;
  /// \brief Called (without the store's lock) just before a fault fires, e.g. to record
  /// a kill point durably.
  std::function<void(const StepRecord&, StoreFault)> on_fire;
};

class FaultStore : public io::ObjectStoreWrapper {
 public:
  explicit FaultStore(std::shared_ptr<io::ObjectStore> target)
      : io::ObjectStoreWrapper(std::move(target)) {}

  /// \brief Arms a new fault and starts counting (and logging) from zero.
  void Arm(FaultSpec spec);
  /// \brief No fault from now on; the counter and log are kept.
  void Disarm();
  /// \brief Matching steps seen since the last Arm.
  int64_t steps_seen() const;
  /// \brief True once the armed fault fired.
  bool fired() const;
  /// \brief The steps seen since the last Arm.
  std::vector<StepRecord> log() const;

  Result<std::unique_ptr<io::OutputStream>> OpenWriter(const std::string& path) override;
  Status Put(const std::string& path, std::string_view data) override;
  Status PutIfNotExists(const std::string& path, std::string_view data) override;
  Status Delete(const std::string& path) override;
  Status DeleteMany(const std::vector<std::string>& paths) override;
  Status DeletePrefix(const std::string& prefix) override;
  Status Copy(const std::string& src, const std::string& dst) override;
  Status Rename(const std::string& src, const std::string& dst) override;
  Status RenameIfNotExists(const std::string& src, const std::string& dst) override;

  /// \brief Counts a step; returns the action to take now (kNone for most steps).
  StoreFault Step(StoreStep step, const std::string& path);
  /// \brief The error an injected fault returns.
  static Status Injected(StoreStep step, const std::string& path, StoreFault action);

 private:
  // Runs `call` under the action of this step; `tear` writes the prefix a crash would
  // leave (may be empty).
  template <typename Call, typename Tear>
  Status Apply(StoreStep step, const std::string& path, Call&& call, Tear&& tear);
  // Writes the first half of `data` to a stream on `path` and leaves it unpublished
  // (killed: as a crash leaves it; otherwise aborted).
  void TearWrite(const std::string& path, std::string_view data, bool then_kill);

  mutable std::mutex mu_;
  FaultSpec spec_;
  int64_t seen_ = 0;
  bool fired_ = false;
  std::vector<StepRecord> log_;
};

/// \brief SIGKILLs the calling process (never returns).
[[noreturn]] void KillSelf();

/// \brief Registers `scheme` (once) in the default registry: "scheme://<name>/<path>"
/// resolves to the store installed under <name> by InstallFaultStore, with <path> as the
/// key. \return OK; the registry's error.
Status RegisterFaultScheme(const std::string& scheme);
/// \brief Installs `store` under `name` for RegisterFaultScheme's scheme (replacing any
/// earlier one of that name).
void InstallFaultStore(const std::string& name, std::shared_ptr<io::ObjectStore> store);

}  // namespace lance::testing
