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
#include "lance/namespace/operations.h"

namespace lance::jni {
namespace {

using ns::LanceNamespace;
namespace codec = ns::json_codec;

using Op = std::function<Result<std::string>(LanceNamespace&, const std::string&)>;

/// \brief Operation `Req` on its request JSON: the answer's JSON ("{}" for the exists
/// operations). Operations with an Arrow body or answer are not offered to Java.
template <typename Req, typename Fn>
void AddOp(std::map<std::string, Op>* ops, Fn fn) {
  constexpr const ns::OperationInfo& info = ns::OperationOf<Req>::kInfo;
  if constexpr (info.request_body != ns::RequestBody::kArrow &&
                (info.reply_body == ns::ReplyBody::kModel ||
                 info.reply_body == ns::ReplyBody::kStatus)) {
    ops->emplace(std::string(info.name),
                 [fn](LanceNamespace& n, const std::string& json) -> Result<std::string> {
                   constexpr const ns::OperationInfo& op = ns::OperationOf<Req>::kInfo;
                   LANCE_ASSIGN_OR_RAISE(
                       Req request,
                       codec::Parse<Req>(json, std::string(op.name) + " request"));
                   if constexpr (op.reply_body == ns::ReplyBody::kStatus) {
                     LANCE_RETURN_NOT_OK(fn(n, request));
                     return std::string("{}");
                   } else {
                     LANCE_ASSIGN_OR_RAISE(auto response, fn(n, request));
                     return codec::Dump(response);
                   }
                 });
  }
}

// Every operation of operations.def that crosses as JSON.
const std::map<std::string, Op>& Ops() {
  static const std::map<std::string, Op> ops = [] {
    std::map<std::string, Op> out;
#define LANCE_NS_OPERATION(Method, ...)                                       \
  AddOp<ns::Method##Request>(                                                 \
      &out, [](LanceNamespace& n, const auto& request, const auto&... data) { \
        return n.Method(request, data...);                                    \
      });
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION
    return out;
  }();
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

JNIEXPORT jstring JNICALL Java_dev_lancecpp_namespace_NativeNamespace_nativeNamespaceId(
    JNIEnv* env, jclass, jlong handle) {
  auto ns = LiveHandle<lance::ns::LanceNamespace>(env, handle, "namespace");
  if (ns == nullptr) return nullptr;
  return ToJava(env, ns->namespace_id());
}

JNIEXPORT jstring JNICALL Java_dev_lancecpp_namespace_NativeNamespace_nativeCall(
    JNIEnv* env, jclass, jlong handle, jstring op, jstring request_json) {
  auto ns = LiveHandle<lance::ns::LanceNamespace>(env, handle, "namespace");
  if (ns == nullptr) return nullptr;
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
