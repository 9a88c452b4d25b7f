// SPDX-License-Identifier: Apache-2.0
// The few things every JNI entry point of the Java bindings needs: strings, maps and
// lists across the boundary, a Status thrown as the Java exception its code calls for,
// and native objects owned by a Java `long` handle.
#pragma once

#include <jni.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/macros.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::jni {

/// \brief Throws the Java exception for `status` (which must not be OK): Invalid ->
/// IllegalArgumentException; NotFound, AlreadyExists, Conflict, Forbidden /
/// Unauthorized / TokenExpired, IOError / Unavailable / Corrupt -> the
/// dev.lancecpp.LanceException subclass of that kind; anything else -> LanceException.
/// The message is the Status's (which never holds a secret); the kind and retryable flag
/// travel as well.
void ThrowStatus(JNIEnv* env, const Status& status);
/// \brief Throws IllegalStateException("<what> is closed").
void ThrowClosed(JNIEnv* env, const char* what);

/// \brief True (and a Java exception pending) if the JVM raised one.
bool ExceptionPending(JNIEnv* env);

/// \brief True for an OK `status`; otherwise false, with its Java exception thrown (the
/// entry point then returns its null value).
bool OkOrThrow(JNIEnv* env, const Status& status);
template <typename T>
bool OkOrThrow(JNIEnv* env, const Result<T>& result) {
  return OkOrThrow(env, result.status());
}
/// \brief OkOrThrow for what a Java-calling helper (ProviderAccess, MakeWriteParams, ...)
/// returned: false as well when the JVM raised an exception of its own meanwhile.
template <typename T>
bool OkOrPending(JNIEnv* env, const Result<T>& result) {
  return !ExceptionPending(env) && OkOrThrow(env, result);
}

std::string ToStd(JNIEnv* env, jstring s);
/// \brief nullopt for a Java null.
std::optional<std::string> ToOptional(JNIEnv* env, jstring s);
jstring ToJava(JNIEnv* env, const std::string& s);
/// \brief A java.util.Map<String,String> (null: empty) as a std::map.
std::map<std::string, std::string> ToStdMap(JNIEnv* env, jobject map);
/// \brief A new java.util.HashMap<String,String>; nullptr with an exception pending.
jobject ToJavaMap(JNIEnv* env, const std::map<std::string, std::string>& map);
/// \brief A String[] (null: empty) as a vector.
std::vector<std::string> ToStdStrings(JNIEnv* env, jobjectArray array);
std::vector<int64_t> ToStdLongs(JNIEnv* env, jlongArray array);

/// \brief `reader` as Java may import it: Arrow Java's C Data import does not honour a
/// non-zero array offset (seen with Arrow Java 19: a batch sliced out of a decoded page
/// came back as the page's first rows), so a batch holding a sliced array anywhere (a
/// child or a dictionary included) is handed over compacted (Concatenate: fresh buffers,
/// offset 0). Unsliced batches still cross zero-copy.
std::shared_ptr<RecordBatchReader> ForJava(std::shared_ptr<RecordBatchReader> reader);

/// \brief Hands `reader` (ForJava) to Java through the ArrowArrayStream Java allocated at
/// `stream_addr`; an error of `reader` or of the export is thrown as a Java exception.
void ExportStreamOrThrow(JNIEnv* env, Result<std::shared_ptr<RecordBatchReader>> reader,
                         jlong stream_addr);

/// \brief The rows Java hands over: the ArrowArrayStream at `stream_addr` (taken over),
/// or, when that is 0, the one exported batch at `array_addr` + `schema_addr`.
Result<std::unique_ptr<RecordBatchReader>> ImportRows(jlong stream_addr,
                                                      jlong array_addr = 0,
                                                      jlong schema_addr = 0);

/// \brief `consume` run on ImportRows(...). The rows -- and the Java stream, whose
/// release calls back into Java -- are released when this returns: the caller throws
/// the error of the result only afterwards, as JNI allows no call into Java with an
/// exception pending.
template <typename ConsumeFn>
auto ConsumeRows(jlong stream_addr, jlong array_addr, jlong schema_addr,
                 ConsumeFn consume)
    -> decltype(consume(std::declval<RecordBatchReader&>())) {
  LANCE_ASSIGN_OR_RAISE(std::unique_ptr<RecordBatchReader> rows,
                        ImportRows(stream_addr, array_addr, schema_addr));
  return consume(*rows);
}

/// \brief A native object a Java object owns through a `long` field: `new`ed here,
/// deleted by the Java object's close() (which guards every use with a lock, so a
/// handle is never used after it is released). The handle holds the object type-erased
/// (its deleter travels with it), so that one release serves every kind of handle
/// (NativeHandle.nativeRelease); it is read back as the type it was made from.
template <typename T>
jlong ToHandle(std::shared_ptr<T> object) {
  return reinterpret_cast<jlong>(new std::shared_ptr<void>(std::move(object)));
}
template <typename T>
std::shared_ptr<T> FromHandle(jlong handle) {
  if (handle == 0) return nullptr;
  return std::static_pointer_cast<T>(*reinterpret_cast<std::shared_ptr<void>*>(handle));
}
/// \brief The object of a live handle; nullptr, with IllegalStateException("<what> is
/// closed") thrown, for a released one.
template <typename T>
std::shared_ptr<T> LiveHandle(JNIEnv* env, jlong handle, const char* what) {
  std::shared_ptr<T> object = FromHandle<T>(handle);
  if (object == nullptr) ThrowClosed(env, what);
  return object;
}
/// \brief The handle of `result`'s object, or 0 with the Java exception of its error.
template <typename T>
jlong HandleOrThrow(JNIEnv* env, Result<std::shared_ptr<T>> result) {
  if (!OkOrThrow(env, result)) return 0;
  return ToHandle(std::move(*result));
}
/// \brief Drops the handle's reference to its object (of any type).
inline void ReleaseHandle(jlong handle) {
  delete reinterpret_cast<std::shared_ptr<void>*>(handle);
}

}  // namespace lance::jni
