// SPDX-License-Identifier: Apache-2.0
// Byte sources that `import` reads its input from in chunks, so that memory stays
// bounded whatever the input's size: a file or stdin (through its descriptor), text held
// in memory, and a source that records a prefix to be read again (schema inference).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lance/result.h"

namespace lance::cli {

/// \brief Sequential bytes.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// \brief Reads up to `n` bytes into `out`; 0 only at the end of the input.
  virtual Result<size_t> Read(char* out, size_t n) = 0;
};

/// \brief Text held in memory.
class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string text) : text_(std::move(text)) {}
  Result<size_t> Read(char* out, size_t n) override;

 private:
  std::string text_;
  size_t pos_ = 0;
};

/// \brief A file, or stdin for "-", read through its file descriptor (no stdio buffer).
///
/// Counts the bytes read (also by ReadAt), which a progress bar may read from any
/// thread.
class FileSource : public ByteSource {
 public:
  /// \return NotFound when the file does not exist, IOError otherwise.
  static Result<std::unique_ptr<FileSource>> Open(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<size_t> Read(char* out, size_t n) override;
  /// \brief Reads exactly `n` bytes at `offset` (pread); only for seekable inputs.
  Status ReadAt(int64_t offset, char* out, size_t n);

  /// \brief The size of a regular file, or -1 (a pipe, stdin from a terminal ...).
  int64_t size() const { return size_; }
  /// \brief Whether ReadAt works (a regular file).
  bool seekable() const { return size_ >= 0; }
  int64_t bytes_read() const { return bytes_read_.load(std::memory_order_relaxed); }
  const std::string& path() const { return path_; }

 private:
  FileSource(std::string path, int fd, bool owned, int64_t size);
  std::string path_;
  int fd_;
  bool owned_;
  int64_t size_;
  std::atomic<int64_t> bytes_read_{0};
};

/// \brief Reads through `inner`, keeping what it reads until Rewind(); after it, reads
/// that kept prefix again (then releases it) and continues with `inner`.
class ReplaySource : public ByteSource {
 public:
  explicit ReplaySource(ByteSource* inner) : inner_(inner) {}
  Result<size_t> Read(char* out, size_t n) override;
  /// \brief Stops recording; the next reads start again at the beginning.
  void Rewind();
  /// \brief Bytes recorded so far (before Rewind).
  size_t recorded() const { return kept_.size(); }

 private:
  ByteSource* inner_;
  std::string kept_;
  size_t pos_ = 0;
  bool recording_ = true;
};

/// \brief Drops the consumed prefix buf[0, *pos) and appends what `source` gives for at
/// least `chunk` bytes, or as many as `buf` already holds (so that a record longer than a
/// chunk costs linear time, not quadratic); *eof once the source is exhausted. On an
/// error `buf` keeps what it held. The one refill of the chunked readers (CSV, lines).
Status RefillBuffer(ByteSource* source, size_t chunk, std::string* buf, size_t* pos,
                    bool* eof);

/// \brief The non-blank lines of a source, with their 1-based line numbers.
///
/// Line ends are LF or CRLF; a UTF-8 byte order mark at the very start is skipped. Lines
/// may be any length (the buffer grows to hold the longest one).
class LineReader {
 public:
  static constexpr size_t kChunkBytes = 1 << 20;
  explicit LineReader(ByteSource* source) : source_(source) {}
  /// \brief The next non-blank line (valid until the next call), false at the end.
  Result<bool> Next(std::string_view* line, int64_t* number);

 private:
  Status Refill();
  ByteSource* source_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  bool bom_checked_ = false;
  int64_t line_ = 0;
};

}  // namespace lance::cli
