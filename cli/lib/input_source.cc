// SPDX-License-Identifier: Apache-2.0
#include "lib/input_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "lance/macros.h"
#include "lance/str_cat.h"
#include "lib/json.h"

namespace lance::cli {

Result<size_t> StringSource::Read(char* out, size_t n) {
  const size_t k = std::min(n, text_.size() - pos_);
  std::memcpy(out, text_.data() + pos_, k);
  pos_ += k;
  return k;
}

FileSource::FileSource(std::string path, int fd, bool owned, int64_t size)
    : path_(std::move(path)), fd_(fd), owned_(owned), size_(size) {}

FileSource::~FileSource() {
  if (owned_) ::close(fd_);
}

Result<std::unique_ptr<FileSource>> FileSource::Open(const std::string& path) {
  int fd = STDIN_FILENO;
  bool owned = false;
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      std::string msg = StrCat("cannot open ", JsonQuote(path), ": ", std::strerror(err));
      return err == ENOENT ? Status::NotFound(msg) : Status::IOError(msg);
    }
    owned = true;
  }
  struct stat st {};
  int64_t size = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) size = st.st_size;
  if (size >= 0 && !owned) {
    // stdin redirected from a file: it may not start at offset 0.
    const off_t at = ::lseek(fd, 0, SEEK_CUR);
    if (at > 0) size -= at;
    if (at != 0) size = -1;  // ReadAt would see the bytes before the position
  }
  if (path != "-") {
    // The kernel may read further ahead: the file is read once from start to end.
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  return std::unique_ptr<FileSource>(new FileSource(path, fd, owned, size));
}

Result<size_t> FileSource::Read(char* out, size_t n) {
  while (true) {
    const ssize_t got = ::read(fd_, out, n);
    if (got >= 0) {
      bytes_read_.fetch_add(got, std::memory_order_relaxed);
      return static_cast<size_t>(got);
    }
    if (errno == EINTR) continue;
    return Status::IOError(
        StrCat("cannot read ", JsonQuote(path_), ": ", std::strerror(errno)));
  }
}

Status FileSource::ReadAt(int64_t offset, char* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got =
        ::pread(fd_, out + done, n - done, offset + static_cast<int64_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return Status::IOError(StrCat("cannot read ", n, " bytes at offset ", offset,
                                    " of ", JsonQuote(path_), ": ",
                                    std::strerror(errno)));
    }
    if (got == 0) {
      return Status::Invalid(StrCat(JsonQuote(path_), " ends at byte ",
                                    offset + static_cast<int64_t>(done), ", before the ",
                                    n, " bytes at offset ", offset));
    }
    done += static_cast<size_t>(got);
    bytes_read_.fetch_add(got, std::memory_order_relaxed);
  }
  return Status::OK();
}

Result<size_t> ReplaySource::Read(char* out, size_t n) {
  if (!recording_ && pos_ < kept_.size()) {
    const size_t k = std::min(n, kept_.size() - pos_);
    std::memcpy(out, kept_.data() + pos_, k);
    pos_ += k;
    if (pos_ == kept_.size()) {
      std::string().swap(kept_);  // release the prefix
      pos_ = 0;
    }
    return k;
  }
  auto got = inner_->Read(out, n);
  if (got.ok() && recording_) kept_.append(out, *got);
  return got;
}

void ReplaySource::Rewind() {
  recording_ = false;
  pos_ = 0;
}

Status RefillBuffer(ByteSource* source, size_t chunk, std::string* buf, size_t* pos,
                    bool* eof) {
  buf->erase(0, *pos);
  *pos = 0;
  const size_t old = buf->size();
  const size_t want = std::max(chunk, old);
  buf->resize(old + want);
  auto got = source->Read(buf->data() + old, want);
  if (!got.ok()) {
    buf->resize(old);
    return got.status();
  }
  buf->resize(old + *got);
  if (*got == 0) *eof = true;
  return Status::OK();
}

Status LineReader::Refill() {
  return RefillBuffer(source_, kChunkBytes, &buf_, &pos_, &eof_);
}

Result<bool> LineReader::Next(std::string_view* line, int64_t* number) {
  size_t scanned = 0;  // bytes after pos_ known to hold no '\n'
  while (true) {
    if (!bom_checked_) {
      if (buf_.size() - pos_ < 3 && !eof_) {
        LANCE_RETURN_NOT_OK(Refill());
        continue;
      }
      if (std::string_view(buf_).substr(pos_, 3) == "\xEF\xBB\xBF") pos_ += 3;
      bom_checked_ = true;
    }
    const char* begin = buf_.data() + pos_;
    const size_t avail = buf_.size() - pos_;
    const void* nl =
        avail > scanned ? std::memchr(begin + scanned, '\n', avail - scanned) : nullptr;
    std::string_view l;
    if (nl != nullptr) {
      const size_t len = static_cast<size_t>(static_cast<const char*>(nl) - begin);
      l = std::string_view(begin, len);
      pos_ += len + 1;
    } else if (!eof_) {
      scanned = avail;
      LANCE_RETURN_NOT_OK(Refill());
      continue;
    } else if (avail > 0) {
      l = std::string_view(begin, avail);
      pos_ += avail;
    } else {
      return false;
    }
    scanned = 0;
    ++line_;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
    *line = l;
    *number = line_;
    return true;
  }
}

}  // namespace lance::cli
