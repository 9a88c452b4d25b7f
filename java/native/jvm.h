// SPDX-License-Identifier: Apache-2.0
// Calling into the JVM from the core's own threads: the JavaVM (saved by JNI_OnLoad), a
// scope that attaches the current thread when it is not attached (and detaches it at the
// end), and a Java exception turned into a Status.
#pragma once

#include <jni.h>

#include <string>

#include "lance/status.h"

namespace lance::jni {

/// \brief The JVM that loaded the library (JNI_OnLoad).
JavaVM* Jvm();

/// \brief A JNIEnv for this thread for the scope's lifetime: the thread's own when it is
/// a Java thread (or already attached), else attached here as a daemon and detached at
/// the end of the scope, so that no core thread stays attached (and none is forgotten).
/// Local references made in the scope are freed with it (a local frame).
class ScopedJniEnv {
 public:
  ScopedJniEnv();
  ~ScopedJniEnv();
  ScopedJniEnv(const ScopedJniEnv&) = delete;
  ScopedJniEnv& operator=(const ScopedJniEnv&) = delete;

  /// \brief Null when the thread could not be attached.
  JNIEnv* get() const { return env_; }

 private:
  JNIEnv* env_ = nullptr;
  bool attached_ = false;
  bool frame_ = false;
};

/// \brief Classes and methods the core's threads call, looked up once by JNI_OnLoad (on
/// the thread that loaded the library, whose class loader sees the application's classes;
/// a thread the core attached sees only the system class loader). Null members: not on
/// the classpath (lance-namespace-core missing), reported when first needed.
struct JavaRefs {
  jclass namespace_bridge = nullptr;  ///< dev.lancecpp.namespace.NamespaceBridge
  jmethodID bridge_call = nullptr;    ///< static String call(Object, String, String)
  jmethodID bridge_namespace_id = nullptr;  ///< static String namespaceId(Object)
  jclass provider = nullptr;                ///< dev.lancecpp.io.StorageOptionsProvider
  jmethodID provider_fetch = nullptr;       ///< Map fetchStorageOptions()
  jmethodID provider_id = nullptr;          ///< String providerId()
  jclass namespace_error =
      nullptr;  ///< org.lance.namespace.errors.LanceNamespaceException
  jmethodID namespace_error_code = nullptr;  ///< int getCode()
  jmethodID throwable_to_string = nullptr;
};
const JavaRefs& Refs();

/// \brief Clears the pending Java exception and returns it as a Status: a
/// org.lance.namespace.errors.LanceNamespaceException becomes the namespace error of its
/// code (lance::ns::NamespaceError), anything else IOError. The message is "<what>:
/// <exception class>: <its message>" -- the Java code's own message, as thrown.
Status TakeJavaException(JNIEnv* env, const std::string& what);

}  // namespace lance::jni
