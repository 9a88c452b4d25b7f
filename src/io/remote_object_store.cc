// SPDX-License-Identifier: Apache-2.0
// What the S3, Azure and GCS stores do alike (see remote_object_store.h).

#include "lance/io/remote_object_store.h"

#include <string>
#include <utility>

#include "io/io_util.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

using internal::Quoted;

Status RemoteObjectStore::CheckKey(const std::string& key,
                                   std::string_view action) const {
  Status st = ValidateObjectPath(key);
  if (!st.ok()) return st.WithContext(StrCat(action, " ", ObjectUri(key)));
  return Status::OK();
}

Result<ObjectMeta> RemoteObjectStore::Head(const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path, "getting the metadata of"));
  LANCE_ASSIGN_OR_RAISE(RemoteObject object, StatObject(path));
  return std::move(object.meta);
}

Result<std::shared_ptr<RandomAccessReader>> RemoteObjectStore::OpenReader(
    const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path, "opening"));
  LANCE_ASSIGN_OR_RAISE(RemoteObject object, StatObject(path));
  return NewReader(path, object.meta.size, std::move(object.version));
}

Result<std::shared_ptr<RandomAccessReader>> RemoteObjectStore::OpenReaderWithSize(
    const std::string& path, int64_t size) {
  LANCE_RETURN_NOT_OK(CheckKey(path, "opening"));
  if (size < 0) {
    return Status::Invalid("opening ", Quoted(ObjectUri(path)),
                           " with a negative known size (", size, ")");
  }
  return NewReader(path, size, std::string());
}

Result<BufferPtr> RemoteObjectStore::Read(const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path, "reading"));
  // One GET: the response is one consistent version, so no HEAD or pinning is needed.
  return GetObject(path);
}

Result<std::unique_ptr<OutputStream>> RemoteObjectStore::OpenWriter(
    const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path, "writing"));
  return NewWriter(path);
}

Status RemoteObjectStore::Put(const std::string& path, std::string_view data) {
  LANCE_RETURN_NOT_OK(CheckKey(path, "writing"));
  return PutObject(path, data, /*if_not_exists=*/false);
}

Status RemoteObjectStore::PutIfNotExists(const std::string& path, std::string_view data) {
  LANCE_RETURN_NOT_OK(CheckKey(path, "creating"));
  return PutObject(path, data, /*if_not_exists=*/true);
}

Status RemoteObjectStore::Delete(const std::string& path) {
  LANCE_RETURN_NOT_OK(CheckKey(path, "deleting"));
  return DeleteObject(path);
}

Status RemoteObjectStore::Copy(const std::string& src, const std::string& dst) {
  LANCE_RETURN_NOT_OK(CheckKey(src, "copying"));
  LANCE_RETURN_NOT_OK(CheckKey(dst, "copying to"));
  // A copy onto itself changes nothing (and S3 refuses it); only the source's existence
  // matters.
  if (src == dst) return Head(src).status();
  Status st = CopyObject(src, dst);
  if (!st.ok()) {
    return st.WithContext(
        StrCat("copying ", Quoted(ObjectUri(src)), " to ", Quoted(ObjectUri(dst))));
  }
  return Status::OK();
}

}  // namespace lance::io
