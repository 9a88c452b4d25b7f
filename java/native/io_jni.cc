// SPDX-License-Identifier: Apache-2.0
// The natives of dev.lancecpp.io.CredentialStats: the process's credential refresh
// counters per provider id (io::CredentialRefreshStats), as the Python binding's
// credential_stats().
#include <jni.h>

#include <nlohmann/json.hpp>

#include "jni_util.h"
#include "lance/io/refreshing_credentials.h"

using namespace lance::jni;  // NOLINT(google-build-using-namespace): JNI entry points
                             // only

extern "C" {

// {"<provider id>": {"fetches": n, "forced_refreshes": n, ...}, ...}; never a secret.
JNIEXPORT jstring JNICALL Java_dev_lancecpp_io_CredentialStats_nativeSnapshot(JNIEnv* env,
                                                                              jclass) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& provider : lance::io::CredentialRefreshStats()) {
    nlohmann::json counters = nlohmann::json::object();
    for (const auto& [name, value] : lance::io::RefreshStatsFields(provider)) {
      counters[name] = value;
    }
    out[provider.provider_id] = std::move(counters);
  }
  return ToJava(env, out.dump());
}

}  // extern "C"
