// SPDX-License-Identifier: Apache-2.0
#include "java_objects.h"

#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "jni_util.h"
#include "jvm.h"
#include "lance/macros.h"
#include "lance/namespace/json_codec.h"

namespace lance::jni {
namespace {

// Owns a global reference; deletes it from whatever thread drops the last owner.
class GlobalRef {
 public:
  GlobalRef(JNIEnv* env, jobject obj) : ref_(env->NewGlobalRef(obj)) {}
  ~GlobalRef() {
    ScopedJniEnv scoped;
    if (scoped.get() != nullptr && ref_ != nullptr) scoped.get()->DeleteGlobalRef(ref_);
  }
  GlobalRef(const GlobalRef&) = delete;
  GlobalRef& operator=(const GlobalRef&) = delete;
  jobject get() const { return ref_; }

 private:
  jobject ref_;
};

class JavaNamespace final : public ns::LanceNamespace {
 public:
  JavaNamespace(JNIEnv* env, jobject obj, std::string id)
      : ref_(env, obj), id_(std::move(id)) {}

  std::string namespace_id() const override { return id_; }

  // The operations of operations.def that cross as JSON (NamespaceBridge.call runs
  // the Java method of the same name); the others keep LanceNamespace's Unsupported.
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...) \
  LANCE_JAVA_NS_OP_##Body##_##Reply(Method, wire)
#define LANCE_JAVA_NS_OP_Json_Model(Method, wire)                              \
  Result<ns::Method##Response> Method(const ns::Method##Request& r) override { \
    return Call<ns::Method##Response>(#wire, r);                               \
  }
#define LANCE_JAVA_NS_OP_Query_Model(Method, wire) \
  LANCE_JAVA_NS_OP_Json_Model(Method, wire)
#define LANCE_JAVA_NS_OP_Json_Status(Method, wire)           \
  Status Method(const ns::Method##Request& r) override {     \
    return CallRaw(#wire, ns::json_codec::Dump(r)).status(); \
  }
#define LANCE_JAVA_NS_OP_Json_Count(Method, wire)
#define LANCE_JAVA_NS_OP_Json_Arrow(Method, wire)
#define LANCE_JAVA_NS_OP_Arrow_Model(Method, wire)
#include "lance/namespace/operations.def"
#undef LANCE_JAVA_NS_OP_Arrow_Model
#undef LANCE_JAVA_NS_OP_Json_Arrow
#undef LANCE_JAVA_NS_OP_Json_Count
#undef LANCE_JAVA_NS_OP_Json_Status
#undef LANCE_JAVA_NS_OP_Query_Model
#undef LANCE_JAVA_NS_OP_Json_Model
#undef LANCE_NS_OPERATION

 private:
  template <typename Response, typename Request>
  Result<Response> Call(const char* op, const Request& request) {
    LANCE_ASSIGN_OR_RAISE(std::string body, CallRaw(op, ns::json_codec::Dump(request)));
    return ns::json_codec::Parse<Response>(body, std::string(op) + " response of " + id_);
  }

  Result<std::string> CallRaw(const char* op, const std::string& json) {
    const JavaRefs& refs = Refs();
    ScopedJniEnv scoped;
    JNIEnv* env = scoped.get();
    if (env == nullptr) {
      return Status::IOError(std::string("calling ") + op + " on namespace " + id_ +
                             ": this thread cannot be attached to the JVM");
    }
    jstring jop = ToJava(env, op);
    jstring jbody = ToJava(env, json);
    auto out = static_cast<jstring>(env->CallStaticObjectMethod(
        refs.namespace_bridge, refs.bridge_call, ref_.get(), jop, jbody));
    if (env->ExceptionCheck()) {
      return TakeJavaException(env, std::string(op) + " on namespace " + id_);
    }
    return ToStd(env, out);
  }

  GlobalRef ref_;
  std::string id_;
};

class JavaStorageOptionsProvider final : public io::StorageOptionsProvider {
 public:
  JavaStorageOptionsProvider(JNIEnv* env, jobject obj, std::string id)
      : ref_(env, obj), id_(std::move(id)) {}

  Result<std::optional<io::StorageOptions>> FetchStorageOptions() override {
    ScopedJniEnv scoped;
    JNIEnv* env = scoped.get();
    if (env == nullptr) {
      return Status::IOError("fetching storage options from provider " + id_ +
                             ": this thread cannot be attached to the JVM");
    }
    jobject map = env->CallObjectMethod(ref_.get(), Refs().provider_fetch);
    if (env->ExceptionCheck()) {
      return TakeJavaException(env, "fetchStorageOptions of provider " + id_);
    }
    if (map == nullptr) return std::optional<io::StorageOptions>();
    io::StorageOptions options = ToStdMap(env, map);
    if (env->ExceptionCheck()) {
      return TakeJavaException(env, "reading the storage options of provider " + id_);
    }
    return std::optional<io::StorageOptions>(std::move(options));
  }

  std::string provider_id() const override { return id_; }

 private:
  GlobalRef ref_;
  std::string id_;
};

}  // namespace

Result<std::shared_ptr<ns::LanceNamespace>> WrapJavaNamespace(JNIEnv* env,
                                                              jobject java_namespace) {
  if (java_namespace == nullptr) return Status::Invalid("namespaceClient is null");
  const JavaRefs& refs = Refs();
  if (refs.bridge_call == nullptr || refs.bridge_namespace_id == nullptr) {
    return Status::NotImplemented(
        "Java namespaces need org.lance:lance-namespace-core on the classpath");
  }
  auto id = static_cast<jstring>(env->CallStaticObjectMethod(
      refs.namespace_bridge, refs.bridge_namespace_id, java_namespace));
  if (env->ExceptionCheck()) return TakeJavaException(env, "namespaceId()");
  return std::shared_ptr<ns::LanceNamespace>(
      std::make_shared<JavaNamespace>(env, java_namespace, ToStd(env, id)));
}

Result<std::shared_ptr<io::StorageOptionsProvider>> WrapJavaProvider(
    JNIEnv* env, jobject java_provider) {
  const JavaRefs& refs = Refs();
  if (java_provider == nullptr || refs.provider == nullptr ||
      !env->IsInstanceOf(java_provider, refs.provider)) {
    return Status::Invalid("not a dev.lancecpp.io.StorageOptionsProvider");
  }
  auto id = static_cast<jstring>(env->CallObjectMethod(java_provider, refs.provider_id));
  if (env->ExceptionCheck()) return TakeJavaException(env, "providerId()");
  if (id == nullptr)
    return Status::Invalid("StorageOptionsProvider.providerId() returned null");
  return std::shared_ptr<io::StorageOptionsProvider>(
      std::make_shared<JavaStorageOptionsProvider>(env, java_provider, ToStd(env, id)));
}

Result<io::StorageAccess> ProviderAccess(JNIEnv* env, jobject storage_options,
                                         jobject java_provider) {
  io::StorageAccess access(ToStdMap(env, storage_options));
  if (java_provider != nullptr) {
    LANCE_ASSIGN_OR_RAISE(access.provider, WrapJavaProvider(env, java_provider));
  }
  return access;
}

Result<WriteParams> MakeWriteParams(JNIEnv* env, jobject java_params) {
  if (java_params == nullptr) return Status::Invalid("write params are null");
  // The fields of NativeWriteParams; after a failed lookup (NoSuchFieldError pending)
  // the others are not looked up.
  jclass cls = env->GetObjectClass(java_params);
  auto field = [&](const char* name, const char* sig) {
    return env->ExceptionCheck() ? nullptr : env->GetFieldID(cls, name, sig);
  };
  auto object = [&](const char* name, const char* sig) {
    jfieldID id = field(name, sig);
    return id == nullptr ? nullptr : env->GetObjectField(java_params, id);
  };
  auto integer = [&](const char* name) {
    jfieldID id = field(name, "I");
    return id == nullptr ? 0 : env->GetIntField(java_params, id);
  };
  auto mode = static_cast<jstring>(object("mode", "Ljava/lang/String;"));
  const jint max_rows_per_file = integer("maxRowsPerFile");
  const jint max_rows_per_group = integer("maxRowsPerGroup");
  auto data_storage_version =
      static_cast<jstring>(object("dataStorageVersion", "Ljava/lang/String;"));
  jobject storage_options = object("storageOptions", "Ljava/util/Map;");
  jobject java_provider = object("provider", "Ldev/lancecpp/io/StorageOptionsProvider;");
  if (env->ExceptionCheck()) return TakeJavaException(env, "NativeWriteParams");
  WriteParams params;
  if (mode != nullptr) {
    LANCE_ASSIGN_OR_RAISE(params.mode, ParseWriteMode(ToStd(env, mode)));
  }
  if (max_rows_per_file > 0) params.max_rows_per_file = max_rows_per_file;
  if (max_rows_per_group > 0) params.max_rows_per_group = max_rows_per_group;
  if (data_storage_version != nullptr) {
    params.data_storage_version = ToStd(env, data_storage_version);
  }
  LANCE_ASSIGN_OR_RAISE(params.access,
                        ProviderAccess(env, storage_options, java_provider));
  return params;
}

Result<io::StorageAccess> FileAccess(JNIEnv* env, jobject storage_options,
                                     jobject java_provider) {
  LANCE_ASSIGN_OR_RAISE(io::StorageAccess access,
                        ProviderAccess(env, storage_options, java_provider));
  LANCE_ASSIGN_OR_RAISE(access, io::ResolveStorageAccess(std::move(access)));
  if (access.credentials != nullptr) {
    constexpr size_t kKeep = 16;
    // Never destroyed: a source holds a global reference, which must not be released
    // while the JVM shuts down.
    static auto* mu = new std::mutex;
    static auto* recent = new std::deque<std::shared_ptr<io::CredentialsSource>>;
    std::shared_ptr<io::CredentialsSource> evicted;  // released outside the lock
    std::lock_guard<std::mutex> lock(*mu);
    for (auto it = recent->begin(); it != recent->end(); ++it) {
      if (*it == access.credentials) {
        recent->erase(it);
        break;
      }
    }
    recent->push_back(access.credentials);
    if (recent->size() > kKeep) {
      evicted = std::move(recent->front());
      recent->pop_front();
    }
  }
  return access;
}

}  // namespace lance::jni
