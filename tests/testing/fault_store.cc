// SPDX-License-Identifier: Apache-2.0
#include "tests/testing/fault_store.h"

#include <signal.h>
#include <unistd.h>

#include <bit>
#include <iterator>
#include <map>
#include <utility>

#include "lance/io/object_store_registry.h"

namespace lance::testing {

std::string_view StoreStepName(StoreStep step) {
  // Indexed by the step's bit number.
  static constexpr std::string_view kNames[] = {
      "open_writer",       "stream_write", "stream_close", "put",
      "put_if_not_exists", "delete",       "copy",         "rename"};
  const auto bit = static_cast<uint32_t>(step);
  if (!std::has_single_bit(bit) || std::countr_zero(bit) >= std::ssize(kNames)) {
    return "?";
  }
  return kNames[std::countr_zero(bit)];
}

std::string_view StoreFaultName(StoreFault action) {
  // In the order of the enumerators.
  static constexpr std::string_view kNames[] = {
      "none", "fail", "tear", "fail_after", "kill", "kill_tear", "kill_after"};
  const auto index = static_cast<size_t>(action);
  return index < std::size(kNames) ? kNames[index] : "?";
}

void KillSelf() {
  ::kill(::getpid(), SIGKILL);
  // SIGKILL cannot be caught; should delivery be delayed, do not run on.
  for (;;) ::pause();
}

namespace {

bool IsKill(StoreFault a) {
  return a == StoreFault::kKill || a == StoreFault::kKillTear ||
         a == StoreFault::kKillAfter;
}

// A stream whose writes and close are steps of its store.
class FaultOutputStream : public io::OutputStream {
 public:
  FaultOutputStream(FaultStore* store, std::unique_ptr<io::OutputStream> inner,
                    int64_t step_bytes)
      : io::OutputStream(inner->path(), inner->uri()),
        store_(store),
        inner_(std::move(inner)),
        step_bytes_(step_bytes > 0 ? step_bytes : (int64_t{1} << 62)) {}
  ~FaultOutputStream() override { AbortIfNotClosed(); }

 protected:
  Status DoWrite(const void* data, int64_t length) override {
    const int64_t before = written_;
    written_ += length;
    if (before / step_bytes_ == written_ / step_bytes_) {
      return inner_->Write(data, length);
    }
    const StoreFault action = store_->Step(StoreStep::kStreamWrite, path());
    switch (action) {
      case StoreFault::kNone:
        return inner_->Write(data, length);
      case StoreFault::kFail:
        return FaultStore::Injected(StoreStep::kStreamWrite, path(), action);
      case StoreFault::kTear:
        (void)inner_->Write(data, length / 2);
        return FaultStore::Injected(StoreStep::kStreamWrite, path(), action);
      case StoreFault::kFailAfter: {
        Status st = inner_->Write(data, length);
        if (!st.ok()) return st;
        return FaultStore::Injected(StoreStep::kStreamWrite, path(), action);
      }
      case StoreFault::kKill:
        KillSelf();
      case StoreFault::kKillTear:
        (void)inner_->Write(data, length / 2);
        KillSelf();
      case StoreFault::kKillAfter:
        (void)inner_->Write(data, length);
        KillSelf();
    }
    return Status::OK();
  }

  Status DoClose() override {
    const StoreFault action = store_->Step(StoreStep::kStreamClose, path());
    switch (action) {
      case StoreFault::kNone:
        return inner_->Close();
      case StoreFault::kFail:
      case StoreFault::kTear:  // everything written, nothing published
        return FaultStore::Injected(StoreStep::kStreamClose, path(), action);
      case StoreFault::kFailAfter: {
        Status st = inner_->Close();
        if (!st.ok()) return st;
        return FaultStore::Injected(StoreStep::kStreamClose, path(), action);
      }
      case StoreFault::kKill:
      case StoreFault::kKillTear:
        KillSelf();
      case StoreFault::kKillAfter:
        (void)inner_->Close();
        KillSelf();
    }
    return Status::OK();
  }

  Status DoAbort() override { return inner_->Abort(); }

 private:
  FaultStore* store_;  // streams do not outlive the store in the tests
  std::unique_ptr<io::OutputStream> inner_;
  int64_t step_bytes_;
  int64_t written_ = 0;
};

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, std::shared_ptr<io::ObjectStore>>& Installed() {
  static auto* stores = new std::map<std::string, std::shared_ptr<io::ObjectStore>>();
  return *stores;
}

}  // namespace

void FaultStore::Arm(FaultSpec spec) {
  std::lock_guard lock(mu_);
  spec_ = std::move(spec);
  seen_ = 0;
  fired_ = false;
  log_.clear();
}

void FaultStore::Disarm() {
  std::lock_guard lock(mu_);
  spec_.action = StoreFault::kNone;
  spec_.nth = 0;
}

int64_t FaultStore::steps_seen() const {
  std::lock_guard lock(mu_);
  return seen_;
}

bool FaultStore::fired() const {
  std::lock_guard lock(mu_);
  return fired_;
}

std::vector<StepRecord> FaultStore::log() const {
  std::lock_guard lock(mu_);
  return log_;
}

StoreFault FaultStore::Step(StoreStep step, const std::string& path) {
  std::function<void(const StepRecord&, StoreFault)> on_fire;
  StepRecord record;
  StoreFault action = StoreFault::kNone;
  {
    std::lock_guard lock(mu_);
    if ((spec_.steps & static_cast<uint32_t>(step)) == 0) return StoreFault::kNone;
    if (!spec_.path_filter.empty() && path.find(spec_.path_filter) == std::string::npos) {
      return StoreFault::kNone;
    }
    ++seen_;
    record = StepRecord{seen_, step, path};
    log_.push_back(record);
    if (spec_.action == StoreFault::kNone || seen_ != spec_.nth) {
      return StoreFault::kNone;
    }
    fired_ = true;
    action = spec_.action;
    on_fire = spec_.on_fire;
  }
  if (on_fire) on_fire(record, action);
  return action;
}

Status FaultStore::Injected(StoreStep step, const std::string& path, StoreFault action) {
  return Status::IOError("injected fault (" + std::string(StoreFaultName(action)) +
                         ") at " + std::string(StoreStepName(step)) + " of '" + path +
                         "'");
}

void FaultStore::TearWrite(const std::string& path, std::string_view data,
                           bool then_kill) {
  auto stream = target()->OpenWriter(path);
  if (stream.ok()) {
    (void)(*stream)->Write(data.substr(0, data.size() / 2));
    if (then_kill) KillSelf();
    (void)(*stream)->Abort();
  }
  if (then_kill) KillSelf();
}

template <typename Call, typename Tear>
Status FaultStore::Apply(StoreStep step, const std::string& path, Call&& call,
                         Tear&& tear) {
  const StoreFault action = Step(step, path);
  switch (action) {
    case StoreFault::kNone:
      return call();
    case StoreFault::kFail:
      return Injected(step, path, action);
    case StoreFault::kTear:
      tear(false);
      return Injected(step, path, action);
    case StoreFault::kFailAfter: {
      Status st = call();
      if (!st.ok()) return st;
      return Injected(step, path, action);
    }
    case StoreFault::kKill:
      KillSelf();
    case StoreFault::kKillTear:
      tear(true);
      KillSelf();
    case StoreFault::kKillAfter:
      (void)call();
      KillSelf();
  }
  return Status::OK();
}

Result<std::unique_ptr<io::OutputStream>> FaultStore::OpenWriter(
    const std::string& path) {
  const StoreFault action = Step(StoreStep::kOpenWriter, path);
  if (IsKill(action)) {
    if (action == StoreFault::kKillAfter) (void)target()->OpenWriter(path);
    KillSelf();
  }
  if (action == StoreFault::kFail || action == StoreFault::kTear) {
    return Injected(StoreStep::kOpenWriter, path, action);
  }
  auto inner = target()->OpenWriter(path);
  if (!inner.ok()) return inner.status();
  if (action == StoreFault::kFailAfter) {
    (void)(*inner)->Abort();
    return Injected(StoreStep::kOpenWriter, path, action);
  }
  int64_t step_bytes = 0;
  {
    std::lock_guard lock(mu_);
    step_bytes = spec_.write_step_bytes;
  }
  return std::unique_ptr<io::OutputStream>(
      new FaultOutputStream(this, std::move(inner).MoveValueUnsafe(), step_bytes));
}

Status FaultStore::Put(const std::string& path, std::string_view data) {
  return Apply(
      StoreStep::kPut, path, [&] { return target()->Put(path, data); },
      [&](bool kill) { TearWrite(path, data, kill); });
}

Status FaultStore::PutIfNotExists(const std::string& path, std::string_view data) {
  return Apply(
      StoreStep::kPutIfNotExists, path,
      [&] { return target()->PutIfNotExists(path, data); },
      [&](bool kill) { TearWrite(path, data, kill); });
}

Status FaultStore::Delete(const std::string& path) {
  return Apply(
      StoreStep::kDelete, path, [&] { return target()->Delete(path); }, [](bool) {});
}

Status FaultStore::DeleteMany(const std::vector<std::string>& paths) {
  // Not the target's: each path is a step of this store's Delete.
  return ObjectStore::DeleteMany(paths);
}

Status FaultStore::DeletePrefix(const std::string& prefix) {
  return Apply(
      StoreStep::kDelete, prefix, [&] { return target()->DeletePrefix(prefix); },
      [](bool) {});
}

Status FaultStore::Copy(const std::string& src, const std::string& dst) {
  return Apply(
      StoreStep::kCopy, dst, [&] { return target()->Copy(src, dst); }, [](bool) {});
}

Status FaultStore::Rename(const std::string& src, const std::string& dst) {
  return Apply(
      StoreStep::kRename, dst, [&] { return target()->Rename(src, dst); }, [](bool) {});
}

Status FaultStore::RenameIfNotExists(const std::string& src, const std::string& dst) {
  return Apply(
      StoreStep::kRename, dst, [&] { return target()->RenameIfNotExists(src, dst); },
      [](bool) {});
}

Status RegisterFaultScheme(const std::string& scheme) {
  auto& registry = io::ObjectStoreRegistry::Default();
  if (registry.IsRegistered(scheme)) return Status::OK();
  return registry.Register(
      scheme,
      [scheme](const io::Uri& root, const io::StorageOptions&,
               const std::shared_ptr<io::CredentialsSource>&)
          -> Result<std::shared_ptr<io::ObjectStore>> {
        std::lock_guard lock(RegistryMutex());
        auto it = Installed().find(root.authority);
        if (it == Installed().end()) {
          return Status::NotFound("no fault store is installed as '" + root.authority +
                                  "' for " + scheme + "://");
        }
        return it->second;
      });
}

void InstallFaultStore(const std::string& name, std::shared_ptr<io::ObjectStore> store) {
  {
    std::lock_guard lock(RegistryMutex());
    Installed()[name] = std::move(store);
  }
  // Resolutions cached for an earlier store of that name must not be handed out.
  io::ObjectStoreRegistry::Default().ClearCache();
}

}  // namespace lance::testing
