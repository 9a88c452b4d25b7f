// SPDX-License-Identifier: Apache-2.0
// The natives of dev.lancecpp.Dataset and dev.lancecpp.ipc.LanceScanner. Arrow data
// crosses as C Data / C Stream structs whose addresses Java allocated (arrow-c-data's
// ArrowArrayStream.allocateNew): zero-copy both ways.
#include <jni.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "java_objects.h"
#include "jni_util.h"
#include "lance/core/c_data.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"
#include "lance/namespace/dataset_ops.h"

namespace lance::jni {
namespace {

using DatasetPtr = std::shared_ptr<Dataset>;

DatasetPtr Get(JNIEnv* env, jlong handle) {
  return LiveHandle<Dataset>(env, handle, "Dataset");
}

// A scan's reader holding its dataset: the Java Dataset may be closed while the
// ArrowReader it handed out is still being read.
class KeepAliveReader : public RecordBatchReader {
 public:
  KeepAliveReader(DatasetPtr ds, RecordBatchReaderPtr inner)
      : ds_(std::move(ds)), inner_(std::move(inner)) {}
  SchemaPtr schema() const override { return inner_->schema(); }
  Result<RecordBatchPtr> Next() override { return inner_->Next(); }

 private:
  DatasetPtr ds_;
  RecordBatchReaderPtr inner_;
};

}  // namespace
}  // namespace lance::jni

using lance::Dataset;
using lance::Result;
using lance::Status;
using namespace lance::jni;  // NOLINT(google-build-using-namespace): JNI entry points
                             // only

extern "C" {

JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeOpen(JNIEnv* env, jclass,
                                                             jstring uri, jlong version,
                                                             jobject storage_options,
                                                             jobject provider) {
  lance::OpenOptions options;
  if (version >= 0) options.version = static_cast<uint64_t>(version);
  auto access = ProviderAccess(env, storage_options, provider);
  if (!OkOrPending(env, access)) return 0;
  options.access = std::move(*access);
  return HandleOrThrow(env, Dataset::Open(ToStd(env, uri), std::move(options)));
}

// Dataset.open().namespaceClient(ns).tableId(id): one describe_table, then the table's
// vended credentials refreshed through the same Java namespace.
JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeOpenNamespace(
    JNIEnv* env, jclass, jobject java_namespace, jobjectArray table_id, jlong version,
    jobject storage_options, jboolean ignore_namespace_storage_options) {
  auto ns = WrapJavaNamespace(env, java_namespace);
  if (!OkOrThrow(env, ns)) return 0;
  lance::OpenOptions options;
  if (version >= 0) options.version = static_cast<uint64_t>(version);
  options.access = lance::io::StorageAccess(ToStdMap(env, storage_options));
  lance::ns::NamespaceAccessOptions access_options;
  access_options.ignore_namespace_storage_options = ignore_namespace_storage_options;
  return HandleOrThrow(env, lance::ns::OpenDataset(*ns, ToStdStrings(env, table_id),
                                                   std::move(options), access_options));
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeWrite(JNIEnv* env, jclass,
                                                              jlong stream_addr,
                                                              jstring uri,
                                                              jobject java_params) {
  auto params = MakeWriteParams(env, java_params);
  if (!OkOrPending(env, params)) return 0;
  const std::string path = ToStd(env, uri);
  return HandleOrThrow(
      env, ConsumeRows(stream_addr, 0, 0, [&](lance::RecordBatchReader& data) {
        return Dataset::Write(data, path, std::move(*params));
      }));
}

// Dataset.write().namespaceClient(ns).tableId(id): create declares the table (one
// declare_table), append / overwrite describe it (one describe_table).
JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeWriteNamespace(
    JNIEnv* env, jclass, jlong stream_addr, jobject java_namespace, jobjectArray table_id,
    jobject java_params, jboolean ignore_namespace_storage_options) {
  auto params = MakeWriteParams(env, java_params);
  if (ExceptionPending(env)) return 0;
  auto ns = WrapJavaNamespace(env, java_namespace);
  if (!OkOrThrow(env, !params.ok() ? params.status() : ns.status())) return 0;
  lance::ns::NamespaceAccessOptions access_options;
  access_options.ignore_namespace_storage_options = ignore_namespace_storage_options;
  const auto id = ToStdStrings(env, table_id);
  return HandleOrThrow(
      env, ConsumeRows(stream_addr, 0, 0, [&](lance::RecordBatchReader& data) {
        return lance::ns::WriteDataset(data, *ns, id, std::move(*params), access_options);
      }));
}

JNIEXPORT jstring JNICALL Java_dev_lancecpp_Dataset_nativeUri(JNIEnv* env, jclass,
                                                              jlong handle) {
  auto ds = Get(env, handle);
  return ds ? ToJava(env, ds->uri()) : nullptr;
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeVersion(JNIEnv* env, jclass,
                                                                jlong handle) {
  auto ds = Get(env, handle);
  return ds ? static_cast<jlong>(ds->version()) : 0;
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeLatestVersion(JNIEnv* env, jclass,
                                                                      jlong handle) {
  auto ds = Get(env, handle);
  if (!ds) return 0;
  auto v = ds->LatestVersion();
  if (!OkOrThrow(env, v)) return 0;
  return static_cast<jlong>(*v);
}

JNIEXPORT jstring JNICALL
Java_dev_lancecpp_Dataset_nativeDataStorageVersion(JNIEnv* env, jclass, jlong handle) {
  auto ds = Get(env, handle);
  return ds ? ToJava(env, ds->data_storage_version()) : nullptr;
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeCountRows(JNIEnv* env, jclass,
                                                                  jlong handle,
                                                                  jstring filter) {
  auto ds = Get(env, handle);
  if (!ds) return 0;
  auto n = ds->CountRows(ToStd(env, filter));
  if (!OkOrThrow(env, n)) return 0;
  return static_cast<jlong>(*n);
}

JNIEXPORT void JNICALL Java_dev_lancecpp_Dataset_nativeDelete(JNIEnv* env, jclass,
                                                              jlong handle,
                                                              jstring predicate) {
  auto ds = Get(env, handle);
  if (!ds) return;
  OkOrThrow(env, ds->Delete(ToStd(env, predicate)));
}

JNIEXPORT jlong JNICALL Java_dev_lancecpp_Dataset_nativeCheckoutVersion(JNIEnv* env,
                                                                        jclass,
                                                                        jlong handle,
                                                                        jlong version) {
  auto ds = Get(env, handle);
  if (!ds) return 0;
  if (version < 0) {
    ThrowStatus(env, Status::Invalid("version must not be negative, got " +
                                     std::to_string(version)));
    return 0;
  }
  return HandleOrThrow(env, ds->CheckoutVersion(static_cast<uint64_t>(version)));
}

// Every version as a dev.lancecpp.Version (id, commit time in ms, summary metadata).
JNIEXPORT jobjectArray JNICALL
Java_dev_lancecpp_Dataset_nativeListVersions(JNIEnv* env, jclass, jlong handle) {
  auto ds = Get(env, handle);
  if (!ds) return nullptr;
  auto versions = ds->Versions();
  if (!OkOrThrow(env, versions)) return nullptr;
  jclass version_cls = env->FindClass("dev/lancecpp/Version");
  if (version_cls == nullptr) return nullptr;
  jmethodID ctor = env->GetMethodID(version_cls, "<init>", "(JJLjava/util/Map;)V");
  if (ctor == nullptr) return nullptr;
  jobjectArray out =
      env->NewObjectArray(static_cast<jsize>(versions->size()), version_cls, nullptr);
  if (out == nullptr) return nullptr;
  for (size_t i = 0; i < versions->size(); ++i) {
    const auto& v = (*versions)[i];
    jobject metadata = ToJavaMap(env, v.metadata);
    if (metadata == nullptr) return nullptr;
    jobject version = env->NewObject(version_cls, ctor, static_cast<jlong>(v.version),
                                     static_cast<jlong>(v.timestamp_ms), metadata);
    if (version == nullptr) return nullptr;
    env->SetObjectArrayElement(out, static_cast<jsize>(i), version);
    env->DeleteLocalRef(version);
    env->DeleteLocalRef(metadata);
  }
  return out;
}

JNIEXPORT void JNICALL Java_dev_lancecpp_Dataset_nativeSchema(JNIEnv* env, jclass,
                                                              jlong handle,
                                                              jlong schema_addr) {
  auto ds = Get(env, handle);
  if (!ds) return;
  OkOrThrow(env, lance::ExportSchema(*ds->schema(),
                                     reinterpret_cast<ArrowSchema*>(schema_addr)));
}

JNIEXPORT void JNICALL Java_dev_lancecpp_Dataset_nativeTake(JNIEnv* env, jclass,
                                                            jlong handle,
                                                            jlongArray indices,
                                                            jobjectArray columns,
                                                            jlong stream_addr) {
  auto ds = Get(env, handle);
  if (!ds) return;
  lance::TakeOptions options;
  options.columns = ToStdStrings(env, columns);
  auto table = ds->Take(ToStdLongs(env, indices), options);
  if (!OkOrThrow(env, table)) return;
  ExportStreamOrThrow(
      env, lance::RecordBatchReader::FromBatches((*table)->schema(), (*table)->batches()),
      stream_addr);
}

JNIEXPORT void JNICALL Java_dev_lancecpp_ipc_LanceScanner_nativeScan(
    JNIEnv* env, jclass, jlong handle, jobjectArray columns, jstring filter, jlong limit,
    jlong offset, jlong batch_size, jboolean with_row_id, jlongArray fragment_ids,
    jlong stream_addr) {
  auto ds = Get(env, handle);
  if (!ds) return;
  lance::ScanOptions options;
  options.columns = ToStdStrings(env, columns);
  options.filter = ToStd(env, filter);
  if (limit >= 0) options.limit = limit;
  options.offset = offset;
  if (batch_size > 0) options.batch_size = batch_size;
  options.with_row_id = with_row_id == JNI_TRUE;
  if (fragment_ids != nullptr) {
    std::vector<uint64_t> ids;
    for (int64_t id : ToStdLongs(env, fragment_ids))
      ids.push_back(static_cast<uint64_t>(id));
    options.fragment_ids = std::move(ids);
  }
  auto reader = ds->Scan(options);
  if (!OkOrThrow(env, reader)) return;
  ExportStreamOrThrow(env, std::make_shared<KeepAliveReader>(ds, std::move(*reader)),
                      stream_addr);
}

}  // extern "C"
