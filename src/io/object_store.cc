// SPDX-License-Identifier: Apache-2.0

#include "lance/io/object_store.h"

#include <string>
#include <utility>

#include "io/io_util.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

using internal::Quoted;

namespace {

// Shared by keys and prefixes. `allow_partial_last` lets the final segment be any
// non-empty text (a prefix like "a/.." may legitimately match the key "a/..b").
Status ValidateSegments(std::string_view text, bool allow_partial_last,
                        std::string_view what) {
  if (text.find('\0') != std::string_view::npos) {
    return Status::Invalid(std::string(what) + " contains a NUL byte");
  }
  if (text.front() == '/') {
    return Status::Invalid(std::string(what) + " " + Quoted(text) +
                           " must be relative to the store root (no leading '/')");
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('/', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view segment = text.substr(start, end - start);
    if (last && allow_partial_last) break;
    if (segment.empty()) {
      return Status::Invalid(std::string(what) + " " + Quoted(text) +
                             " has an empty path segment");
    }
    if (segment == "." || segment == "..") {
      return Status::Invalid(std::string(what) + " " + Quoted(text) +
                             " has a '.' or '..' segment; keys cannot leave or "
                             "alias the store root");
    }
    start = end + 1;
  }
  return Status::OK();
}

}  // namespace

Status ValidateObjectPath(std::string_view path) {
  if (path.empty()) return Status::Invalid("object key is empty");
  return ValidateSegments(path, /*allow_partial_last=*/false, "object key");
}

Status ValidateListPrefix(std::string_view prefix) {
  if (prefix.empty()) return Status::OK();
  return ValidateSegments(prefix, /*allow_partial_last=*/true, "prefix");
}

// -- RandomAccessReader -----------------------------------------------------------------

Result<BufferPtr> RandomAccessReader::ReadAt(int64_t offset, int64_t length) {
  if (offset < 0 || length < 0) {
    return Status::Invalid("When reading " + Quoted(uri_) + ": negative offset (" +
                           std::to_string(offset) + ") or length (" +
                           std::to_string(length) + ")");
  }
  if (offset > size_) {
    return Status::Invalid(
        "When reading " + Quoted(uri_) + " at offset " + std::to_string(offset) +
        ": the offset is past the end of the " + std::to_string(size_) + "-byte object");
  }
  // Clamping here means implementations never see a range past the end, and callers
  // get the documented short read at EOF.
  const int64_t available = size_ - offset;
  if (length > available) length = available;
  if (length == 0) return Buffer::FromString(std::string());
  return DoReadAt(offset, length);
}

// -- OutputStream -----------------------------------------------------------------------

Status OutputStream::Write(const void* data, int64_t length) {
  switch (state_) {
    case StreamState::kOpen:
      break;
    case StreamState::kFailed:
      return Status::Invalid("When writing " + Quoted(uri_) +
                             ": the stream failed earlier: " + failure_.ToString());
    default:
      return Status::Invalid("When writing " + Quoted(uri_) +
                             ": the stream is already closed or aborted");
  }
  if (length < 0) {
    return Status::Invalid("When writing " + Quoted(uri_) + ": negative length " +
                           std::to_string(length));
  }
  if (length == 0) return Status::OK();
  Status st = DoWrite(data, length);
  if (!st.ok()) {
    // A failed write may have left an unknown amount of data behind, so the object can
    // no longer be completed correctly; discard it now rather than at Close.
    state_ = StreamState::kFailed;
    failure_ = st;
    (void)DoAbort();
    return st;
  }
  position_ += length;
  return Status::OK();
}

Status OutputStream::Close() {
  switch (state_) {
    case StreamState::kClosed:
      return Status::OK();
    case StreamState::kAborted:
      return Status::Invalid("When closing " + Quoted(uri_) + ": the stream was aborted");
    case StreamState::kFailed:
      return failure_;
    case StreamState::kOpen:
      break;
  }
  Status st = DoClose();
  if (!st.ok()) {
    state_ = StreamState::kFailed;
    failure_ = st;
    (void)DoAbort();
    return st;
  }
  state_ = StreamState::kClosed;
  return Status::OK();
}

Status OutputStream::Abort() {
  if (state_ != StreamState::kOpen) return Status::OK();
  state_ = StreamState::kAborted;
  return DoAbort();
}

void OutputStream::AbortIfNotClosed() { (void)Abort(); }

// -- ObjectStore defaults ---------------------------------------------------------------

std::string ObjectStore::ObjectUri(std::string_view path) const {
  std::string out = uri();
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(path);
  return out;
}

Result<bool> ObjectStore::Exists(const std::string& path) {
  Result<ObjectMeta> meta = Head(path);
  if (meta.ok()) return true;
  if (meta.status().IsNotFound()) return false;
  return meta.status();
}

Result<ListResult> ObjectStore::ListAll(const std::string& prefix, bool recursive) {
  ListResult all;
  ListOptions options;
  options.recursive = recursive;
  // Remote stores cap their pages anyway (S3 at 1000 entries).
  options.max_keys = int64_t{1} << 40;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(ListResult page, List(prefix, options));
    for (auto& object : page.objects) all.objects.push_back(std::move(object));
    for (auto& p : page.common_prefixes) all.common_prefixes.push_back(std::move(p));
    if (page.next_token.empty()) break;
    // A store that hands back the token it was given would loop forever.
    if (page.next_token == options.continuation_token) {
      return Status::IOError("When listing " + Quoted(ObjectUri(prefix)) +
                             ": the store returned the same continuation token twice");
    }
    options.continuation_token = std::move(page.next_token);
  }
  return all;
}

Result<std::shared_ptr<RandomAccessReader>> ObjectStore::OpenReaderWithSize(
    const std::string& path, int64_t size) {
  if (size < 0) {
    return Status::Invalid("opening '" + ObjectUri(path) +
                           "' with a negative known size");
  }
  return OpenReader(path);
}

Result<BufferPtr> ObjectStore::Read(const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(auto reader, OpenReader(path));
  return reader->ReadAt(0, reader->size());
}

Result<BufferPtr> ObjectStore::ReadRange(const std::string& path, int64_t offset,
                                         int64_t length) {
  LANCE_ASSIGN_OR_RAISE(auto reader, OpenReader(path));
  return reader->ReadAt(offset, length);
}

Status ObjectStore::Put(const std::string& path, std::string_view data) {
  LANCE_ASSIGN_OR_RAISE(auto writer, OpenWriter(path));
  LANCE_RETURN_NOT_OK(writer->Write(data));
  return writer->Close();
}

Status ObjectStore::DeleteMany(const std::vector<std::string>& paths) {
  for (const auto& path : paths) LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  for (const auto& path : paths) LANCE_RETURN_NOT_OK(Delete(path));
  return Status::OK();
}

Status ObjectStore::DeletePrefix(const std::string& prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  LANCE_ASSIGN_OR_RAISE(ListResult listed, ListAll(prefix, /*recursive=*/true));
  std::vector<std::string> paths;
  paths.reserve(listed.objects.size());
  for (auto& object : listed.objects) paths.push_back(std::move(object.path));
  return DeleteMany(paths);
}

namespace {

// The last step of a move done as a copy: deleting the source once the destination
// holds the object. `done` says so in the error, since both now exist.
Status DeleteMovedSource(ObjectStore& store, const std::string& src,
                         const std::string& dst, std::string_view done) {
  Status st = store.Delete(src);
  if (!st.ok()) {
    return st.WithContext(StrCat("renaming ", Quoted(store.ObjectUri(src)), " to ",
                                 Quoted(store.ObjectUri(dst)), " (", done,
                                 "; removing the source failed)"));
  }
  return Status::OK();
}

}  // namespace

Status ObjectStore::Rename(const std::string& src, const std::string& dst) {
  LANCE_RETURN_NOT_OK(Copy(src, dst));
  if (src == dst) return Status::OK();
  return DeleteMovedSource(*this, src, dst, "the copy exists");
}

Status ObjectStore::RenameIfNotExists(const std::string& src, const std::string& dst) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(src));
  LANCE_RETURN_NOT_OK(ValidateObjectPath(dst));
  LANCE_ASSIGN_OR_RAISE(BufferPtr data, Read(src));
  if (src == dst) {
    return Status::AlreadyExists("When renaming ", Quoted(ObjectUri(src)),
                                 " if the destination does not exist: ",
                                 Quoted(ObjectUri(dst)), " exists (it is the source)");
  }
  LANCE_RETURN_NOT_OK(PutIfNotExists(dst, data->ToStringView()));
  return DeleteMovedSource(*this, src, dst, "the destination was created");
}

// -- ObjectStoreWrapper -----------------------------------------------------------------

Result<ObjectMeta> ObjectStoreWrapper::Head(const std::string& path) {
  return target_->Head(path);
}
Result<ListResult> ObjectStoreWrapper::List(const std::string& prefix,
                                            const ListOptions& options) {
  return target_->List(prefix, options);
}
Result<std::shared_ptr<RandomAccessReader>> ObjectStoreWrapper::OpenReader(
    const std::string& path) {
  return target_->OpenReader(path);
}
Result<std::shared_ptr<RandomAccessReader>> ObjectStoreWrapper::OpenReaderWithSize(
    const std::string& path, int64_t size) {
  return target_->OpenReaderWithSize(path, size);
}
Result<BufferPtr> ObjectStoreWrapper::Read(const std::string& path) {
  return target_->Read(path);
}
Result<BufferPtr> ObjectStoreWrapper::ReadRange(const std::string& path, int64_t offset,
                                                int64_t length) {
  return target_->ReadRange(path, offset, length);
}
Result<std::unique_ptr<OutputStream>> ObjectStoreWrapper::OpenWriter(
    const std::string& path) {
  return target_->OpenWriter(path);
}
Status ObjectStoreWrapper::Put(const std::string& path, std::string_view data) {
  return target_->Put(path, data);
}
Status ObjectStoreWrapper::PutIfNotExists(const std::string& path,
                                          std::string_view data) {
  return target_->PutIfNotExists(path, data);
}
Status ObjectStoreWrapper::Delete(const std::string& path) {
  return target_->Delete(path);
}
Status ObjectStoreWrapper::DeleteMany(const std::vector<std::string>& paths) {
  return target_->DeleteMany(paths);
}
Status ObjectStoreWrapper::DeletePrefix(const std::string& prefix) {
  return target_->DeletePrefix(prefix);
}
Status ObjectStoreWrapper::Copy(const std::string& src, const std::string& dst) {
  return target_->Copy(src, dst);
}
Status ObjectStoreWrapper::Rename(const std::string& src, const std::string& dst) {
  return target_->Rename(src, dst);
}
Status ObjectStoreWrapper::RenameIfNotExists(const std::string& src,
                                             const std::string& dst) {
  return target_->RenameIfNotExists(src, dst);
}
ObjectStoreCapabilities ObjectStoreWrapper::capabilities() const {
  return target_->capabilities();
}
const std::string& ObjectStoreWrapper::uri() const { return target_->uri(); }
const std::string& ObjectStoreWrapper::root() const { return target_->root(); }
std::string ObjectStoreWrapper::ToString() const { return target_->ToString(); }
std::string ObjectStoreWrapper::DisplayPath(std::string_view key) const {
  return target_->DisplayPath(key);
}

}  // namespace lance::io
