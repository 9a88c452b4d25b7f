// SPDX-License-Identifier: Apache-2.0
// The natives of dev.lancecpp.Fragment and Dataset.commit: distributed writes. Fragment
// metadata crosses as pylance's FragmentMetadata JSON (FragmentMetadata::ToJson), which
// is also what a Java worker serializes to hand fragments to the committing driver.
#include <jni.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "java_objects.h"
#include "jni_util.h"
#include "lance/core/c_data.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"

namespace lance::jni {
namespace {

jobjectArray ToJsonArray(JNIEnv* env, const std::vector<FragmentMetadata>& fragments) {
  jclass string_cls = env->FindClass("java/lang/String");
  if (string_cls == nullptr) return nullptr;
  jobjectArray out =
      env->NewObjectArray(static_cast<jsize>(fragments.size()), string_cls, nullptr);
  if (out == nullptr) return nullptr;
  for (size_t i = 0; i < fragments.size(); ++i) {
    jstring json = ToJava(env, fragments[i].ToJson());
    if (json == nullptr) return nullptr;
    env->SetObjectArrayElement(out, static_cast<jsize>(i), json);
    env->DeleteLocalRef(json);
  }
  return out;
}

Result<std::vector<FragmentMetadata>> FromJsonArray(JNIEnv* env, jobjectArray jsons) {
  std::vector<FragmentMetadata> out;
  for (const std::string& json : ToStdStrings(env, jsons)) {
    LANCE_ASSIGN_OR_RAISE(FragmentMetadata f, FragmentMetadata::FromJson(json));
    out.push_back(std::move(f));
  }
  return out;
}

jlong CommitAndThrow(JNIEnv* env, const std::string& uri, const Operation& op,
                     jlong read_version, jobject storage_options, jobject provider) {
  std::optional<uint64_t> read;
  if (read_version >= 0) read = static_cast<uint64_t>(read_version);
  auto access = ProviderAccess(env, storage_options, provider);
  if (ExceptionPending(env)) return 0;
  if (!access.ok()) {
    ThrowStatus(env, access.status());
    return 0;
  }
  return HandleOrThrow(env, Dataset::Commit(uri, op, read, *access));
}

}  // namespace
}  // namespace lance::jni

using namespace lance::jni;  // NOLINT(google-build-using-namespace): JNI entry points
                             // only

extern "C" {

// Rows from a C stream (stream_addr) or one exported batch (array_addr + schema_addr).
JNIEXPORT jobjectArray JNICALL Java_dev_lancecpp_Fragment_nativeWriteFragments(
    JNIEnv* env, jclass, jlong stream_addr, jlong array_addr, jlong schema_addr,
    jstring uri, jstring mode, jint max_rows_per_file, jint max_rows_per_group,
    jstring data_storage_version, jobject storage_options, jobject provider) {
  auto params = MakeWriteParams(env, mode, max_rows_per_file, max_rows_per_group,
                                data_storage_version, storage_options, provider);
  if (ExceptionPending(env)) return nullptr;
  if (!params.ok()) {
    ThrowStatus(env, params.status());
    return nullptr;
  }
  // As in nativeWrite: whatever holds the Java stream is gone before an exception is
  // thrown (its release calls into Java).
  lance::Result<std::vector<lance::FragmentMetadata>> written =
      lance::Status::Invalid("no data");
  {
    std::unique_ptr<lance::RecordBatchReader> reader;
    if (stream_addr != 0) {
      auto imported = lance::ImportRecordBatchReader(
          reinterpret_cast<ArrowArrayStream*>(stream_addr));
      if (imported.ok()) {
        reader = std::move(*imported);
      } else {
        written = imported.status();
      }
    } else {
      auto batch = lance::ImportRecordBatch(reinterpret_cast<ArrowArray*>(array_addr),
                                            reinterpret_cast<ArrowSchema*>(schema_addr));
      if (batch.ok()) {
        reader = lance::RecordBatchReader::FromBatches((*batch)->schema(), {*batch});
      } else {
        written = batch.status();
      }
    }
    if (reader != nullptr) {
      written = lance::WriteFragments(*reader, ToStd(env, uri), std::move(*params));
    }
  }
  if (!written.ok()) {
    ThrowStatus(env, written.status());
    return nullptr;
  }
  return ToJsonArray(env, *written);
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeCommitAppend(
    JNIEnv* env, jclass, jstring uri, jobjectArray fragments, jlong read_version,
    jobject storage_options, jobject provider) {
  auto frags = FromJsonArray(env, fragments);
  if (!frags.ok()) {
    ThrowStatus(env, frags.status());
    return 0;
  }
  lance::AppendOp op{std::move(*frags)};
  return CommitAndThrow(env, ToStd(env, uri), op, read_version, storage_options,
                        provider);
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeCommitOverwrite(
    JNIEnv* env, jclass, jstring uri, jobjectArray fragments, jlong schema_addr,
    jlong read_version, jobject storage_options, jobject provider) {
  auto frags = FromJsonArray(env, fragments);
  if (!frags.ok()) {
    ThrowStatus(env, frags.status());
    return 0;
  }
  auto schema = lance::ImportSchema(reinterpret_cast<ArrowSchema*>(schema_addr));
  if (!schema.ok()) {
    ThrowStatus(env, schema.status());
    return 0;
  }
  lance::OverwriteOp op{*schema, std::move(*frags)};
  return CommitAndThrow(env, ToStd(env, uri), op, read_version, storage_options,
                        provider);
}

}  // extern "C"
