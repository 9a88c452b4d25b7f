// SPDX-License-Identifier: Apache-2.0

#include "lance/io/memory_object_store.h"

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "io/io_util.h"
#include "lance/macros.h"

namespace lance::io {

using internal::PrefixSuccessor;
using internal::Quoted;

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The entry of the object at `path` (under the caller's lock), or NotFound "When <doing>
// <uri>: no such object".
template <typename Objects>
Result<typename Objects::iterator> FindObject(Objects& objects, const std::string& path,
                                              const std::string& uri,
                                              std::string_view doing) {
  auto it = objects.find(path);
  if (it == objects.end()) {
    return Status::NotFound("When " + std::string(doing) + " " + Quoted(uri) +
                            ": no such object");
  }
  return it;
}

enum class Transfer { kCopy, kRename, kRenameIfNotExists };

// Copy, Rename and RenameIfNotExists: both paths checked, then one lookup of `src` and
// the update under one exclusive lock of `state`, the state of `store`.
template <typename State>
Status TransferObject(const ObjectStore& store, State& state, const std::string& src,
                      const std::string& dst, Transfer how) {
  auto uri = [&store](const std::string& path) { return store.ObjectUri(path); };
  LANCE_RETURN_NOT_OK(ValidateObjectPath(src));
  LANCE_RETURN_NOT_OK(ValidateObjectPath(dst));
  std::unique_lock lock(state.mu);
  auto& objects = state.objects;
  LANCE_ASSIGN_OR_RAISE(auto it,
                        FindObject(objects, src, uri(src),
                                   how == Transfer::kCopy ? "copying from" : "renaming"));
  if (how == Transfer::kCopy) {
    // Buffers are immutable, so the copy can share the bytes.
    objects[dst] = {it->second.data, NowMillis()};
    return Status::OK();
  }
  if (how == Transfer::kRenameIfNotExists && objects.count(dst) > 0) {
    return Status::AlreadyExists("When renaming " + Quoted(uri(src)) + " onto " +
                                 Quoted(uri(dst)) + ": an object already exists there");
  }
  if (src == dst) return Status::OK();
  auto object = std::move(it->second);
  objects.erase(it);
  objects[dst] = std::move(object);
  return Status::OK();
}

// The process-wide named instances. Leaked on purpose: stores may be used from static
// destructors of other objects, so this map must outlive them all.
struct NamedStores {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<MemoryObjectStore>> stores;
};
NamedStores& GetNamedStores() {
  static auto* named = new NamedStores();
  return *named;
}

class MemoryReader : public RandomAccessReader {
 public:
  MemoryReader(BufferPtr data, std::string path, std::string uri)
      : RandomAccessReader(std::move(path), std::move(uri), data->size()),
        data_(std::move(data)) {}

 protected:
  Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) override {
    // The stored buffer is immutable and shared, so a slice is both zero-copy and
    // thread-safe.
    return Buffer::Slice(data_, offset, length);
  }

 private:
  BufferPtr data_;
};

}  // namespace

class MemoryObjectStore::Writer : public OutputStream {
 public:
  Writer(std::shared_ptr<State> state, std::string path, std::string uri)
      : OutputStream(std::move(path), std::move(uri)), state_(std::move(state)) {}
  ~Writer() override { AbortIfNotClosed(); }

 protected:
  Status DoWrite(const void* data, int64_t length) override {
    data_.append(static_cast<const char*>(data), static_cast<size_t>(length));
    return Status::OK();
  }
  Status DoClose() override {
    BufferPtr buffer = Buffer::FromString(std::move(data_));
    data_.clear();
    std::unique_lock lock(state_->mu);
    state_->objects[path()] = Object{std::move(buffer), NowMillis()};
    return Status::OK();
  }
  Status DoAbort() override {
    std::string().swap(data_);
    return Status::OK();
  }

 private:
  std::shared_ptr<State> state_;
  std::string data_;
};

MemoryObjectStore::MemoryObjectStore(std::string name)
    : name_(std::move(name)),
      uri_("memory://" + name_),
      state_(std::make_shared<State>()) {}

MemoryObjectStore::~MemoryObjectStore() = default;

std::shared_ptr<MemoryObjectStore> MemoryObjectStore::Named(const std::string& name) {
  NamedStores& named = GetNamedStores();
  std::lock_guard lock(named.mu);
  auto& slot = named.stores[name];
  if (!slot) slot = std::make_shared<MemoryObjectStore>(name);
  return slot;
}

bool MemoryObjectStore::DropNamed(const std::string& name) {
  NamedStores& named = GetNamedStores();
  std::lock_guard lock(named.mu);
  return named.stores.erase(name) > 0;
}

std::string MemoryObjectStore::ToString() const {
  return "MemoryObjectStore(" + uri_ + ")";
}

int64_t MemoryObjectStore::num_objects() const {
  std::shared_lock lock(state_->mu);
  return static_cast<int64_t>(state_->objects.size());
}

int64_t MemoryObjectStore::total_bytes() const {
  std::shared_lock lock(state_->mu);
  int64_t total = 0;
  for (const auto& [key, object] : state_->objects) total += object.data->size();
  return total;
}

Result<ObjectMeta> MemoryObjectStore::Head(const std::string& path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  std::shared_lock lock(state_->mu);
  LANCE_ASSIGN_OR_RAISE(auto it, FindObject(state_->objects, path, ObjectUri(path),
                                            "getting the metadata of"));
  return ObjectMeta{path, it->second.data->size(), it->second.last_modified};
}

Result<ListResult> MemoryObjectStore::List(const std::string& prefix,
                                           const ListOptions& options) {
  LANCE_ASSIGN_OR_RAISE(const int64_t max_keys,
                        internal::ListPageSize(prefix, options, ObjectUri(prefix)));
  const std::string& token = options.continuation_token;
  const std::string& after = std::max(options.start_after, token);

  ListResult result;
  std::shared_lock lock(state_->mu);
  const auto& objects = state_->objects;
  auto it = after >= prefix ? objects.upper_bound(after) : objects.lower_bound(prefix);
  int64_t emitted = 0;
  std::string last;
  while (it != objects.end() && StartsWith(it->first, prefix)) {
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    size_t slash = options.recursive ? std::string_view::npos : rest.find('/');
    if (slash != std::string_view::npos) {
      // Roll every key below this prefix into one entry and jump past them all, so a
      // page costs O(entries returned), not O(keys below the prefix).
      std::string common = prefix + std::string(rest.substr(0, slash + 1));
      std::string successor = PrefixSuccessor(common);
      auto next = successor.empty() ? objects.end() : objects.lower_bound(successor);
      // The token may name a common prefix returned on the previous page.
      if (!token.empty() && common <= token) {
        it = next;
        continue;
      }
      if (emitted == max_keys) {
        result.next_token = last;
        break;
      }
      last = common;
      result.common_prefixes.push_back(std::move(common));
      ++emitted;
      it = next;
      continue;
    }
    if (emitted == max_keys) {
      result.next_token = last;
      break;
    }
    last = it->first;
    result.objects.push_back(
        ObjectMeta{it->first, it->second.data->size(), it->second.last_modified});
    ++emitted;
    ++it;
  }
  return result;
}

Result<std::shared_ptr<RandomAccessReader>> MemoryObjectStore::OpenReader(
    const std::string& path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  BufferPtr data;
  {
    std::shared_lock lock(state_->mu);
    LANCE_ASSIGN_OR_RAISE(auto it,
                          FindObject(state_->objects, path, ObjectUri(path), "reading"));
    data = it->second.data;
  }
  // Read (ObjectStore's: the whole range of a reader) is then a slice of the stored
  // buffer, shared without copying.
  return std::shared_ptr<RandomAccessReader>(
      std::make_shared<MemoryReader>(std::move(data), path, ObjectUri(path)));
}

Result<std::unique_ptr<OutputStream>> MemoryObjectStore::OpenWriter(
    const std::string& path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  return std::unique_ptr<OutputStream>(new Writer(state_, path, ObjectUri(path)));
}

Status MemoryObjectStore::PutIfNotExists(const std::string& path, std::string_view data) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  // Copy before locking: the critical section stays a lookup plus an insert.
  BufferPtr buffer = Buffer::FromString(std::string(data));
  std::unique_lock lock(state_->mu);
  auto [it, inserted] = state_->objects.try_emplace(path, Object{buffer, NowMillis()});
  if (!inserted) {
    return Status::AlreadyExists("When creating " + Quoted(ObjectUri(path)) +
                                 ": an object already exists there");
  }
  return Status::OK();
}

Status MemoryObjectStore::Delete(const std::string& path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  std::unique_lock lock(state_->mu);
  state_->objects.erase(path);
  return Status::OK();
}

Status MemoryObjectStore::Copy(const std::string& src, const std::string& dst) {
  return TransferObject(*this, *state_, src, dst, Transfer::kCopy);
}

Status MemoryObjectStore::Rename(const std::string& src, const std::string& dst) {
  return TransferObject(*this, *state_, src, dst, Transfer::kRename);
}

Status MemoryObjectStore::RenameIfNotExists(const std::string& src,
                                            const std::string& dst) {
  return TransferObject(*this, *state_, src, dst, Transfer::kRenameIfNotExists);
}

}  // namespace lance::io
