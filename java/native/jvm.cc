// SPDX-License-Identifier: Apache-2.0
#include "jvm.h"

#include "jni_util.h"
#include "lance/namespace/namespace.h"

namespace lance::jni {
namespace {
JavaVM* g_vm = nullptr;
JavaRefs g_refs;
constexpr jint kJniVersion = JNI_VERSION_1_8;

// A global reference to `name`, or null (exception cleared) when it cannot be loaded.
jclass GlobalClass(JNIEnv* env, const char* name) {
  jclass local = env->FindClass(name);
  if (local == nullptr) {
    env->ExceptionClear();
    return nullptr;
  }
  auto global = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  return global;
}

jmethodID Method(JNIEnv* env, jclass cls, const char* name, const char* sig,
                 bool is_static = false) {
  if (cls == nullptr) return nullptr;
  jmethodID id = is_static ? env->GetStaticMethodID(cls, name, sig)
                           : env->GetMethodID(cls, name, sig);
  if (id == nullptr) env->ExceptionClear();
  return id;
}

void LoadRefs(JNIEnv* env) {
  JavaRefs& r = g_refs;
  r.namespace_bridge = GlobalClass(env, "dev/lancecpp/namespace/NamespaceBridge");
  r.bridge_call = Method(env, r.namespace_bridge, "call",
                         "(Ljava/lang/Object;Ljava/lang/String;Ljava/lang/String;)"
                         "Ljava/lang/String;",
                         true);
  r.bridge_namespace_id = Method(env, r.namespace_bridge, "namespaceId",
                                 "(Ljava/lang/Object;)Ljava/lang/String;", true);
  r.provider = GlobalClass(env, "dev/lancecpp/io/StorageOptionsProvider");
  r.provider_fetch = Method(env, r.provider, "fetchStorageOptions", "()Ljava/util/Map;");
  r.provider_id = Method(env, r.provider, "providerId", "()Ljava/lang/String;");
  r.namespace_error =
      GlobalClass(env, "org/lance/namespace/errors/LanceNamespaceException");
  r.namespace_error_code = Method(env, r.namespace_error, "getCode", "()I");
  jclass throwable = GlobalClass(env, "java/lang/Throwable");
  r.throwable_to_string = Method(env, throwable, "toString", "()Ljava/lang/String;");
}

}  // namespace

JavaVM* Jvm() { return g_vm; }
const JavaRefs& Refs() { return g_refs; }

ScopedJniEnv::ScopedJniEnv() {
  if (g_vm == nullptr) return;
  void* env = nullptr;
  jint rc = g_vm->GetEnv(&env, kJniVersion);
  if (rc == JNI_EDETACHED) {
    JavaVMAttachArgs args{kJniVersion, const_cast<char*>("lance-cpp-native"), nullptr};
    if (g_vm->AttachCurrentThreadAsDaemon(&env, &args) != JNI_OK) return;
    attached_ = true;
  } else if (rc != JNI_OK) {
    return;
  }
  env_ = static_cast<JNIEnv*>(env);
  frame_ = env_->PushLocalFrame(64) == JNI_OK;
}

ScopedJniEnv::~ScopedJniEnv() {
  if (env_ != nullptr && frame_) env_->PopLocalFrame(nullptr);
  if (attached_) g_vm->DetachCurrentThread();
}

Status TakeJavaException(JNIEnv* env, const std::string& what) {
  jthrowable ex = env->ExceptionOccurred();
  if (ex == nullptr) return Status::OK();
  env->ExceptionClear();
  std::string text = "unknown Java exception";
  if (g_refs.throwable_to_string != nullptr) {
    auto s = static_cast<jstring>(env->CallObjectMethod(ex, g_refs.throwable_to_string));
    if (env->ExceptionCheck()) env->ExceptionClear();
    if (s != nullptr) text = ToStd(env, s);
  }
  const std::string message = what + ": " + text;
  if (g_refs.namespace_error != nullptr && g_refs.namespace_error_code != nullptr &&
      env->IsInstanceOf(ex, g_refs.namespace_error)) {
    jint code = env->CallIntMethod(ex, g_refs.namespace_error_code);
    if (env->ExceptionCheck()) {
      env->ExceptionClear();
    } else if (code >= 0 &&
               code <= static_cast<jint>(ns::ErrorCode::kTableBranchAlreadyExists)) {
      return ns::NamespaceError(static_cast<ns::ErrorCode>(code), message);
    }
  }
  return Status::IOError(message);
}

}  // namespace lance::jni

extern "C" JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void*) {
  lance::jni::g_vm = vm;
  void* env = nullptr;
  if (vm->GetEnv(&env, lance::jni::kJniVersion) != JNI_OK) return JNI_ERR;
  lance::jni::LoadRefs(static_cast<JNIEnv*>(env));
  return lance::jni::kJniVersion;
}
