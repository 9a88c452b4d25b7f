// SPDX-License-Identifier: Apache-2.0
// The natives of dev.lancecpp.namespace.NativeNamespace: our namespaces (directory, REST
// client) as Java LanceNamespace implementations. Requests and responses cross as the
// spec's JSON, decoded and encoded here with the same codec as the REST client and
// server.
#include <jni.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "jni_util.h"
#include "lance/macros.h"
#include "lance/namespace/json_codec.h"
#include "lance/namespace/namespace.h"

namespace lance::jni {
namespace {

using ns::LanceNamespace;
namespace codec = ns::json_codec;

using Op = std::function<Result<std::string>(LanceNamespace&, const std::string&)>;

template <typename Request, typename Response>
Op Model(Result<Response> (LanceNamespace::*method)(const Request&), const char* name) {
  return
      [method, name](LanceNamespace& n, const std::string& json) -> Result<std::string> {
        LANCE_ASSIGN_OR_RAISE(
            Request request, codec::Parse<Request>(json, std::string(name) + " request"));
        LANCE_ASSIGN_OR_RAISE(Response response, (n.*method)(request));
        return codec::ToJson(response).dump();
      };
}

template <typename Request>
Op NoBody(Status (LanceNamespace::*method)(const Request&), const char* name) {
  return
      [method, name](LanceNamespace& n, const std::string& json) -> Result<std::string> {
        LANCE_ASSIGN_OR_RAISE(
            Request request, codec::Parse<Request>(json, std::string(name) + " request"));
        LANCE_RETURN_NOT_OK((n.*method)(request));
        return std::string("{}");
      };
}

const std::map<std::string, Op>& Ops() {
  static const std::map<std::string, Op> ops = {
      {"list_namespaces", Model(&LanceNamespace::ListNamespaces, "list_namespaces")},
      {"describe_namespace",
       Model(&LanceNamespace::DescribeNamespace, "describe_namespace")},
      {"create_namespace", Model(&LanceNamespace::CreateNamespace, "create_namespace")},
      {"drop_namespace", Model(&LanceNamespace::DropNamespace, "drop_namespace")},
      {"namespace_exists", NoBody(&LanceNamespace::NamespaceExists, "namespace_exists")},
      {"list_tables", Model(&LanceNamespace::ListTables, "list_tables")},
      {"describe_table", Model(&LanceNamespace::DescribeTable, "describe_table")},
      {"declare_table", Model(&LanceNamespace::DeclareTable, "declare_table")},
      {"register_table", Model(&LanceNamespace::RegisterTable, "register_table")},
      {"deregister_table", Model(&LanceNamespace::DeregisterTable, "deregister_table")},
      {"table_exists", NoBody(&LanceNamespace::TableExists, "table_exists")},
      {"drop_table", Model(&LanceNamespace::DropTable, "drop_table")},
  };
  return ops;
}

// A namespace error thrown as Lance Java throws it: the
// org.lance.namespace.errors.LanceNamespaceException subclass of its code
// (ErrorFactory.fromErrorCode), so that Java callers catch TableNotFoundException etc.
void ThrowNamespaceError(JNIEnv* env, const Status& status) {
  jclass factory = env->FindClass("org/lance/namespace/errors/ErrorFactory");
  if (factory == nullptr) {
    env->ExceptionClear();
    ThrowStatus(env, status);
    return;
  }
  jmethodID from_code = env->GetStaticMethodID(
      factory, "fromErrorCode",
      "(ILjava/lang/String;)Lorg/lance/namespace/errors/LanceNamespaceException;");
  if (from_code == nullptr) {
    env->ExceptionClear();
    ThrowStatus(env, status);
    return;
  }
  auto ex = static_cast<jthrowable>(env->CallStaticObjectMethod(
      factory, from_code, static_cast<jint>(ns::NamespaceErrorCode(status)),
      ToJava(env, status.message())));
  if (env->ExceptionCheck()) return;
  if (ex != nullptr) env->Throw(ex);
}

}  // namespace
}  // namespace lance::jni

using namespace lance::jni;  // NOLINT(google-build-using-namespace): JNI entry points
                             // only

extern "C" {

// impl: "dir" or "rest" (or what ConnectNamespace knows); properties as Lance's.
JNIEXPORT jlong JNICALL Java_dev_lancecpp_namespace_NativeNamespace_nativeConnect(
    JNIEnv* env, jclass, jstring impl, jobject properties) {
  auto ns = lance::ns::ConnectNamespace(ToStd(env, impl), ToStdMap(env, properties));
  if (ExceptionPending(env)) return 0;
  if (!ns.ok()) {
    ThrowNamespaceError(env, ns.status());
    return 0;
  }
  return ToHandle(std::move(*ns));
}

JNIEXPORT void JNICALL
Java_dev_lancecpp_namespace_NativeNamespace_nativeRelease(JNIEnv*, jclass, jlong handle) {
  ReleaseHandle<lance::ns::LanceNamespace>(handle);
}

JNIEXPORT jstring JNICALL Java_dev_lancecpp_namespace_NativeNamespace_nativeNamespaceId(
    JNIEnv* env, jclass, jlong handle) {
  auto ns = FromHandle<lance::ns::LanceNamespace>(handle);
  if (ns == nullptr) {
    ThrowClosed(env, "namespace");
    return nullptr;
  }
  return ToJava(env, ns->namespace_id());
}

JNIEXPORT jstring JNICALL Java_dev_lancecpp_namespace_NativeNamespace_nativeCall(
    JNIEnv* env, jclass, jlong handle, jstring op, jstring request_json) {
  auto ns = FromHandle<lance::ns::LanceNamespace>(handle);
  if (ns == nullptr) {
    ThrowClosed(env, "namespace");
    return nullptr;
  }
  const std::string name = ToStd(env, op);
  auto it = Ops().find(name);
  if (it == Ops().end()) {
    ThrowNamespaceError(env, lance::ns::NamespaceError(lance::ns::ErrorCode::kUnsupported,
                                                       "Not supported: " + name));
    return nullptr;
  }
  auto out = it->second(*ns, ToStd(env, request_json));
  if (!out.ok()) {
    ThrowNamespaceError(env, out.status());
    return nullptr;
  }
  return ToJava(env, *out);
}

}  // extern "C"
