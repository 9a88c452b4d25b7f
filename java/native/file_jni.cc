// SPDX-License-Identifier: Apache-2.0
// The natives of dev.lancecpp.file: LanceFileReader, LanceFileWriter and LanceFileSession
// (single Lance files, with storage options and a Java provider refreshing them).
#include <jni.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "java_objects.h"
#include "jni_util.h"
#include "lance/core/c_data.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_session.h"
#include "lance/format/file_writer.h"
#include "lance/macros.h"

namespace lance::jni {
namespace {

using format::LanceFileReader;
using format::LanceFileSession;
using format::LanceFileWriter;

// Batches of several readers, one after the other (the ranges of one read).
class ChainReader : public RecordBatchReader {
 public:
  ChainReader(SchemaPtr schema, std::vector<RecordBatchReaderPtr> parts,
              std::shared_ptr<const LanceFileReader> file)
      : schema_(std::move(schema)), parts_(std::move(parts)), file_(std::move(file)) {}
  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    while (next_ < parts_.size()) {
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, parts_[next_]->Next());
      if (batch != nullptr) return batch;
      ++next_;
    }
    return RecordBatchPtr();
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchReaderPtr> parts_;
  std::shared_ptr<const LanceFileReader> file_;  // kept alive while Java reads
  size_t next_ = 0;
};

Result<std::vector<int32_t>> FieldIds(const LanceFileReader& reader,
                                      const std::vector<std::string>& columns) {
  std::vector<int32_t> ids;
  const auto& schema = reader.schema();
  for (const std::string& name : columns) {
    const int index = schema.schema()->GetFieldIndex(name);
    if (index < 0) {
      return Status::Invalid("column '" + name + "' is not in " + reader.path());
    }
    ids.push_back(schema.SubtreeIds(index).front());
  }
  return ids;
}

jlong OpenWriterAndThrow(JNIEnv* env,
                         const std::function<Result<std::unique_ptr<LanceFileWriter>>(
                             format::LanceSchema, format::FileWriterOptions)>& open,
                         jlong schema_addr, jstring version) {
  auto writer = [&]() -> Result<std::unique_ptr<LanceFileWriter>> {
    LANCE_ASSIGN_OR_RAISE(SchemaPtr schema,
                          ImportSchema(reinterpret_cast<ArrowSchema*>(schema_addr)));
    format::FileWriterOptions options;
    if (version != nullptr) {
      LANCE_ASSIGN_OR_RAISE(options.version,
                            format::ParseWritableFileVersion(ToStd(env, version)));
    }
    LANCE_ASSIGN_OR_RAISE(auto lance_schema, format::LanceSchema::Assign(schema, 0));
    return open(std::move(lance_schema), options);
  }();
  if (!OkOrThrow(env, writer)) return 0;
  return ToHandle(std::shared_ptr<LanceFileWriter>(std::move(*writer)));
}

// The entry points that open a file object at `uri` (reader, writer, session): the
// storage options and provider resolved once (FileAccess), then `open(path, access)`
// answers the handle; 0 with a pending exception when either fails.
template <typename Open>
jlong OpenWithAccess(JNIEnv* env, jstring uri, jobject storage_options, jobject provider,
                     const Open& open) {
  auto access = FileAccess(env, storage_options, provider);
  if (!OkOrPending(env, access)) return 0;
  return open(ToStd(env, uri), *access);
}

// OpenWithAccess for the objects `open(path, access)` answers (a reader, a session):
// their handle.
template <typename Open>
jlong OpenHandle(JNIEnv* env, jstring uri, jobject storage_options, jobject provider,
                 const Open& open) {
  return OpenWithAccess(env, uri, storage_options, provider,
                        [&](const std::string& path, const io::StorageAccess& access) {
                          return HandleOrThrow(env, open(path, access));
                        });
}

// `call(object)` on the live object of `handle`; nullopt when the handle is closed or
// the call failed (its Java exception thrown).
template <typename T, typename Call>
auto CallLive(JNIEnv* env, jlong handle, const char* what, const Call& call)
    -> std::optional<std::decay_t<decltype(*call(std::declval<T&>()))>> {
  auto object = LiveHandle<T>(env, handle, what);
  if (!object) return std::nullopt;
  auto result = call(*object);
  if (!OkOrThrow(env, result)) return std::nullopt;
  return std::move(*result);
}

}  // namespace
}  // namespace lance::jni

using namespace lance::jni;  // NOLINT(google-build-using-namespace): JNI entry points
                             // only
using lance::Status;
using lance::format::LanceFileReader;
using lance::format::LanceFileSession;
using lance::format::LanceFileWriter;

extern "C" {

// ---- LanceFileReader
// -------------------------------------------------------------------

JNIEXPORT jlong JNICALL Java_dev_lancecpp_file_LanceFileReader_nativeOpen(
    JNIEnv* env, jclass, jstring uri, jobject storage_options, jobject provider) {
  return OpenHandle(env, uri, storage_options, provider,
                    [](const std::string& path, const lance::io::StorageAccess& access) {
                      return LanceFileReader::OpenUri(path, access);
                    });
}

JNIEXPORT jlong JNICALL
Java_dev_lancecpp_file_LanceFileReader_nativeNumRows(JNIEnv* env, jclass, jlong handle) {
  auto reader = LiveHandle<LanceFileReader>(env, handle, "LanceFileReader");
  return reader ? reader->num_rows() : 0;
}

JNIEXPORT jstring JNICALL
Java_dev_lancecpp_file_LanceFileReader_nativeVersion(JNIEnv* env, jclass, jlong handle) {
  auto reader = LiveHandle<LanceFileReader>(env, handle, "LanceFileReader");
  return reader ? ToJava(env,
                         std::string(lance::format::FileVersionString(reader->version())))
                : nullptr;
}

JNIEXPORT void JNICALL Java_dev_lancecpp_file_LanceFileReader_nativeSchema(
    JNIEnv* env, jclass, jlong handle, jlong schema_addr) {
  auto reader = LiveHandle<LanceFileReader>(env, handle, "LanceFileReader");
  if (!reader) return;
  OkOrThrow(env, lance::ExportSchema(*reader->schema().schema(),
                                     reinterpret_cast<ArrowSchema*>(schema_addr)));
}

// Columns (null: all) of the row ranges [starts[i], ends[i]) (null: every row), in
// batches.
JNIEXPORT void JNICALL Java_dev_lancecpp_file_LanceFileReader_nativeRead(
    JNIEnv* env, jclass, jlong handle, jobjectArray columns, jlongArray starts,
    jlongArray ends, jint batch_size, jlong stream_addr) {
  auto reader = LiveHandle<LanceFileReader>(env, handle, "LanceFileReader");
  if (!reader) return;
  auto result = [&]() -> lance::Result<std::shared_ptr<lance::RecordBatchReader>> {
    lance::format::FileReadOptions base;
    if (columns != nullptr) {
      LANCE_ASSIGN_OR_RAISE(base.field_ids,
                            FieldIds(*reader, ToStdStrings(env, columns)));
    }
    if (batch_size > 0) base.batch_size = batch_size;
    std::vector<int64_t> from = ToStdLongs(env, starts);
    std::vector<int64_t> to = ToStdLongs(env, ends);
    if (from.size() != to.size())
      return Status::Invalid("ranges: starts and ends differ");
    if (starts == nullptr) {
      from = {0};
      to = {reader->num_rows()};
    }
    std::vector<lance::RecordBatchReaderPtr> parts;
    lance::SchemaPtr schema;
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i] < 0 || to[i] < from[i]) {
        return Status::Invalid("bad range [" + std::to_string(from[i]) + ", " +
                               std::to_string(to[i]) + ")");
      }
      lance::format::FileReadOptions options = base;
      options.offset = from[i];
      options.length = to[i] - from[i];
      LANCE_ASSIGN_OR_RAISE(auto part, reader->Read(options));
      schema = part->schema();
      parts.push_back(std::move(part));
    }
    if (schema == nullptr) {  // no range: the projected schema of an empty read
      lance::format::FileReadOptions options = base;
      options.length = 0;
      LANCE_ASSIGN_OR_RAISE(auto part, reader->Read(options));
      schema = part->schema();
    }
    return std::make_shared<ChainReader>(schema, std::move(parts), reader);
  }();
  ExportStreamOrThrow(env, std::move(result), stream_addr);
}

// ---- LanceFileWriter
// -------------------------------------------------------------------

JNIEXPORT jlong JNICALL Java_dev_lancecpp_file_LanceFileWriter_nativeOpen(
    JNIEnv* env, jclass, jstring uri, jlong schema_addr, jstring version,
    jobject storage_options, jobject provider) {
  return OpenWithAccess(
      env, uri, storage_options, provider,
      [&](const std::string& path, const lance::io::StorageAccess& access) {
        return OpenWriterAndThrow(
            env,
            [&](lance::format::LanceSchema schema,
                lance::format::FileWriterOptions options) {
              return LanceFileWriter::OpenUri(path, std::move(schema), access, options);
            },
            schema_addr, version);
      });
}

JNIEXPORT void JNICALL Java_dev_lancecpp_file_LanceFileWriter_nativeWrite(
    JNIEnv* env, jclass, jlong handle, jlong array_addr, jlong schema_addr) {
  auto writer = LiveHandle<LanceFileWriter>(env, handle, "LanceFileWriter");
  if (!writer) return;
  auto batch = lance::ImportRecordBatch(reinterpret_cast<ArrowArray*>(array_addr),
                                        reinterpret_cast<ArrowSchema*>(schema_addr));
  OkOrThrow(env, batch.ok() ? writer->WriteBatch(**batch) : batch.status());
}

// Publishes the file; returns its row count.
JNIEXPORT jlong JNICALL Java_dev_lancecpp_file_LanceFileWriter_nativeClose(JNIEnv* env,
                                                                           jclass,
                                                                           jlong handle) {
  auto writer = LiveHandle<LanceFileWriter>(env, handle, "LanceFileWriter");
  if (!writer) return 0;
  auto written = writer->Close();
  if (!OkOrThrow(env, written)) return 0;
  return written->num_rows;
}

// Drops the writer; one never closed is aborted (nothing becomes visible).
JNIEXPORT void JNICALL Java_dev_lancecpp_file_LanceFileWriter_nativeRelease(
    JNIEnv*, jclass, jlong handle, jboolean abort) {
  auto writer = FromHandle<LanceFileWriter>(handle);
  if (writer != nullptr && abort == JNI_TRUE) (void)writer->Abort();
  ReleaseHandle(handle);
}

// ---- LanceFileSession
// ------------------------------------------------------------------

JNIEXPORT jlong JNICALL Java_dev_lancecpp_file_LanceFileSession_nativeOpen(
    JNIEnv* env, jclass, jstring base_uri, jobject storage_options, jobject provider) {
  return OpenHandle(env, base_uri, storage_options, provider,
                    [](const std::string& base, const lance::io::StorageAccess& access) {
                      return LanceFileSession::Open(base, access);
                    });
}

JNIEXPORT jboolean JNICALL Java_dev_lancecpp_file_LanceFileSession_nativeContains(
    JNIEnv* env, jclass, jlong handle, jstring path) {
  auto found = CallLive<LanceFileSession>(env, handle, "LanceFileSession",
                                          [&](const LanceFileSession& session) {
                                            return session.Contains(ToStd(env, path));
                                          });
  return found.value_or(false) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jobjectArray JNICALL Java_dev_lancecpp_file_LanceFileSession_nativeList(
    JNIEnv* env, jclass, jlong handle, jstring prefix) {
  auto paths = CallLive<LanceFileSession>(
      env, handle, "LanceFileSession",
      [&](const LanceFileSession& session) { return session.List(ToStd(env, prefix)); });
  if (!paths) return nullptr;
  jclass string_cls = env->FindClass("java/lang/String");
  if (string_cls == nullptr) return nullptr;
  jobjectArray out =
      env->NewObjectArray(static_cast<jsize>(paths->size()), string_cls, nullptr);
  for (size_t i = 0; out != nullptr && i < paths->size(); ++i) {
    jstring s = ToJava(env, (*paths)[i]);
    env->SetObjectArrayElement(out, static_cast<jsize>(i), s);
    env->DeleteLocalRef(s);
  }
  return out;
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_file_LanceFileSession_nativeOpenWriter(
    JNIEnv* env, jclass, jlong handle, jstring path, jlong schema_addr, jstring version) {
  auto session = LiveHandle<LanceFileSession>(env, handle, "LanceFileSession");
  if (!session) return 0;
  const std::string rel = ToStd(env, path);
  return OpenWriterAndThrow(
      env,
      [&](lance::format::LanceSchema schema, lance::format::FileWriterOptions options) {
        return session->OpenWriter(rel, std::move(schema), options);
      },
      schema_addr, version);
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_file_LanceFileSession_nativeOpenReader(
    JNIEnv* env, jclass, jlong handle, jstring path) {
  auto session = LiveHandle<LanceFileSession>(env, handle, "LanceFileSession");
  if (!session) return 0;
  return HandleOrThrow(env, session->OpenReader(ToStd(env, path)));
}

}  // extern "C"
