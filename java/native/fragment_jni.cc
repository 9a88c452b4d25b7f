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
  if (!OkOrPending(env, access)) return 0;
  return HandleOrThrow(env, Dataset::Commit(uri, op, read, *access));
}

}  // namespace
}  // namespace lance::jni

using namespace lance::jni;  // NOLINT(google-build-using-namespace): JNI entry points
                             // only

extern "C" {

// Rows from a C stream (stream_addr) or one exported batch (array_addr + schema_addr),
// as ImportRows takes them.
JNIEXPORT jobjectArray JNICALL Java_dev_lancecpp_Fragment_nativeWriteFragments(
    JNIEnv* env, jclass, jlong stream_addr, jlong array_addr, jlong schema_addr,
    jstring uri, jobject java_params) {
  auto params = MakeWriteParams(env, java_params);
  if (!OkOrPending(env, params)) return nullptr;
  auto written = ConsumeRows(
      stream_addr, array_addr, schema_addr, [&](lance::RecordBatchReader& rows) {
        return lance::WriteFragments(rows, ToStd(env, uri), std::move(*params));
      });
  if (!OkOrThrow(env, written)) return nullptr;
  return ToJsonArray(env, *written);
}

// Commits `fragments`: an Append (schema_addr 0) or an Overwrite with the exported
// schema.
JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeCommit(
    JNIEnv* env, jclass, jstring uri, jobjectArray fragments, jlong schema_addr,
    jlong read_version, jobject storage_options, jobject provider) {
  auto frags = FromJsonArray(env, fragments);
  if (!OkOrThrow(env, frags)) return 0;
  lance::Operation op;
  if (schema_addr == 0) {
    op = lance::AppendOp{std::move(*frags)};
  } else {
    auto schema = lance::ImportSchema(reinterpret_cast<ArrowSchema*>(schema_addr));
    if (!OkOrThrow(env, schema)) return 0;
    op = lance::OverwriteOp{*schema, std::move(*frags)};
  }
  return CommitAndThrow(env, ToStd(env, uri), op, read_version, storage_options,
                        provider);
}

}  // extern "C"
