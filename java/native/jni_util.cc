// SPDX-License-Identifier: Apache-2.0
#include "jni_util.h"

#include <string_view>
#include <utility>

#include "lance/core/array.h"
#include "lance/core/c_data.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::jni {
namespace {

// The dev.lancecpp exception class for a Status code; nullptr for IllegalArgument.
const char* ExceptionClass(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalid:
      return nullptr;
    case StatusCode::kNotFound:
      return "dev/lancecpp/NotFoundException";
    case StatusCode::kAlreadyExists:
      return "dev/lancecpp/AlreadyExistsException";
    case StatusCode::kConflict:
      return "dev/lancecpp/ConflictException";
    case StatusCode::kForbidden:
    case StatusCode::kUnauthorized:
    case StatusCode::kTokenExpired:
      return "dev/lancecpp/PermissionDeniedException";
    case StatusCode::kIOError:
    case StatusCode::kUnavailable:
    case StatusCode::kCorrupt:
      return "dev/lancecpp/LanceIOException";
    default:
      return "dev/lancecpp/LanceException";
  }
}

bool Sliced(const ArrayData& data) {
  if (data.offset != 0) return true;
  for (const auto& child : data.children) {
    if (child != nullptr && Sliced(*child)) return true;
  }
  return data.dictionary != nullptr && Sliced(*data.dictionary);
}

class CompactingReader : public RecordBatchReader {
 public:
  explicit CompactingReader(std::shared_ptr<RecordBatchReader> inner)
      : inner_(std::move(inner)) {}
  SchemaPtr schema() const override { return inner_->schema(); }
  Result<RecordBatchPtr> Next() override {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, inner_->Next());
    if (batch == nullptr) return batch;
    bool any = false;
    for (const auto& column : batch->columns()) any = any || Sliced(*column->data());
    if (!any) return batch;
    std::vector<ArrayPtr> columns;
    columns.reserve(batch->columns().size());
    for (const auto& column : batch->columns()) {
      if (Sliced(*column->data())) {
        LANCE_ASSIGN_OR_RAISE(ArrayPtr compact, Concatenate({column}));
        columns.push_back(std::move(compact));
      } else {
        columns.push_back(column);
      }
    }
    return RecordBatch::Make(batch->schema(), batch->num_rows(), std::move(columns));
  }

 private:
  std::shared_ptr<RecordBatchReader> inner_;
};

}  // namespace

std::shared_ptr<RecordBatchReader> ForJava(std::shared_ptr<RecordBatchReader> reader) {
  return std::make_shared<CompactingReader>(std::move(reader));
}

void ThrowStatus(JNIEnv* env, const Status& status) {
  const std::string& message = status.message();
  const char* cls_name = ExceptionClass(status.code());
  if (cls_name == nullptr) {
    jclass iae = env->FindClass("java/lang/IllegalArgumentException");
    if (iae != nullptr) env->ThrowNew(iae, message.c_str());
    return;
  }
  jclass cls = env->FindClass(cls_name);
  if (cls == nullptr) return;  // NoClassDefFoundError pending
  jmethodID ctor =
      env->GetMethodID(cls, "<init>", "(Ljava/lang/String;Ljava/lang/String;Z)V");
  if (ctor == nullptr) return;
  jstring jmsg = ToJava(env, message);
  jstring jkind = ToJava(env, std::string(StatusCodeName(status.code())));
  if (jmsg == nullptr || jkind == nullptr) return;
  auto* ex = static_cast<jthrowable>(
      env->NewObject(cls, ctor, jmsg, jkind, static_cast<jboolean>(status.retryable())));
  if (ex != nullptr) env->Throw(ex);
}

void ThrowClosed(JNIEnv* env, const char* what) {
  jclass cls = env->FindClass("java/lang/IllegalStateException");
  if (cls != nullptr) env->ThrowNew(cls, (std::string(what) + " is closed").c_str());
}

bool ExceptionPending(JNIEnv* env) { return env->ExceptionCheck() == JNI_TRUE; }

bool OkOrThrow(JNIEnv* env, const Status& status) {
  if (status.ok()) return true;
  ThrowStatus(env, status);
  return false;
}

void ExportStreamOrThrow(JNIEnv* env, Result<std::shared_ptr<RecordBatchReader>> reader,
                         jlong stream_addr) {
  if (!OkOrThrow(env, reader)) return;
  OkOrThrow(env,
            ExportRecordBatchReader(ForJava(std::move(*reader)),
                                    reinterpret_cast<ArrowArrayStream*>(stream_addr)));
}

Result<std::unique_ptr<RecordBatchReader>> ImportRows(jlong stream_addr, jlong array_addr,
                                                      jlong schema_addr) {
  if (stream_addr != 0) {
    return ImportRecordBatchReader(reinterpret_cast<ArrowArrayStream*>(stream_addr));
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                        ImportRecordBatch(reinterpret_cast<ArrowArray*>(array_addr),
                                          reinterpret_cast<ArrowSchema*>(schema_addr)));
  return RecordBatchReader::FromBatches(batch->schema(), {batch});
}

std::string ToStd(JNIEnv* env, jstring s) {
  if (s == nullptr) return {};
  const char* chars = env->GetStringUTFChars(s, nullptr);
  if (chars == nullptr) return {};
  // Modified UTF-8 differs from UTF-8 only for NUL and supplementary characters, which
  // paths, filters and option values do not hold in practice.
  std::string out(chars, static_cast<size_t>(env->GetStringUTFLength(s)));
  env->ReleaseStringUTFChars(s, chars);
  return out;
}

std::optional<std::string> ToOptional(JNIEnv* env, jstring s) {
  if (s == nullptr) return std::nullopt;
  return ToStd(env, s);
}

jstring ToJava(JNIEnv* env, const std::string& s) { return env->NewStringUTF(s.c_str()); }

std::map<std::string, std::string> ToStdMap(JNIEnv* env, jobject map) {
  std::map<std::string, std::string> out;
  if (map == nullptr) return out;
  jclass map_cls = env->GetObjectClass(map);
  jmethodID entry_set = env->GetMethodID(map_cls, "entrySet", "()Ljava/util/Set;");
  if (entry_set == nullptr) return out;
  jobject set = env->CallObjectMethod(map, entry_set);
  if (ExceptionPending(env) || set == nullptr) return out;
  jclass set_cls = env->GetObjectClass(set);
  jmethodID iterator = env->GetMethodID(set_cls, "iterator", "()Ljava/util/Iterator;");
  jobject it = env->CallObjectMethod(set, iterator);
  if (ExceptionPending(env) || it == nullptr) return out;
  jclass it_cls = env->GetObjectClass(it);
  jmethodID has_next = env->GetMethodID(it_cls, "hasNext", "()Z");
  jmethodID next = env->GetMethodID(it_cls, "next", "()Ljava/lang/Object;");
  jclass entry_cls = env->FindClass("java/util/Map$Entry");
  jmethodID get_key = env->GetMethodID(entry_cls, "getKey", "()Ljava/lang/Object;");
  jmethodID get_value = env->GetMethodID(entry_cls, "getValue", "()Ljava/lang/Object;");
  while (env->CallBooleanMethod(it, has_next) == JNI_TRUE && !ExceptionPending(env)) {
    jobject entry = env->CallObjectMethod(it, next);
    if (ExceptionPending(env)) break;
    auto key = static_cast<jstring>(env->CallObjectMethod(entry, get_key));
    auto value = static_cast<jstring>(env->CallObjectMethod(entry, get_value));
    if (key != nullptr && value != nullptr) out[ToStd(env, key)] = ToStd(env, value);
    env->DeleteLocalRef(key);
    env->DeleteLocalRef(value);
    env->DeleteLocalRef(entry);
  }
  return out;
}

jobject ToJavaMap(JNIEnv* env, const std::map<std::string, std::string>& map) {
  jclass cls = env->FindClass("java/util/HashMap");
  if (cls == nullptr) return nullptr;
  jmethodID ctor = env->GetMethodID(cls, "<init>", "()V");
  jmethodID put = env->GetMethodID(
      cls, "put", "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;");
  jobject out = env->NewObject(cls, ctor);
  if (out == nullptr) return nullptr;
  for (const auto& [k, v] : map) {
    jstring jk = ToJava(env, k);
    jstring jv = ToJava(env, v);
    if (jk == nullptr || jv == nullptr) return nullptr;
    env->CallObjectMethod(out, put, jk, jv);
    if (ExceptionPending(env)) return nullptr;
    env->DeleteLocalRef(jk);
    env->DeleteLocalRef(jv);
  }
  return out;
}

std::vector<std::string> ToStdStrings(JNIEnv* env, jobjectArray array) {
  std::vector<std::string> out;
  if (array == nullptr) return out;
  const jsize n = env->GetArrayLength(array);
  out.reserve(static_cast<size_t>(n));
  for (jsize i = 0; i < n; ++i) {
    auto s = static_cast<jstring>(env->GetObjectArrayElement(array, i));
    out.push_back(ToStd(env, s));
    env->DeleteLocalRef(s);
  }
  return out;
}

std::vector<int64_t> ToStdLongs(JNIEnv* env, jlongArray array) {
  std::vector<int64_t> out;
  if (array == nullptr) return out;
  const jsize n = env->GetArrayLength(array);
  out.resize(static_cast<size_t>(n));
  if (n > 0) env->GetLongArrayRegion(array, 0, n, reinterpret_cast<jlong*>(out.data()));
  return out;
}

}  // namespace lance::jni

extern "C" {

// Every NativeHandle's release (handles of any type; see ToHandle).
JNIEXPORT void JNICALL Java_dev_lancecpp_NativeHandle_nativeRelease(JNIEnv*, jclass,
                                                                    jlong handle) {
  lance::jni::ReleaseHandle(handle);
}

}  // extern "C"
