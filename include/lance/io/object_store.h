// SPDX-License-Identifier: Apache-2.0
/// \file object_store.h
/// \brief ObjectStore: the storage interface every lance file and table goes through.
///
/// An ObjectStore holds objects (immutable byte strings) under keys relative to a root
/// URI. Keys look like relative POSIX paths ("data/abc.lance"): segments separated by a
/// single '/', no leading or trailing '/', no empty, "." or ".." segments. The local
/// store maps the root onto a directory, the memory store onto a map, and the S3 store
/// onto a bucket. The interface is shaped after Arrow's FileSystem and Iceberg's FileIO,
/// with the one primitive the commit protocol needs: PutIfNotExists.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/buffer.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::io {

/// \brief Metadata of one object.
struct ObjectMeta {
  /// \brief The key, relative to the store root.
  std::string path;
  /// \brief Size in bytes.
  int64_t size = 0;
  /// \brief Last modification time in milliseconds since the Unix epoch.
  int64_t last_modified = 0;

  bool operator==(const ObjectMeta&) const = default;
};

/// \brief How List walks the key space.
struct ListOptions {
  /// \brief The page size used when max_keys is 0.
  static constexpr int64_t kDefaultMaxKeys = 1000;

  /// \brief When false, '/' is a delimiter: keys below the next '/' after the prefix
  /// are rolled up into one common prefix ("dir/"), like a directory listing. When
  /// true, every object whose key starts with the prefix is listed.
  bool recursive = false;
  /// \brief Only keys strictly greater than this one are listed (S3 StartAfter).
  std::string start_after;
  /// \brief Resumes a listing: pass the next_token of the previous page. Opaque.
  std::string continuation_token;
  /// \brief Most entries (objects plus common prefixes) in one page; 0 means
  /// kDefaultMaxKeys. Must not be negative.
  int64_t max_keys = 0;
};

/// \brief One page of a listing.
struct ListResult {
  /// \brief Objects in this page, in lexicographic (byte) order of their keys.
  std::vector<ObjectMeta> objects;
  /// \brief Rolled-up prefixes, each ending with '/', in lexicographic order. Always
  /// empty for recursive listings.
  std::vector<std::string> common_prefixes;
  /// \brief Empty when the listing is complete; otherwise pass it as
  /// ListOptions::continuation_token to fetch the next page.
  std::string next_token;
};

/// \brief Random access to one object, opened by ObjectStore::OpenReader.
///
/// A reader never mixes versions of an object: on local stores (is_local()) it keeps
/// reading the object as it was when opened, even after an overwrite or delete (local:
/// the open file descriptor keeps the old file; memory: the reader shares the immutable
/// contents); a remote store may instead fail such reads (S3 will pin the ETag).
///
/// Thread-safe: ReadAt may be called concurrently from any number of threads.
/// Owned through std::shared_ptr; it does not keep its store alive.
class RandomAccessReader {
 public:
  virtual ~RandomAccessReader() = default;
  RandomAccessReader(const RandomAccessReader&) = delete;
  RandomAccessReader& operator=(const RandomAccessReader&) = delete;

  /// \brief Reads up to `length` bytes starting at `offset`.
  ///
  /// A read that extends past the end of the object returns the bytes up to the end
  /// (a short read); a read starting exactly at the end, or of length 0, returns an
  /// empty buffer.
  /// \return the bytes; Invalid if offset or length is negative or offset is greater
  /// than size(); IOError if the underlying read fails.
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length);

  /// \brief Size of the object in bytes, fixed when the reader was opened.
  int64_t size() const { return size_; }
  /// \brief The key this reader was opened for.
  const std::string& path() const { return path_; }
  /// \brief The object's full URI, used in error messages.
  const std::string& uri() const { return uri_; }

 protected:
  RandomAccessReader(std::string path, std::string uri, int64_t size)
      : path_(std::move(path)), uri_(std::move(uri)), size_(size) {}

  /// \brief Reads exactly the given range, or fewer bytes if the object shrank.
  /// REQUIRES: 0 <= offset, 0 < length, offset + length <= size(). Must be thread-safe.
  virtual Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) = 0;

 private:
  std::string path_;
  std::string uri_;
  int64_t size_;
};

/// \brief A streaming writer of one object, opened by ObjectStore::OpenWriter.
///
/// Nothing becomes visible under the key until Close() succeeds, and then the whole
/// object appears at once (replacing any previous object). Abort() -- or destroying
/// the stream without a successful Close() -- discards everything written.
///
/// State machine: open -> closed (Close succeeded) | aborted (Abort called) | failed (a
/// Write or Close failed; the partial data is discarded). Write is only allowed while
/// open; Close is idempotent; Abort after a successful Close is a no-op.
///
/// Not thread-safe: use one stream from one thread at a time. Owned by the caller.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;

  /// \brief Appends `length` bytes. May buffer.
  /// \return Invalid if the stream is not open or length is negative; IOError if the
  /// bytes could not be written (the stream is then failed and its data discarded).
  Status Write(const void* data, int64_t length);
  /// \brief Appends the bytes of `data`. \return as Write(const void*, int64_t).
  Status Write(std::string_view data) {
    return Write(data.data(), static_cast<int64_t>(data.size()));
  }
  /// \brief Appends the bytes of `buffer`. \return as Write(const void*, int64_t).
  Status Write(const Buffer& buffer) { return Write(buffer.data(), buffer.size()); }

  /// \brief Publishes the object atomically. Idempotent once it succeeded.
  /// \return OK; Invalid after Abort(); the original error if an earlier Write failed;
  /// IOError if the data could not be persisted or published (nothing becomes visible).
  Status Close();

  /// \brief Discards the data written so far; nothing becomes visible.
  /// \return OK (also when already aborted, failed or closed); IOError if cleaning up
  /// the partial data failed (it stays invisible regardless).
  Status Abort();

  /// \brief Bytes accepted by Write so far.
  int64_t position() const { return position_; }
  /// \brief True once Close() succeeded.
  bool closed() const { return state_ == StreamState::kClosed; }
  /// \brief The key being written.
  const std::string& path() const { return path_; }
  /// \brief The object's full URI, used in error messages.
  const std::string& uri() const { return uri_; }

 protected:
  OutputStream(std::string path, std::string uri)
      : path_(std::move(path)), uri_(std::move(uri)) {}

  /// \brief Appends bytes. REQUIRES: the stream is open and length > 0.
  virtual Status DoWrite(const void* data, int64_t length) = 0;
  /// \brief Persists and publishes. On failure nothing may be visible.
  virtual Status DoClose() = 0;
  /// \brief Discards partial data. Called at most once, after a failed DoWrite or
  /// DoClose too, so it must tolerate a half-finished DoClose.
  virtual Status DoAbort() = 0;

  /// \brief For implementations' destructors (virtual calls do not reach a derived
  /// class from the base destructor): aborts unless closed, ignoring errors.
  void AbortIfNotClosed();

 private:
  enum class StreamState { kOpen, kClosed, kAborted, kFailed };

  std::string path_;
  std::string uri_;
  int64_t position_ = 0;
  StreamState state_ = StreamState::kOpen;
  Status failure_;
};

/// \brief What an object store can do (see the ObjectStore accessors of the same names).
struct ObjectStoreCapabilities {
  /// \brief PutIfNotExists is atomic.
  bool conditional_put = true;
  /// \brief The store has real directories.
  bool directories = false;
  /// \brief List returns keys in lexicographic byte order.
  bool lexical_listing = true;
  /// \brief The data lives on this machine.
  bool local = false;
};

/// \brief Abstract object store rooted at a URI.
///
/// Implementations must be thread-safe: every method may be called concurrently from
/// any number of threads. Single-object operations are atomic: a reader of a key sees
/// either no object or a complete one, never a partially written one.
///
/// Stores are shared through std::shared_ptr (the registry caches them); readers and
/// writers they hand out may outlive them.
///
/// Errors: a missing object is NotFound; a malformed key or argument is Invalid; a
/// create-only write that finds an object is AlreadyExists; storage failures are
/// IOError (or, for remote stores, Unavailable / Unauthorized / Forbidden). Messages name
/// the full URI of the object and what was being attempted.
class ObjectStore {
 public:
  ObjectStore() = default;
  virtual ~ObjectStore() = default;
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // -- Metadata ------------------------------------------------------------------------

  /// \brief Metadata of the object at `path`.
  /// \return the metadata; NotFound if there is no object (a directory is not an
  /// object); Invalid for a malformed key; IOError.
  virtual Result<ObjectMeta> Head(const std::string& path) = 0;

  /// \brief True if an object exists at `path` (Head without the NotFound).
  /// \return as Head, except that NotFound becomes false.
  Result<bool> Exists(const std::string& path);

  /// \brief One page of the objects whose key starts with `prefix`.
  ///
  /// The prefix is a plain string prefix, as in S3: "a/b" matches "a/b", "a/b/c" and
  /// "a/bc"; end it with '/' to list one "directory". Results are in lexicographic
  /// byte order (if list_is_lexically_ordered()). Listing a prefix with no objects
  /// returns an empty page, not an error. On stores with has_directories(), an empty
  /// directory may appear as a common prefix.
  /// \return the page; Invalid for a malformed prefix or negative max_keys; IOError.
  virtual Result<ListResult> List(const std::string& prefix,
                                  const ListOptions& options = {}) = 0;

  /// \brief Drains every page of List(prefix, {recursive}) into one result (with an
  /// empty next_token). The pages are asked for as large as the store makes them, so a
  /// store that lists everything in one pass (the local store's directory walk) does
  /// it once.
  /// \return as List.
  Result<ListResult> ListAll(const std::string& prefix, bool recursive);

  // -- Reading -------------------------------------------------------------------------

  /// \brief Opens the object at `path` for random access.
  /// \return the reader; NotFound if there is no object; Invalid; IOError.
  virtual Result<std::shared_ptr<RandomAccessReader>> OpenReader(
      const std::string& path) = 0;

  /// \brief Opens an object whose size the caller already knows (from a manifest), so
  /// remote stores can skip the metadata request. The default calls OpenReader.
  /// Reads past the true end are short reads, as usual.
  /// \return as OpenReader; Invalid if `size` is negative.
  virtual Result<std::shared_ptr<RandomAccessReader>> OpenReaderWithSize(
      const std::string& path, int64_t size);

  /// \brief The whole object at `path`.
  /// \return the bytes; NotFound; Invalid; IOError.
  virtual Result<BufferPtr> Read(const std::string& path);

  /// \brief Up to `length` bytes of the object at `path` starting at `offset`, with the
  /// short-read rules of RandomAccessReader::ReadAt.
  /// \return the bytes; NotFound; Invalid (bad range); IOError.
  virtual Result<BufferPtr> ReadRange(const std::string& path, int64_t offset,
                                      int64_t length);

  // -- Writing -------------------------------------------------------------------------

  /// \brief Opens a streaming writer; the object appears (replacing any previous one)
  /// only when the stream is closed. Parent "directories" are created as needed.
  /// \return the stream; Invalid for a malformed key; IOError.
  virtual Result<std::unique_ptr<OutputStream>> OpenWriter(const std::string& path) = 0;

  /// \brief Writes `data` as the object at `path`, replacing any previous object,
  /// atomically.
  /// \return OK; Invalid; IOError.
  virtual Status Put(const std::string& path, std::string_view data);

  /// \brief Writes `data` as the object at `path` only if no object exists there.
  ///
  /// The commit primitive: of any number of concurrent callers on one key, exactly one
  /// succeeds and the others get AlreadyExists; the stored object is the winner's
  /// complete content and is never visible partially written.
  /// \return OK; AlreadyExists if an object exists (it is left untouched); Invalid;
  /// NotImplemented if the store cannot do this atomically (see
  /// supports_conditional_put()); IOError.
  virtual Status PutIfNotExists(const std::string& path, std::string_view data) = 0;

  // -- Deleting ------------------------------------------------------------------------

  /// \brief Deletes the object at `path`. Deleting a missing object succeeds (S3
  /// semantics), so deletes can be retried and raced safely.
  /// \return OK; Invalid; IOError.
  virtual Status Delete(const std::string& path) = 0;

  /// \brief Deletes every listed object; missing ones are skipped. The default checks
  /// every key first (a malformed one deletes nothing), then loops over Delete and stops
  /// at the first error.
  /// \return OK; Invalid; IOError.
  virtual Status DeleteMany(const std::vector<std::string>& paths);

  /// \brief Deletes every object whose key starts with `prefix` (a string prefix, as in
  /// List; end it with '/' to delete one "directory"). An empty prefix deletes
  /// everything in the store. The default lists recursively and calls DeleteMany.
  /// \return OK (also when nothing matched); Invalid; IOError.
  virtual Status DeletePrefix(const std::string& prefix);

  // -- Copying and renaming ------------------------------------------------------------

  /// \brief Copies the object at `src` to `dst`, replacing any object at `dst`. The copy
  /// appears atomically.
  /// \return OK; NotFound if `src` is missing; Invalid; IOError.
  virtual Status Copy(const std::string& src, const std::string& dst) = 0;

  /// \brief Moves the object at `src` to `dst`, replacing any object at `dst`. Atomic on
  /// the local and memory stores. The default copies, then deletes the source (not
  /// atomic: a failed delete leaves both, and says so).
  /// \return OK; NotFound if `src` is missing; Invalid; IOError.
  virtual Status Rename(const std::string& src, const std::string& dst);

  /// \brief Moves the object at `src` to `dst` only if no object exists at `dst`. The
  /// default reads the source, creates the destination with PutIfNotExists (the atomic
  /// step, so it is bounded by what one Put takes) and deletes the source.
  /// \return OK; AlreadyExists if `dst` exists (nothing moves); NotFound if `src` is
  /// missing; Invalid; NotImplemented where the store cannot do this atomically; IOError.
  virtual Status RenameIfNotExists(const std::string& src, const std::string& dst);

  // -- Capabilities --------------------------------------------------------------------

  /// \brief What the store can do; fixed for its lifetime.
  virtual ObjectStoreCapabilities capabilities() const = 0;

  /// \brief True if PutIfNotExists is atomic (the commit protocol requires it).
  bool supports_conditional_put() const { return capabilities().conditional_put; }
  /// \brief True if the store has real directories (the local store): they may appear
  /// as common prefixes while empty, and a key cannot be both an object and a prefix of
  /// other keys ("a" and "a/b").
  bool has_directories() const { return capabilities().directories; }
  /// \brief True if List returns keys in lexicographic byte order.
  bool list_is_lexically_ordered() const { return capabilities().lexical_listing; }
  /// \brief True if the data lives on this machine (local and memory stores); such
  /// stores never need or ask for credentials.
  bool is_local() const { return capabilities().local; }

  // -- Identity ------------------------------------------------------------------------

  /// \brief The root URI, e.g. "file:///", "memory://name", "s3://bucket".
  virtual const std::string& uri() const = 0;
  /// \brief The root in the store's native form: a directory for the local store, the
  /// instance name for the memory store, the bucket for S3.
  virtual const std::string& root() const = 0;
  /// \brief A one-line description for logs, e.g. "LocalObjectStore(file:///data)".
  /// Never contains credentials.
  virtual std::string ToString() const = 0;

  /// \brief The full URI of the object at `path`: uri() + '/' + path.
  std::string ObjectUri(std::string_view path) const;

  /// \brief The object at `key` as the user would recognise it, for error messages:
  /// keys are relative to the store root ("tmp/x.lance/data/f.lance" in the local store
  /// rooted at "/"), which is not what the user gave. Default ObjectUri(key); the local
  /// store answers the file's absolute path ("/tmp/x.lance/data/f.lance").
  virtual std::string DisplayPath(std::string_view key) const { return ObjectUri(key); }
};

/// \brief Base for decorators (prefix, metrics, fault-injection, caching stores): every
/// call is forwarded to the wrapped store. Override what you need.
///
/// Thread-safe if the wrapped store is; keeps the wrapped store alive.
class ObjectStoreWrapper : public ObjectStore {
 public:
  /// \brief Wraps `target`. REQUIRES: target != nullptr.
  explicit ObjectStoreWrapper(std::shared_ptr<ObjectStore> target)
      : target_(std::move(target)) {}

  /// \brief The wrapped store.
  const std::shared_ptr<ObjectStore>& target() const { return target_; }

  Result<ObjectMeta> Head(const std::string& path) override;
  Result<ListResult> List(const std::string& prefix,
                          const ListOptions& options = {}) override;
  Result<std::shared_ptr<RandomAccessReader>> OpenReader(
      const std::string& path) override;
  Result<std::shared_ptr<RandomAccessReader>> OpenReaderWithSize(const std::string& path,
                                                                 int64_t size) override;
  Result<BufferPtr> Read(const std::string& path) override;
  Result<BufferPtr> ReadRange(const std::string& path, int64_t offset,
                              int64_t length) override;
  Result<std::unique_ptr<OutputStream>> OpenWriter(const std::string& path) override;
  Status Put(const std::string& path, std::string_view data) override;
  Status PutIfNotExists(const std::string& path, std::string_view data) override;
  Status Delete(const std::string& path) override;
  Status DeleteMany(const std::vector<std::string>& paths) override;
  Status DeletePrefix(const std::string& prefix) override;
  Status Copy(const std::string& src, const std::string& dst) override;
  Status Rename(const std::string& src, const std::string& dst) override;
  Status RenameIfNotExists(const std::string& src, const std::string& dst) override;
  ObjectStoreCapabilities capabilities() const override;
  const std::string& uri() const override;
  std::string DisplayPath(std::string_view key) const override;
  const std::string& root() const override;
  std::string ToString() const override;

 private:
  std::shared_ptr<ObjectStore> target_;
};

/// \brief Checks that `path` is a well-formed object key: not empty, no leading or
/// trailing '/', no empty, "." or ".." segment, no NUL byte.
/// \return OK or Invalid naming the key.
Status ValidateObjectPath(std::string_view path);

/// \brief Checks a listing/deletion prefix: empty, or segments as in an object key where
/// the last one may be partial (any characters but '/' and NUL) or absent (trailing '/').
/// \return OK or Invalid naming the prefix.
Status ValidateListPrefix(std::string_view prefix);

}  // namespace lance::io
