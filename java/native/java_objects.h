// SPDX-License-Identifier: Apache-2.0
// The core's interfaces implemented by Java objects: a Java LanceNamespace (any
// org.lance.namespace.LanceNamespace: Lance Java's DirectoryNamespace or RestNamespace, a
// user's class) as a lance::ns::LanceNamespace, and a
// dev.lancecpp.io.StorageOptionsProvider as a lance::io::StorageOptionsProvider. The core
// calls them from its own threads (the credential refresh): each call attaches the thread
// for its duration (ScopedJniEnv).
#pragma once

#include <jni.h>

#include <memory>
#include <string>

#include "lance/dataset/dataset.h"
#include "lance/io/storage_access.h"
#include "lance/io/storage_options_provider.h"
#include "lance/namespace/namespace.h"

namespace lance::jni {

/// \brief Wraps `java_namespace` (a global reference is taken). Requests and responses
/// cross as the spec's JSON (the REST wire format), through
/// dev.lancecpp.namespace.NamespaceBridge. Must be called on a Java thread.
/// \return Invalid for null; NotImplemented when lance-namespace-core is not on the
/// classpath; the Java exception of namespaceId().
Result<std::shared_ptr<ns::LanceNamespace>> WrapJavaNamespace(JNIEnv* env,
                                                              jobject java_namespace);

/// \brief Wraps `java_provider` (a global reference is taken); providerId() is read once,
/// here. Must be called on a Java thread. \return Invalid for an object that is not a
/// dev.lancecpp.io.StorageOptionsProvider; the Java exception of providerId().
Result<std::shared_ptr<io::StorageOptionsProvider>> WrapJavaProvider(
    JNIEnv* env, jobject java_provider);

/// \brief `storage_options` with, when `java_provider` is not null, that provider
/// refreshing them (resolved later by the entry point the access is given to).
Result<io::StorageAccess> ProviderAccess(JNIEnv* env, jobject storage_options,
                                         jobject java_provider);

/// \brief WriteParams from a dev.lancecpp.NativeWriteParams: `mode` ("create", "append",
/// "overwrite"; null: create), row counts (0: the default), the file version (null: the
/// default) and ProviderAccess(storageOptions, provider).
Result<WriteParams> MakeWriteParams(JNIEnv* env, jobject java_params);

/// \brief Storage access for single files: `storage_options` refreshed by
/// `java_provider` (null: none), resolved (io::ResolveStorageAccess). The credentials
/// sources of the last 16 providers are kept alive after their readers and writers are
/// gone, as the Python binding does: ResolveStorageAccess shares one source per provider
/// id only while one is alive, and a writer closed before a reader opens with the same
/// provider would otherwise leave the reader to fetch again what the writer just fetched.
Result<io::StorageAccess> FileAccess(JNIEnv* env, jobject storage_options,
                                     jobject java_provider);

}  // namespace lance::jni
