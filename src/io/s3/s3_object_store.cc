// SPDX-License-Identifier: Apache-2.0
// The ObjectStore of one S3 bucket, on top of S3Client (see s3_object_store.h for how
// each operation maps onto S3 requests).

#include "lance/io/s3_object_store.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "io/io_util.h"
#include "io/ranged_read.h"
#include "io/s3/s3_client.h"
#include "lance/core/logging.h"
#include "lance/io/executor.h"
#include "lance/macros.h"

namespace lance::io {

using internal::Quoted;

namespace {

using s3::S3Client;

// Bucket names as S3 accepts them in a path or host name. AWS is stricter (3-63
// lower-case characters), but legacy and RGW buckets may have upper case or '_', and
// the server rejects what it does not like; here we only keep out what could change
// the meaning of a URL or a Host header.
Status ValidateBucketName(const std::string& bucket) {
  if (bucket.empty()) return Status::Invalid("an s3:// location needs a bucket name");
  if (bucket.size() > 255) {
    return Status::Invalid("the S3 bucket name " + Quoted(bucket.substr(0, 64) + "...") +
                           " is too long");
  }
  for (char c : bucket) {
    auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '-' && c != '.' && c != '_') {
      return Status::Invalid("the S3 bucket name " + Quoted(bucket) +
                             " may only contain letters, digits, '-', '.' and '_'");
    }
  }
  return Status::OK();
}

// -- Reader ---------------------------------------------------------------------------

class S3Reader final : public RandomAccessReader {
 public:
  S3Reader(std::shared_ptr<S3Client> client, std::string path, std::string uri,
           int64_t size, std::string etag)
      : RandomAccessReader(std::move(path), std::move(uri), size),
        client_(std::move(client)),
        etag_(std::move(etag)),
        block_size_(std::clamp<int64_t>(client_->options().read_chunk_size, 1,
                                        kMaxReadAheadBlock)),
        read_ahead_blocks_(
            client_->options().read_ahead <= 0
                ? 0
                : std::max<int64_t>(1, client_->options().read_ahead / block_size_)),
        direct_(internal::MakeRangedReader(
            this->path(), this->uri(), size,
            [client = client_, key = this->path(), etag = etag_](int64_t at, int64_t n,
                                                                 uint8_t* out) {
              return client->GetObjectInto(key, at, n, out, etag);
            },
            {client_->options().read_chunk_size, client_->options().max_connections})) {}

  ~S3Reader() override {
    // Blocks still queued are dropped, running ones waited for (Pending's destructor).
    std::lock_guard<std::mutex> lock(mu_);
    blocks_.clear();
  }

 protected:
  Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) override {
    if (read_ahead_blocks_ > 0) {
      std::vector<std::shared_ptr<Block>> covering = NoteReadAndSchedule(offset, length);
      if (!covering.empty()) {
        Result<BufferPtr> served = ServeFromBlocks(covering, offset, length);
        if (!served.ok() || *served != nullptr) return served;
      }
    }
    return direct_->ReadAt(offset, length);
  }

 private:
  // A read-ahead block: [index * block_size_, + block_size_) clamped to size(), fetched
  // by a task on the I/O executor. Holds its share of the executor's memory budget.
  struct Block {
    int64_t index = 0;
    std::mutex mu;
    Pending<BufferPtr> fetch;  // valid until the first waiter took its result
    Result<BufferPtr> data = Status::Cancelled("read-ahead block not fetched");
    MemoryReservation reservation;

    // The block's bytes (running the fetch here if no worker has started it).
    Result<BufferPtr> Wait() {
      std::lock_guard<std::mutex> lock(mu);
      if (fetch.valid()) data = fetch.Get();
      return data;
    }
  };

  // One forward-moving sequence of reads (a scan may move through several regions of
  // the file at once, one per column group).
  struct Stream {
    int64_t cursor = 0;  // end of its furthest read
    int streak = 0;      // reads in a row that continued it
    uint64_t last_use = 0;
  };

  static constexpr int64_t kMaxReadAheadBlock = int64_t{4} << 20;
  static constexpr size_t kMaxStreams = 4;
  // A stream's read-ahead starts with its second read in a row.
  static constexpr int kStreakToReadAhead = 2;

  // Records the read in the stream it continues (or a new one), schedules read-ahead
  // blocks for streams that move forward, drops blocks no stream will reach, and
  // returns the blocks covering [offset, offset + length) if all of them are there.
  std::vector<std::shared_ptr<Block>> NoteReadAndSchedule(int64_t offset,
                                                          int64_t length) {
    const int64_t end = offset + length;
    const int64_t slack = 2 * block_size_;
    std::vector<std::shared_ptr<Block>> covering;
    std::lock_guard<std::mutex> lock(mu_);
    ++clock_;
    Stream* stream = nullptr;
    for (Stream& s : streams_) {
      // Continues it: starts at most a block past its end, and is not far behind it
      // (columns written together are read slightly out of order).
      if (offset <= s.cursor + block_size_ && end >= s.cursor - slack) {
        stream = &s;
        break;
      }
    }
    if (stream != nullptr) {
      stream->cursor = std::max(stream->cursor, end);
      ++stream->streak;
    } else {
      if (streams_.size() < kMaxStreams) {
        streams_.emplace_back();
        stream = &streams_.back();
      } else {
        stream = &*std::min_element(
            streams_.begin(), streams_.end(),
            [](const Stream& a, const Stream& b) { return a.last_use < b.last_use; });
      }
      stream->cursor = end;
      stream->streak = 1;
    }
    stream->last_use = clock_;

    // Blocks covering the read (only if every one of them is already scheduled).
    const int64_t first = offset / block_size_;
    const int64_t last = (end - 1) / block_size_;
    for (int64_t i = first; i <= last; ++i) {
      auto it = blocks_.find(i);
      if (it == blocks_.end()) {
        covering.clear();
        break;
      }
      covering.push_back(it->second);
    }

    // Keep only blocks some stream can still use.
    for (auto it = blocks_.begin(); it != blocks_.end();) {
      const int64_t block_start = it->first * block_size_;
      const int64_t block_end = block_start + block_size_;
      bool wanted = false;
      for (const Stream& s : streams_) {
        if (block_end > s.cursor - slack &&
            block_start < s.cursor + read_ahead_blocks_ * block_size_) {
          wanted = true;
        }
      }
      it = wanted ? std::next(it) : blocks_.erase(it);
    }

    if (stream->streak >= kStreakToReadAhead) ScheduleAhead(stream->cursor);
    return covering;
  }

  // Starts fetching the blocks of [cursor, cursor + read-ahead) not yet scheduled, as
  // far as the executor's memory budget has room (read-ahead never waits for memory).
  void ScheduleAhead(int64_t cursor) {
    Executor& executor = Executor::Default();
    const int64_t first = cursor / block_size_;
    const int64_t stop =
        std::min((size() + block_size_ - 1) / block_size_, first + read_ahead_blocks_);
    for (int64_t i = first; i < stop; ++i) {
      if (blocks_.count(i) != 0) continue;
      const int64_t start = i * block_size_;
      const int64_t n = std::min(block_size_, size() - start);
      // An already cancelled token makes Reserve fail instead of waiting: this runs
      // under mu_, and the memory may be held by this reader's own blocks.
      static const CancellationToken kNoWait = [] {
        CancellationToken token;
        token.Cancel();
        return token;
      }();
      Result<MemoryReservation> reserved = executor.Reserve(n, &kNoWait);
      if (!reserved.ok()) return;
      auto block = std::make_shared<Block>();
      block->index = i;
      block->reservation = std::move(reserved).MoveValueUnsafe();
      block->fetch = executor.Spawn([client = client_, key = path(), etag = etag_, start,
                                     n]() -> Result<BufferPtr> {
        LANCE_ASSIGN_OR_RAISE(BufferPtr buffer, Buffer::AllocateForOverwrite(n));
        LANCE_ASSIGN_OR_RAISE(
            int64_t got,
            client->GetObjectInto(key, start, n, buffer->mutable_data(), etag));
        if (got < n) buffer->Resize(got);
        return buffer;
      });
      blocks_.emplace(i, std::move(block));
    }
  }

  // The read from its blocks: a slice of one block (no copy), or the pieces of several
  // copied together. \return nullptr when the blocks do not hold the whole range (a
  // short object, or a failed read-ahead): the caller reads directly then.
  Result<BufferPtr> ServeFromBlocks(const std::vector<std::shared_ptr<Block>>& blocks,
                                    int64_t offset, int64_t length) {
    std::vector<BufferPtr> pieces;
    pieces.reserve(blocks.size());
    for (const auto& block : blocks) {
      Result<BufferPtr> data = block->Wait();
      // A failed read-ahead is not this read's failure: it retries directly, and an
      // error (object changed, gone, access denied) shows there.
      if (!data.ok()) return BufferPtr();
      const int64_t block_start = block->index * block_size_;
      const int64_t want_end = std::min(offset + length, block_start + block_size_);
      if (block_start + (*data)->size() < want_end) return BufferPtr();
      pieces.push_back(*data);
    }
    const int64_t first_start = blocks.front()->index * block_size_;
    if (pieces.size() == 1) return Buffer::Slice(pieces[0], offset - first_start, length);
    LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::AllocateForOverwrite(length));
    int64_t done = 0;
    for (size_t i = 0; i < pieces.size(); ++i) {
      const int64_t block_start = blocks[i]->index * block_size_;
      const int64_t from = std::max(offset, block_start) - block_start;
      const int64_t n = std::min(length - done, pieces[i]->size() - from);
      std::memcpy(out->mutable_data() + done, pieces[i]->data() + from,
                  static_cast<size_t>(n));
      done += n;
    }
    return out;
  }

 private:
  std::shared_ptr<S3Client> client_;
  // Empty: unpinned (OpenReaderWithSize).
  std::string etag_;
  const int64_t block_size_;
  const int64_t read_ahead_blocks_;  // 0: no read-ahead
  // Reads not served by read-ahead: ranged GETs, in parallel when long.
  const std::shared_ptr<RandomAccessReader> direct_;

  std::mutex mu_;  // guards what follows
  std::vector<Stream> streams_;
  std::map<int64_t, std::shared_ptr<Block>> blocks_;
  uint64_t clock_ = 0;
};

// -- Writer ---------------------------------------------------------------------------

// Streams an object: bytes collect in one part-sized buffer; the first part that is
// followed by more data starts a multipart upload, and each full part is handed to the
// I/O executor and uploaded while the caller goes on writing. Parts in flight are
// bounded by multipart_concurrency and by the executor's memory budget (each holds a
// Reserve() of its size until its upload ends), so memory per writer stays <=
// (concurrency + 1) x part size. The first failed part cancels the parts not yet
// started and aborts the upload at once; Write/Close then return that error. An object
// that never exceeds one part is a single PUT at Close (so an object of exactly one
// part size is one PUT too).
class S3Writer final : public OutputStream {
 public:
  S3Writer(std::shared_ptr<S3Client> client, std::string path, std::string uri)
      : OutputStream(std::move(path), std::move(uri)),
        client_(std::move(client)),
        part_size_(std::max<int64_t>(client_->options().multipart_part_size, 1)),
        max_in_flight_(std::max(client_->options().multipart_concurrency, 1)) {}

  ~S3Writer() override { AbortIfNotClosed(); }

 protected:
  Status DoWrite(const void* data, int64_t length) override {
    LANCE_RETURN_NOT_OK(failure_);
    const auto* bytes = static_cast<const char*>(data);
    while (length > 0) {
      if (static_cast<int64_t>(buffer_.size()) == part_size_) {
        LANCE_RETURN_NOT_OK(FlushPart());
      }
      const int64_t n =
          std::min<int64_t>(length, part_size_ - static_cast<int64_t>(buffer_.size()));
      Reserve(static_cast<int64_t>(buffer_.size()) + n);
      buffer_.append(bytes, static_cast<size_t>(n));
      bytes += n;
      length -= n;
    }
    return Status::OK();
  }

  Status DoClose() override {
    LANCE_RETURN_NOT_OK(failure_);
    if (upload_id_.empty()) {
      Result<std::string> put = client_->PutObject(path(), buffer_);
      std::string().swap(buffer_);
      return put.status();
    }
    if (!buffer_.empty()) LANCE_RETURN_NOT_OK(FlushPart());
    std::string().swap(buffer_);
    while (!in_flight_.empty()) LANCE_RETURN_NOT_OK(WaitOldest());
    Status st = client_->CompleteMultipartUpload(path(), upload_id_, part_etags_);
    if (st.ok()) upload_id_.clear();
    return st;
  }

  Status DoAbort() override {
    std::string().swap(buffer_);
    // Parts still uploading would otherwise land after the abort and keep the upload's
    // storage alive: drop the queued ones, wait for the running ones.
    cancel_.Cancel();
    while (!in_flight_.empty()) {
      (void)in_flight_.front().Get();
      in_flight_.pop_front();
    }
    return AbortUpload();
  }

 private:
  // Grows the buffer geometrically but never past one part, so small objects stay small
  // and a full part allocates exactly part_size bytes.
  void Reserve(int64_t needed) {
    const auto capacity = static_cast<int64_t>(buffer_.capacity());
    if (needed <= capacity) return;
    const int64_t target = std::min(part_size_, std::max(needed, 2 * capacity));
    buffer_.reserve(static_cast<size_t>(target));
  }

  Status FlushPart() {
    LANCE_RETURN_NOT_OK(failure_);
    if (upload_id_.empty()) {
      LANCE_ASSIGN_OR_RAISE(upload_id_, client_->CreateMultipartUpload(path()));
    }
    // Collect what has finished, then wait while the window is full.
    while (!in_flight_.empty() && in_flight_.front().ready()) {
      LANCE_RETURN_NOT_OK(WaitOldest());
    }
    while (static_cast<int>(in_flight_.size()) >= max_in_flight_) {
      LANCE_RETURN_NOT_OK(WaitOldest());
    }
    Executor& executor = Executor::Default();
    const auto bytes = static_cast<int64_t>(buffer_.size());
    // Memory: while the budget is short, finish our own parts first (running them here
    // if no worker has), so this writer never sleeps on memory its own queued parts
    // hold.
    while (!in_flight_.empty()) {
      const ExecutorStats stats = executor.stats();
      if (stats.bytes_reserved + bytes <= stats.memory_budget_bytes) break;
      LANCE_RETURN_NOT_OK(WaitOldest());
    }
    Result<MemoryReservation> reserved = executor.Reserve(bytes, &cancel_);
    if (!reserved.ok()) return Fail(reserved.status());
    auto reservation =
        std::make_shared<MemoryReservation>(std::move(reserved).MoveValueUnsafe());

    const int part_number = static_cast<int>(part_etags_.size() + in_flight_.size()) + 1;
    auto body = std::make_shared<std::string>(std::move(buffer_));
    buffer_ = std::string();
    // More parts are likely: take the next part's buffer whole rather than growing it.
    buffer_.reserve(static_cast<size_t>(part_size_));
    in_flight_.push_back(
        executor.Spawn([client = client_, key = path(), id = upload_id_, part_number,
                        body, reservation, cancel = cancel_]() -> Result<std::string> {
          if (cancel.cancelled()) {
            return Status::Cancelled("upload of part " + std::to_string(part_number) +
                                     " cancelled");
          }
          Result<std::string> etag = client->UploadPart(key, id, part_number, *body);
          if (!etag.ok()) cancel.Cancel();  // the parts not started yet are dropped
          std::string().swap(*body);
          reservation->Release();
          return etag;
        }));
    return Status::OK();
  }

  // Parts finish in any order but are collected in order, so part_etags_[i] is part i+1.
  Status WaitOldest() {
    Pending<std::string> part = std::move(in_flight_.front());
    in_flight_.pop_front();
    Result<std::string> etag = part.Get();
    if (!etag.ok()) return Fail(etag.status());
    part_etags_.push_back(std::move(etag).MoveValueUnsafe());
    return Status::OK();
  }

  // The upload failed with `st`: stops the other parts, aborts the upload on the
  // server and makes the first real error (parts dropped because of it only say
  // Cancelled) the answer to every later call.
  Status Fail(const Status& st) {
    cancel_.Cancel();
    Status first = st.code() == StatusCode::kCancelled ? Status::OK() : st;
    while (!in_flight_.empty()) {
      Result<std::string> other = in_flight_.front().Get();
      in_flight_.pop_front();
      if (first.ok() && !other.ok() && other.status().code() != StatusCode::kCancelled) {
        first = other.status();
      }
    }
    if (first.ok()) first = st;
    std::string().swap(buffer_);
    Status aborted = AbortUpload();
    if (!aborted.ok()) {
      LANCE_LOG(Warn, "s3") << "aborting the failed multipart upload of " << uri() << ": "
                            << aborted.ToString();
    }
    failure_ = first;
    return first;
  }

  Status AbortUpload() {
    if (upload_id_.empty()) return Status::OK();
    std::string upload_id = std::move(upload_id_);
    upload_id_.clear();
    return client_->AbortMultipartUpload(path(), upload_id);
  }

  std::shared_ptr<S3Client> client_;
  const int64_t part_size_;
  const int max_in_flight_;
  std::string buffer_;
  std::string upload_id_;
  std::vector<std::string> part_etags_;
  std::deque<Pending<std::string>> in_flight_;
  CancellationToken cancel_;
  // Sticky: after a failed part the stream only reports it.
  Status failure_;
};

}  // namespace

// -- S3ObjectStore ----------------------------------------------------------------------

S3ObjectStore::S3ObjectStore(std::string bucket, std::string uri,
                             std::shared_ptr<s3::S3Client> client)
    : RemoteObjectStore(std::move(bucket), std::move(uri)), client_(std::move(client)) {}

S3ObjectStore::~S3ObjectStore() = default;

Result<std::shared_ptr<S3ObjectStore>> S3ObjectStore::Make(
    std::string bucket, s3::S3Options options,
    std::shared_ptr<CredentialsSource> credentials) {
  LANCE_RETURN_NOT_OK(ValidateBucketName(bucket));
  if (credentials == nullptr) {
    credentials = std::make_shared<StaticCredentialsSource>(options.credentials);
  }
  LANCE_ASSIGN_OR_RAISE(
      auto client, S3Client::Make(bucket, std::move(options), std::move(credentials)));
  std::string uri = "s3://" + bucket;
  return std::shared_ptr<S3ObjectStore>(
      new S3ObjectStore(std::move(bucket), std::move(uri), std::move(client)));
}

Result<std::shared_ptr<S3ObjectStore>> S3ObjectStore::FromStorageOptions(
    std::string bucket, const StorageOptions& storage_options,
    std::shared_ptr<CredentialsSource> credentials, std::string scheme) {
  LANCE_RETURN_NOT_OK(ValidateBucketName(bucket));
  if (scheme.empty()) scheme = "s3";
  for (char& c : scheme)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Result<s3::S3Options> options = s3::ParseS3Options(storage_options);
  if (!options.ok()) {
    return options.status().WithContext("configuring the S3 store for '" + scheme +
                                        "://" + bucket + "'");
  }
  LANCE_ASSIGN_OR_RAISE(auto store, Make(bucket, std::move(options).MoveValueUnsafe(),
                                         std::move(credentials)));
  store->set_uri(scheme + "://" + store->root());
  // ToString shows the options and the credentials source redacted.
  LANCE_LOG(Debug, "s3") << "opened " << store->ToString();
  return store;
}

std::string S3ObjectStore::ToString() const {
  return "S3ObjectStore(" + uri() + ", " + client_->options().ToString() + ", " +
         client_->credentials()->ToString() + ")";
}

Result<ListResult> S3ObjectStore::List(const std::string& prefix,
                                       const ListOptions& options) {
  LANCE_ASSIGN_OR_RAISE(const int64_t max_keys,
                        internal::ListPageSize(prefix, options, ObjectUri(prefix)));
  s3::ListObjectsV2Request request;
  request.prefix = prefix;
  request.delimiter = options.recursive ? "" : "/";
  request.start_after = options.start_after;
  request.continuation_token = options.continuation_token;
  // S3 never returns more than 1000 entries per page; asking for more is the same.
  request.max_keys = static_cast<int>(std::min<int64_t>(max_keys, 1000));
  LANCE_ASSIGN_OR_RAISE(s3::ListObjectsV2Response response,
                        client_->ListObjectsV2(request));
  ListResult result;
  result.objects.reserve(response.objects.size());
  for (auto& entry : response.objects) {
    result.objects.push_back(
        ObjectMeta{std::move(entry.key), entry.size, entry.last_modified_ms});
  }
  result.common_prefixes = std::move(response.common_prefixes);
  result.next_token = std::move(response.next_continuation_token);
  return result;
}

Result<RemoteObjectStore::RemoteObject> S3ObjectStore::StatObject(
    const std::string& key) {
  LANCE_ASSIGN_OR_RAISE(s3::S3ObjectInfo info, client_->HeadObject(key));
  return RemoteObject{ObjectMeta{key, info.size, info.last_modified_ms},
                      std::move(info.etag)};
}

std::shared_ptr<RandomAccessReader> S3ObjectStore::NewReader(const std::string& key,
                                                             int64_t size,
                                                             std::string version) {
  return std::make_shared<S3Reader>(client_, key, ObjectUri(key), size,
                                    std::move(version));
}

Result<BufferPtr> S3ObjectStore::GetObject(const std::string& key) {
  return client_->GetObject(key);
}

std::unique_ptr<OutputStream> S3ObjectStore::NewWriter(const std::string& key) {
  return std::make_unique<S3Writer>(client_, key, ObjectUri(key));
}

Status S3ObjectStore::PutObject(const std::string& key, std::string_view data,
                                bool if_not_exists) {
  // Always a single PUT, also for PutIfNotExists: RGW ignores If-None-Match on
  // CompleteMultipartUpload.
  return client_->PutObject(key, data, if_not_exists).status();
}

Status S3ObjectStore::DeleteObject(const std::string& key) {
  return client_->DeleteObject(key);
}

Status S3ObjectStore::CopyObject(const std::string& src, const std::string& dst) {
  return client_->CopyObject(src, dst);
}

Status S3ObjectStore::DeleteMany(const std::vector<std::string>& paths) {
  // Validate everything first, so a malformed key deletes nothing.
  for (const auto& path : paths) LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  if (paths.empty()) return Status::OK();
  return client_->DeleteObjects(paths);
}

Status S3ObjectStore::DeletePrefix(const std::string& prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  // Page by page, so a huge prefix never has to fit in memory. Continuation tokens
  // point after the last listed key, so deleting the listed keys does not shift pages.
  s3::ListObjectsV2Request request;
  request.prefix = prefix;
  request.max_keys = 1000;
  while (true) {
    Result<s3::ListObjectsV2Response> page = client_->ListObjectsV2(request);
    if (!page.ok()) {
      return page.status().WithContext("deleting everything under " +
                                       Quoted(ObjectUri(prefix)));
    }
    std::vector<std::string> keys;
    keys.reserve(page->objects.size());
    for (auto& entry : page->objects) keys.push_back(std::move(entry.key));
    if (!keys.empty()) LANCE_RETURN_NOT_OK(client_->DeleteObjects(keys));
    if (page->next_continuation_token.empty()) return Status::OK();
    request.continuation_token = std::move(page->next_continuation_token);
  }
}

Status RegisterS3ObjectStore(ObjectStoreRegistry* registry) {
  ObjectStoreFactory factory = [](const Uri& root, const StorageOptions& options,
                                  const std::shared_ptr<CredentialsSource>& credentials)
      -> Result<std::shared_ptr<ObjectStore>> {
    if (root.authority.empty()) {
      return Status::Invalid("an s3:// location needs a bucket name");
    }
    LANCE_ASSIGN_OR_RAISE(auto store,
                          S3ObjectStore::FromStorageOptions(root.authority, options,
                                                            credentials, root.scheme));
    return std::shared_ptr<ObjectStore>(std::move(store));
  };
  LANCE_RETURN_NOT_OK(registry->Register("s3", factory, /*replace=*/true));
  return registry->Register("s3a", factory, /*replace=*/true);
}

}  // namespace lance::io
