// SPDX-License-Identifier: Apache-2.0

#include "io/ranged_read.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "io/io_util.h"
#include "lance/io/executor.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::internal {

namespace {

// The chunks as one task group; `got[i]` is the bytes chunk i returned, -1 when it was
// never fetched (dropped after another chunk failed).
Result<int64_t> ReadChunked(const RangeFetch& fetch, int64_t offset, int64_t length,
                            const RangedReadOptions& options, uint8_t* out,
                            std::string_view uri) {
  const int64_t chunk = options.chunk_size;
  const int64_t num_chunks = (length + chunk - 1) / chunk;
  const int window = static_cast<int>(std::clamp<int64_t>(
      std::min<int64_t>(num_chunks, options.max_connections), 1, num_chunks));
  std::vector<int64_t> got(static_cast<size_t>(num_chunks), -1);
  TaskGroup group(Executor::Default(), window);
  const CancellationToken cancel = group.token();
  for (int64_t i = 0; i < num_chunks; ++i) {
    const int64_t start = i * chunk;
    const int64_t n = std::min(chunk, length - start);
    Status submitted = group.Submit([&fetch, &got, cancel, i, start, n, offset, out] {
      if (cancel.cancelled()) return Status::Cancelled("ranged read cancelled");
      Result<int64_t> bytes = fetch(offset + start, n, out + start);
      if (!bytes.ok()) {
        cancel.Cancel();  // no point fetching the rest
        return bytes.status();
      }
      got[static_cast<size_t>(i)] = *bytes;
      return Status::OK();
    });
    if (!submitted.ok()) break;
  }
  LANCE_RETURN_NOT_OK(group.Wait());
  // In range order: a short chunk ends the object (chunks past it read nothing).
  for (int64_t i = 0; i < num_chunks; ++i) {
    const int64_t start = i * chunk;
    const int64_t n = std::min(chunk, length - start);
    const int64_t bytes = got[static_cast<size_t>(i)];
    if (bytes < 0) {
      return Status::IOError(
          StrCat("When reading ", Quoted(uri), ": a ranged read was lost"));
    }
    if (bytes < n) return start + bytes;
  }
  return length;
}

}  // namespace

Result<BufferPtr> ReadRangeInParallel(const RangeFetch& fetch, int64_t offset,
                                      int64_t length, const RangedReadOptions& options,
                                      std::string_view uri) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr buffer, Buffer::AllocateForOverwrite(length));
  RangedReadOptions effective = options;
  effective.chunk_size = std::max<int64_t>(options.chunk_size, 1);
  int64_t got = 0;
  if (length <= effective.chunk_size) {
    LANCE_ASSIGN_OR_RAISE(got, fetch(offset, length, buffer->mutable_data()));
  } else {
    LANCE_ASSIGN_OR_RAISE(
        got, ReadChunked(fetch, offset, length, effective, buffer->mutable_data(), uri));
  }
  if (got < length) buffer->Resize(got);
  return buffer;
}

namespace {

class RangedReader final : public RandomAccessReader {
 public:
  RangedReader(std::string path, std::string uri, int64_t size, RangeFetch fetch,
               const RangedReadOptions& options)
      : RandomAccessReader(std::move(path), std::move(uri), size),
        fetch_(std::move(fetch)),
        options_(options) {}

 protected:
  Result<BufferPtr> DoReadAt(int64_t offset, int64_t length) override {
    // The base class clamped the range to size(); the object may still be shorter when
    // the size came from the caller (OpenReaderWithSize): the helper cuts the buffer.
    return ReadRangeInParallel(fetch_, offset, length, options_, uri());
  }

 private:
  RangeFetch fetch_;
  RangedReadOptions options_;
};

}  // namespace

std::shared_ptr<RandomAccessReader> MakeRangedReader(std::string path, std::string uri,
                                                     int64_t size, RangeFetch fetch,
                                                     const RangedReadOptions& options) {
  return std::make_shared<RangedReader>(std::move(path), std::move(uri), size,
                                        std::move(fetch), options);
}

}  // namespace lance::io::internal
