// SPDX-License-Identifier: Apache-2.0

#include "lance/io/local_object_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "io/io_util.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

using internal::PrefixSuccessor;
using internal::Quoted;

namespace {

// Small writes are coalesced so that encoders emitting many tiny pieces do not turn
// into one syscall each; anything this large or larger goes straight to the file.
constexpr size_t kWriteBufferSize = 256 * 1024;
// Chunk size of Copy: large enough to amortise syscalls, small enough to bound memory.
constexpr int64_t kCopyChunkSize = 1 << 20;
// Creating a temporary file can race with DeletePrefix removing its (empty) directory,
// and random names can collide; both are retried a few times before giving up.
constexpr int kTempFileAttempts = 16;

// strerror is not thread-safe and std::system_category().message may use it; the GNU and
// XSI strerror_r variants differ in return type, so accept both.
[[maybe_unused]] const char* PickMessage(int ret, const char* buf) {
  return ret == 0 ? buf : "unknown error";
}
[[maybe_unused]] const char* PickMessage(const char* ret, const char*) { return ret; }

std::string ErrnoMessage(int err) {
  char buf[256] = {0};
  std::string out = PickMessage(::strerror_r(err, buf, sizeof(buf)), buf);
  out.append(" (errno ");
  out.append(std::to_string(err));
  out.push_back(')');
  return out;
}

// Every failure of a system call carries its errno as typed detail (callers decide on
// ErrnoDetail, never on the message).
Status WithErrno(const Status& st, int err) {
  return st.WithDetail(std::make_shared<ErrnoDetail>(err));
}

// One mapping of errno values to codes, so that every operation reports a missing object
// as NotFound and a create-only collision as AlreadyExists.
Status ErrnoToStatus(int err, std::string_view action, std::string_view uri) {
  std::string msg = "When ";
  msg.append(action);
  msg.append(" ");
  msg.append(Quoted(uri));
  msg.append(": ");
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return WithErrno(Status::NotFound(msg + "no such object"), err);
    case EEXIST:
      return WithErrno(Status::AlreadyExists(msg + "an object already exists there"),
                       err);
    case EAGAIN:
    case EBUSY:
    case EINTR:
      return WithErrno(Status::IOError(msg + ErrnoMessage(err), /*retryable=*/true), err);
    default:
      return WithErrno(Status::IOError(msg + ErrnoMessage(err)), err);
  }
}

int64_t MtimeMillis(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 +
         static_cast<int64_t>(st.st_mtim.tv_nsec) / 1000000;
}

bool IsTempName(std::string_view name) {
  return name.substr(0, LocalObjectStore::kTempFilePrefix.size()) ==
         LocalObjectStore::kTempFilePrefix;
}

std::string ParentDir(const std::string& file_path) {
  size_t pos = file_path.rfind('/');
  if (pos == 0) return "/";
  return file_path.substr(0, pos);
}

// Owns a file descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Closes and reports the close error, which for NFS-like file systems can be the first
  // sign that written data did not reach the server.
  int Close() {
    if (fd_ < 0) return 0;
    int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }
  void Reset() { (void)Close(); }

 private:
  int fd_ = -1;
};

std::string UniqueTempName() {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t kSeed = [] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }();
  const uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  char buf[80];
  std::snprintf(buf, sizeof(buf), "%x-%llx-%llx", static_cast<unsigned>(::getpid()),
                static_cast<unsigned long long>(kSeed),  // NOLINT(runtime/int)
                static_cast<unsigned long long>(n));     // NOLINT(runtime/int)
  return std::string(LocalObjectStore::kTempFilePrefix) + buf;
}

Status EnsureDirectory(const std::string& dir, std::string_view uri) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return Status::IOError("When creating the parent directory of " + Quoted(uri) + ": " +
                           ec.message());
  }
  return Status::OK();
}

// Creates an exclusive temporary file next to `final_path` (same directory, hence same
// file system, so the final rename/link is atomic).
Result<UniqueFd> CreateTempFile(const std::string& final_path, std::string_view uri,
                                std::string* tmp_path) {
  const std::string dir = ParentDir(final_path);
  int last_err = 0;
  for (int attempt = 0; attempt < kTempFileAttempts; ++attempt) {
    *tmp_path = dir + "/" + UniqueTempName();
    int fd = ::open(tmp_path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return UniqueFd(fd);
    last_err = errno;
    if (last_err == EINTR || last_err == EEXIST) continue;
    if (last_err == ENOTDIR) {
      // Would otherwise read as NotFound, which makes no sense for a write.
      tmp_path->clear();
      return WithErrno(
          Status::IOError("When creating a temporary file for " + Quoted(uri) +
                          ": a parent of the key is an object, not a directory"),
          last_err);
    }
    if (last_err == ENOENT) {
      // Directories are created lazily: the common case (directory exists) costs no
      // extra syscall.
      LANCE_RETURN_NOT_OK(EnsureDirectory(dir, uri));
      continue;
    }
    break;
  }
  tmp_path->clear();
  return ErrnoToStatus(last_err, "creating a temporary file for", uri);
}

Status WriteAll(int fd, const uint8_t* data, size_t length, std::string_view uri) {
  while (length > 0) {
    ssize_t n = ::write(fd, data, length);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoToStatus(errno, "writing", uri);
    }
    data += n;
    length -= static_cast<size_t>(n);
  }
  return Status::OK();
}

// pread until `length` bytes or end of file; returns the number of bytes read.
Result<int64_t> PreadAll(int fd, uint8_t* out, int64_t offset, int64_t length,
                         std::string_view uri) {
  int64_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(fd, out + done, static_cast<size_t>(length - done),
                        static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoToStatus(errno, "reading", uri)
          .WithContext("reading at offset " + std::to_string(offset + done));
    }
    if (n == 0) break;  // the file shrank after it was opened
    done += n;
  }
  return done;
}

Status FsyncDirectory(const std::string& dir, std::string_view uri) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoToStatus(errno, "syncing the directory of", uri);
  if (::fsync(fd.get()) != 0)
    return ErrnoToStatus(errno, "syncing the directory of", uri);
  return Status::OK();
}

// Entry names of `dir` except "." and "..". A missing directory yields NotFound.
Result<std::vector<std::string>> ReadDirNames(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return WithErrno(Status::NotFound(dir), err);
    return WithErrno(Status::IOError("cannot open directory: " + ErrnoMessage(err)), err);
  }
  std::vector<std::string> names;
  while (true) {
    errno = 0;
    struct dirent* ent = ::readdir(d);
    if (ent == nullptr) {
      int err = errno;
      ::closedir(d);
      if (err != 0) {
        return WithErrno(Status::IOError("cannot read directory: " + ErrnoMessage(err)),
                         err);
      }
      break;
    }
    std::string_view name = ent->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  return names;
}

int RenameNoReplace(const char* from, const char* to) {
#if defined(__linux__) && defined(RENAME_NOREPLACE)
  if (::renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
  int err = errno;
  // Some file systems (older overlayfs, NFS, FUSE) do not implement the flag; a hard
  // link is the portable create-only primitive.
  if (err != EINVAL && err != ENOSYS && err != ENOTSUP && err != EOPNOTSUPP) return err;
#endif
  if (::link(from, to) != 0) {
    int err = errno;
    if (err == EPERM || err == ENOTSUP || err == EOPNOTSUPP) return ENOTSUP;
    return err;
  }
  ::unlink(from);
  return 0;
}

// -- Reader -----------------------------------------------------------------------------

class LocalReader : public RandomAccessReader {
 public:
  LocalReader(UniqueFd fd, std::string path, std::string uri, int64_t size)
      : RandomAccessReader(std::move(path), std::move(uri), size), fd_(std::move(fd)) {}

 protected:
  Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) override {
    if (length >= kMapThreshold) {
      if (BufferPtr mapped = TryMap(offset, length)) return mapped;
    }
    // pread fills the buffer, so zeroing it first would only cost time (it was a
    // quarter of a page-cache scan).
    LANCE_ASSIGN_OR_RAISE(BufferPtr buffer, Buffer::AllocateForOverwrite(length));
    LANCE_ASSIGN_OR_RAISE(
        int64_t n, PreadAll(fd_.get(), buffer->mutable_data(), offset, length, uri()));
    if (n < length) {
      std::memset(buffer->mutable_data() + n, 0, static_cast<size_t>(length - n));
      buffer->Resize(n);
    }
    return buffer;
  }

 private:
  // Large reads map the file instead of copying it: the pages come straight from the page
  // cache (zero-copy), and touching them costs a minor fault per 64 KiB (the kernel maps
  // neighbours too) where a fresh buffer costs a zero-filled fault per 4 KiB plus a copy:
  // most of a first scan's time in a process. Only ranges inside the file's current size
  // are mapped (fstat here), so a truncated or lying file gets the short-read error of
  // pread, never SIGBUS; what remains is a file truncated by someone else while its
  // pages are in use, which Lance's immutable data files never are.
  BufferPtr TryMap(int64_t offset, int64_t length) const {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0 || offset < 0 || offset + length > st.st_size) {
      return nullptr;
    }
    static const int64_t kPageSize =
        ::sysconf(_SC_PAGESIZE) > 0 ? ::sysconf(_SC_PAGESIZE) : 4096;
    const int64_t start = offset / kPageSize * kPageSize;
    const auto span = static_cast<size_t>(offset + length - start);
    void* base = ::mmap(nullptr, span, PROT_READ, MAP_SHARED, fd_.get(), start);
    if (base == MAP_FAILED) return nullptr;  // fall back to pread
    std::shared_ptr<const void> owner(
        base, [span](const void* p) { ::munmap(const_cast<void*>(p), span); });
    return std::make_shared<Buffer>(static_cast<const uint8_t*>(base) + (offset - start),
                                    length, std::move(owner));
  }

  static constexpr int64_t kMapThreshold = int64_t{1} << 20;

  UniqueFd fd_;  // pread needs no shared file position, so one fd serves all threads
};

// -- Writer -----------------------------------------------------------------------------

class LocalOutputStream : public OutputStream {
 public:
  LocalOutputStream(std::string key, std::string uri, std::string final_path,
                    std::string tmp_path, UniqueFd fd, bool fsync)
      : OutputStream(std::move(key), std::move(uri)),
        final_path_(std::move(final_path)),
        tmp_path_(std::move(tmp_path)),
        fd_(std::move(fd)),
        fsync_(fsync) {}

  ~LocalOutputStream() override { AbortIfNotClosed(); }

 protected:
  Status DoWrite(const void* data, int64_t length) override {
    const auto* bytes = static_cast<const uint8_t*>(data);
    const auto n = static_cast<size_t>(length);
    if (buffer_.size() + n <= kWriteBufferSize) {
      buffer_.append(reinterpret_cast<const char*>(bytes), n);
      return Status::OK();
    }
    LANCE_RETURN_NOT_OK(Flush());
    if (n >= kWriteBufferSize) {
      LANCE_RETURN_NOT_OK(WriteAll(fd_.get(), bytes, n, uri()));
      written_ += length;
      StartWriteback();
      return Status::OK();
    }
    buffer_.assign(reinterpret_cast<const char*>(bytes), n);
    return Status::OK();
  }

  Status DoClose() override {
    LANCE_RETURN_NOT_OK(Flush());
    if (fsync_ && ::fsync(fd_.get()) != 0) return ErrnoToStatus(errno, "syncing", uri());
    if (int err = fd_.Close(); err != 0) return ErrnoToStatus(err, "closing", uri());
    if (::rename(tmp_path_.c_str(), final_path_.c_str()) != 0) {
      int err = errno;
      if (err == EISDIR || err == ENOTEMPTY || err == EEXIST) {
        return WithErrno(Status::IOError("When publishing " + Quoted(uri()) +
                                         ": a directory exists at that key"),
                         err);
      }
      return ErrnoToStatus(err, "publishing", uri());
    }
    tmp_path_.clear();
    if (fsync_) return FsyncDirectory(ParentDir(final_path_), uri());
    return Status::OK();
  }

  Status DoAbort() override {
    fd_.Reset();
    buffer_.clear();
    if (tmp_path_.empty()) return Status::OK();
    std::string tmp = std::move(tmp_path_);
    tmp_path_.clear();
    if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) {
      return ErrnoToStatus(errno, "removing the temporary file of", uri());
    }
    return Status::OK();
  }

 private:
  Status Flush() {
    if (buffer_.empty()) return Status::OK();
    Status st = WriteAll(fd_.get(), reinterpret_cast<const uint8_t*>(buffer_.data()),
                         buffer_.size(), uri());
    written_ += static_cast<int64_t>(buffer_.size());
    buffer_.clear();
    if (st.ok()) StartWriteback();
    return st;
  }

  // With fsync on, asks the kernel to start writing back what has been written so far,
  // every kWritebackChunk bytes, without waiting (RocksDB's bytes_per_sync): the disk
  // works while the encoder produces the rest, and the fsync at Close only waits for the
  // tail. Without it, a 500 MB file would hit the disk all at once at Close. Advisory:
  // an error here changes nothing (the fsync at Close reports real failures).
  void StartWriteback() {
    if (!fsync_ || written_ - writeback_started_ < kWritebackChunk) return;
#ifdef __linux__
    (void)::sync_file_range(fd_.get(), writeback_started_, written_ - writeback_started_,
                            SYNC_FILE_RANGE_WRITE);
#endif
    writeback_started_ = written_;
  }

  static constexpr int64_t kWritebackChunk = int64_t{8} << 20;

  std::string final_path_;
  std::string tmp_path_;  // empty once published or removed
  UniqueFd fd_;
  bool fsync_;
  std::string buffer_;
  int64_t written_ = 0;            // bytes handed to the kernel
  int64_t writeback_started_ = 0;  // bytes whose writeback was started
};

// Opens the file of an object for reading and stats it into `*st`; a directory is
// NotFound. Errors say what the caller was `doing` ("reading", "copying from").
Result<UniqueFd> OpenObjectFile(const std::string& file, const std::string& uri,
                                std::string_view doing, struct stat* st) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoToStatus(errno, doing, uri);
  if (::fstat(fd.get(), st) != 0) return ErrnoToStatus(errno, doing, uri);
  if (!S_ISREG(st->st_mode)) {
    return Status::NotFound("When " + std::string(doing) + " " + Quoted(uri) +
                            ": it is a directory, not an object");
  }
  return fd;
}

// Before renaming `src` onto `dst`: the source must be an object (rename(2) would happily
// move a whole directory; only objects may move), and the target's directory must exist.
Status PrepareObjectMove(const LocalObjectStore& store, const std::string& src,
                         const std::string& dst) {
  struct stat st;
  if (::stat(store.FilePath(src).c_str(), &st) != 0) {
    int err = errno;
    return ErrnoToStatus(err, "renaming", store.DisplayPath(src));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::NotFound("When renaming " + Quoted(store.DisplayPath(src)) +
                            ": it is a directory, not an object");
  }
  return EnsureDirectory(ParentDir(store.FilePath(dst)), store.DisplayPath(dst));
}

}  // namespace

// -- LocalObjectStore -------------------------------------------------------------------

struct LocalObjectStore::Entry {
  std::string key;
  bool is_prefix = false;
  int64_t size = 0;
  int64_t last_modified = 0;
};

Result<std::shared_ptr<LocalObjectStore>> LocalObjectStore::Make(
    const std::string& root_dir, LocalObjectStoreOptions options) {
  LANCE_PRECHECK(!root_dir.empty(),
                 "the root directory of a local object store is empty");
  std::filesystem::path root(root_dir);
  if (root.is_relative()) {
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (ec) {
      return Status::IOError("When resolving the relative directory " + Quoted(root_dir) +
                             ": cannot determine the working directory: " + ec.message());
    }
    root = cwd / root;
  }
  std::string normal = root.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return std::make_shared<LocalObjectStore>(std::move(normal), options);
}

LocalObjectStore::LocalObjectStore(std::string root_dir, LocalObjectStoreOptions options)
    : root_(std::move(root_dir)), uri_("file://" + root_), options_(options) {}

std::string LocalObjectStore::ToString() const {
  return "LocalObjectStore(" + uri_ + ")";
}

std::string LocalObjectStore::FilePath(std::string_view key) const {
  std::string out = root_;
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(key);
  return out;
}

Status LocalObjectStore::CheckKey(const std::string& path) const {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  // Listing skips every entry with the reserved prefix, directories included, so such
  // a segment anywhere would make the object invisible.
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (IsTempName(std::string_view(path).substr(start, end - start))) {
      return Status::Invalid("object key " + Quoted(path) +
                             " uses the reserved prefix '" +
                             std::string(kTempFilePrefix) + "' of temporary files");
    }
    start = end + 1;
  }
  return Status::OK();
}

Result<ObjectMeta> LocalObjectStore::Head(const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path));
  struct stat st;
  if (::stat(FilePath(path).c_str(), &st) != 0) {
    int err = errno;
    return ErrnoToStatus(err, "getting the metadata of", DisplayPath(path));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::NotFound("When getting the metadata of " + Quoted(DisplayPath(path)) +
                            ": it is a directory, not an object");
  }
  return ObjectMeta{path, static_cast<int64_t>(st.st_size), MtimeMillis(st)};
}

Status LocalObjectStore::CollectEntries(const std::string& prefix, bool recursive,
                                        std::vector<Entry>* entries) const {
  // The prefix splits into a directory that exists on disk and a partial name that
  // filters its entries: "a/b" -> directory "a", names starting with "b".
  size_t slash = prefix.rfind('/');
  const std::string dir_key = slash == std::string::npos ? "" : prefix.substr(0, slash);
  const std::string filter =
      slash == std::string::npos ? prefix : prefix.substr(slash + 1);
  const std::string base_dir = dir_key.empty() ? root_ : FilePath(dir_key);
  const std::string key_base = dir_key.empty() ? "" : dir_key + "/";

  // Following symlinks matches what reads see, but a link to an ancestor would recurse
  // forever, so the walk skips directories already on its current path.
  std::vector<std::pair<dev_t, ino_t>> ancestors;
  auto walk = [&](auto&& self, const std::string& dir, const std::string& key_prefix,
                  std::string_view name_filter, bool descend) -> Status {
    Result<std::vector<std::string>> names = ReadDirNames(dir);
    if (!names.ok()) {
      if (names.status().IsNotFound()) return Status::OK();  // gone: nothing to list
      return names.status().WithContext("listing " + Quoted(DisplayPath(key_prefix)));
    }
    for (const std::string& name : *names) {
      if (IsTempName(name)) continue;
      if (name.compare(0, name_filter.size(), name_filter) != 0) continue;
      const std::string full = StrCat(dir, dir.back() == '/' ? "" : "/", name);
      struct stat st;
      if (::stat(full.c_str(), &st) != 0)
        continue;  // deleted meanwhile, or dangling link
      std::string key = key_prefix + name;
      if (S_ISREG(st.st_mode)) {
        entries->push_back(Entry{std::move(key), false, static_cast<int64_t>(st.st_size),
                                 MtimeMillis(st)});
      } else if (S_ISDIR(st.st_mode)) {
        if (!descend) {
          entries->push_back(Entry{key + "/", true, 0, 0});
          continue;
        }
        auto id = std::make_pair(st.st_dev, st.st_ino);
        if (std::find(ancestors.begin(), ancestors.end(), id) != ancestors.end())
          continue;
        ancestors.push_back(id);
        Status st_walk = self(self, full, key + "/", std::string_view(), true);
        ancestors.pop_back();
        LANCE_RETURN_NOT_OK(st_walk);
      }
    }
    return Status::OK();
  };
  struct stat base_st;
  if (::stat(base_dir.c_str(), &base_st) == 0) {
    ancestors.emplace_back(base_st.st_dev, base_st.st_ino);
  }
  return walk(walk, base_dir, key_base, filter, recursive);
}

Result<ListResult> LocalObjectStore::List(const std::string& prefix,
                                          const ListOptions& options) {
  LANCE_ASSIGN_OR_RAISE(const int64_t max_keys,
                        internal::ListPageSize(prefix, options, DisplayPath(prefix)));
  std::vector<Entry> entries;
  LANCE_RETURN_NOT_OK(CollectEntries(prefix, options.recursive, &entries));
  // Byte order, as S3 returns keys; a common prefix sorts just before the keys it
  // stands for, so objects and prefixes interleave exactly as on S3.
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.key < b.key; });

  ListResult result;
  int64_t emitted = 0;
  std::string last;
  for (Entry& entry : entries) {
    if (!options.continuation_token.empty() && entry.key <= options.continuation_token) {
      continue;
    }
    if (!options.start_after.empty()) {
      // A common prefix stays if any key below it could be after start_after.
      const bool before = entry.is_prefix
                              ? PrefixSuccessor(entry.key) <= options.start_after
                              : entry.key <= options.start_after;
      if (before) continue;
    }
    if (emitted == max_keys) {
      result.next_token = last;
      break;
    }
    last = entry.key;
    ++emitted;
    if (entry.is_prefix) {
      result.common_prefixes.push_back(std::move(entry.key));
    } else {
      result.objects.push_back(
          ObjectMeta{std::move(entry.key), entry.size, entry.last_modified});
    }
  }
  return result;
}

Result<std::shared_ptr<RandomAccessReader>> LocalObjectStore::OpenReader(
    const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path));
  const std::string uri = DisplayPath(path);
  UniqueFd fd(::open(FilePath(path).c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoToStatus(errno, "opening for reading", uri);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return ErrnoToStatus(errno, "opening for reading", uri);
  if (!S_ISREG(st.st_mode)) {
    return Status::NotFound("When opening " + Quoted(uri) +
                            " for reading: it is a directory, not an object");
  }
  return std::shared_ptr<RandomAccessReader>(std::make_shared<LocalReader>(
      std::move(fd), path, uri, static_cast<int64_t>(st.st_size)));
}

Result<BufferPtr> LocalObjectStore::Read(const std::string& path) {
  // Same as the default, minus a shared_ptr and a virtual call: Read of small files
  // (manifests, deletion files) is on the hot path of opening a dataset.
  LANCE_RETURN_NOT_OK(CheckKey(path));
  const std::string uri = DisplayPath(path);
  struct stat st;
  LANCE_ASSIGN_OR_RAISE(UniqueFd fd, OpenObjectFile(FilePath(path), uri, "reading", &st));
  const auto size = static_cast<int64_t>(st.st_size);
  if (size == 0) return Buffer::FromString(std::string());
  LANCE_ASSIGN_OR_RAISE(BufferPtr buffer, Buffer::Allocate(size));
  LANCE_ASSIGN_OR_RAISE(int64_t n,
                        PreadAll(fd.get(), buffer->mutable_data(), 0, size, uri));
  if (n < size) buffer->Resize(n);
  return buffer;
}

Result<std::unique_ptr<OutputStream>> LocalObjectStore::OpenWriter(
    const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path));
  std::string uri = DisplayPath(path);
  std::string final_path = FilePath(path);
  std::string tmp_path;
  LANCE_ASSIGN_OR_RAISE(UniqueFd fd, CreateTempFile(final_path, uri, &tmp_path));
  return std::unique_ptr<OutputStream>(
      new LocalOutputStream(path, std::move(uri), std::move(final_path),
                            std::move(tmp_path), std::move(fd), options_.fsync));
}

Status LocalObjectStore::PublishNoReplace(const std::string& tmp_path,
                                          const std::string& final_path,
                                          const std::string& key,
                                          std::string_view action) const {
  const std::string uri = DisplayPath(key);
  int err = RenameNoReplace(tmp_path.c_str(), final_path.c_str());
  if (err == ENOTSUP) {
    return Status::NotImplemented(
        "When " + std::string(action) + " " + Quoted(uri) +
        ": the file system supports neither renameat2(RENAME_NOREPLACE) nor hard links, "
        "so a create-only write cannot be made atomic");
  }
  if (err != 0) return ErrnoToStatus(err, action, uri);
  if (options_.fsync) return FsyncDirectory(ParentDir(final_path), uri);
  return Status::OK();
}

Status LocalObjectStore::PutIfNotExists(const std::string& path, std::string_view data) {
  LANCE_RETURN_NOT_OK(CheckKey(path));
  const std::string uri = DisplayPath(path);
  const std::string final_path = FilePath(path);
  // Cheap early answer for the common losing case; the create-only publish below is
  // what actually decides a race.
  struct stat st;
  if (::stat(final_path.c_str(), &st) == 0) {
    return Status::AlreadyExists("When creating " + Quoted(uri) +
                                 ": an object already exists there");
  }
  std::string tmp_path;
  LANCE_ASSIGN_OR_RAISE(UniqueFd fd, CreateTempFile(final_path, uri, &tmp_path));
  auto discard_tmp = [&tmp_path] { ::unlink(tmp_path.c_str()); };
  Status written =
      WriteAll(fd.get(), reinterpret_cast<const uint8_t*>(data.data()), data.size(), uri);
  if (written.ok() && options_.fsync && ::fsync(fd.get()) != 0) {
    written = ErrnoToStatus(errno, "syncing", uri);
  }
  if (written.ok()) {
    if (int err = fd.Close(); err != 0) written = ErrnoToStatus(err, "closing", uri);
  }
  if (!written.ok()) {
    discard_tmp();
    return written;
  }
  Status published = PublishNoReplace(tmp_path, final_path, path, "creating");
  // After a successful link the temporary name still exists; after a successful
  // renameat2 or any failure it may too. Removing it is harmless in every case.
  discard_tmp();
  return published;
}

Status LocalObjectStore::Delete(const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path));
  const std::string file = FilePath(path);
  if (::unlink(file.c_str()) == 0) return Status::OK();
  int err = errno;
  if (err == ENOENT || err == ENOTDIR) return Status::OK();
  if (err == EISDIR || err == EPERM) {
    // A directory is not an object, so there is no object to delete (as on S3, where
    // "a" and "a/..." are unrelated keys).
    struct stat st;
    if (::stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::OK();
  }
  return ErrnoToStatus(err, "deleting", DisplayPath(path));
}

Status LocalObjectStore::DeletePrefix(const std::string& prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  size_t slash = prefix.rfind('/');
  const std::string dir_key = slash == std::string::npos ? "" : prefix.substr(0, slash);
  const std::string filter =
      slash == std::string::npos ? prefix : prefix.substr(slash + 1);
  const std::string base_dir = dir_key.empty() ? root_ : FilePath(dir_key);
  const std::string ctx = "deleting the prefix " + Quoted(DisplayPath(prefix));

  // lstat, not stat: a symlink is removed as a link, never followed, so a prefix delete
  // cannot reach outside the root.
  auto remove_tree = [&](auto&& self, const std::string& dir,
                         std::string_view name_filter) -> Status {
    Result<std::vector<std::string>> names = ReadDirNames(dir);
    if (!names.ok()) {
      if (names.status().IsNotFound()) return Status::OK();
      return names.status().WithContext(ctx);
    }
    for (const std::string& name : *names) {
      // An in-flight writer's temporary file is not an object yet; leave it (its
      // directory then stays too).
      if (IsTempName(name)) continue;
      if (name.compare(0, name_filter.size(), name_filter) != 0) continue;
      const std::string full = StrCat(dir, dir.back() == '/' ? "" : "/", name);
      struct stat st;
      if (::lstat(full.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        LANCE_RETURN_NOT_OK(self(self, full, std::string_view()));
        // Not empty means something was written concurrently: keep it.
        (void)::rmdir(full.c_str());
      } else if (::unlink(full.c_str()) != 0 && errno != ENOENT) {
        return ErrnoToStatus(errno, "deleting", full).WithContext(ctx);
      }
    }
    return Status::OK();
  };
  LANCE_RETURN_NOT_OK(remove_tree(remove_tree, base_dir, filter));
  // "dir/" names the directory itself: remove it too, but never the root.
  if (filter.empty() && !dir_key.empty()) (void)::rmdir(base_dir.c_str());
  return Status::OK();
}

Status LocalObjectStore::Copy(const std::string& src, const std::string& dst) {
  LANCE_RETURN_NOT_OK(CheckKey(src));
  LANCE_RETURN_NOT_OK(CheckKey(dst));
  const std::string src_uri = DisplayPath(src);
  struct stat st;
  LANCE_ASSIGN_OR_RAISE(UniqueFd in,
                        OpenObjectFile(FilePath(src), src_uri, "copying from", &st));
  // Going through a writer gives the copy the same temporary-file-then-rename
  // publication as any other write.
  LANCE_ASSIGN_OR_RAISE(auto writer, OpenWriter(dst));
  std::vector<uint8_t> chunk(static_cast<size_t>(
      std::min<int64_t>(kCopyChunkSize, std::max<int64_t>(st.st_size, 1))));
  int64_t offset = 0;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(int64_t n,
                          PreadAll(in.get(), chunk.data(), offset,
                                   static_cast<int64_t>(chunk.size()), src_uri));
    if (n == 0) break;
    LANCE_RETURN_NOT_OK(writer->Write(chunk.data(), n));
    offset += n;
  }
  return writer->Close();
}

Status LocalObjectStore::Rename(const std::string& src, const std::string& dst) {
  LANCE_RETURN_NOT_OK(CheckKey(src));
  LANCE_RETURN_NOT_OK(CheckKey(dst));
  LANCE_RETURN_NOT_OK(PrepareObjectMove(*this, src, dst));
  const std::string from = FilePath(src);
  const std::string to = FilePath(dst);
  if (::rename(from.c_str(), to.c_str()) != 0) {
    int err = errno;
    if (err == EISDIR || err == ENOTEMPTY || err == EEXIST) {
      return WithErrno(Status::IOError("When renaming " + Quoted(DisplayPath(src)) +
                                       " to " + Quoted(DisplayPath(dst)) +
                                       ": a directory exists at the target"),
                       err);
    }
    return ErrnoToStatus(err, "renaming", DisplayPath(src))
        .WithContext("moving to " + Quoted(DisplayPath(dst)));
  }
  if (options_.fsync) return FsyncDirectory(ParentDir(to), DisplayPath(dst));
  return Status::OK();
}

Status LocalObjectStore::RenameIfNotExists(const std::string& src,
                                           const std::string& dst) {
  LANCE_RETURN_NOT_OK(CheckKey(src));
  LANCE_RETURN_NOT_OK(CheckKey(dst));
  LANCE_RETURN_NOT_OK(PrepareObjectMove(*this, src, dst));
  Status st_publish =
      PublishNoReplace(FilePath(src), FilePath(dst), dst, "renaming onto");
  if (st_publish.IsNotFound()) {
    // The source vanished between the check and the move.
    return Status::NotFound("When renaming " + Quoted(DisplayPath(src)) +
                            ": no such object");
  }
  return st_publish;
}

}  // namespace lance::io
