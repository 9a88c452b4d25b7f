// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.io;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecpp.JniLoader;
import java.util.Map;

/**
 * The process's credential refresh counters per provider id (no secret in them): fetches,
 * background / blocking / forced refreshes, failures, waits, fetch latencies, the expiry of
 * the current credentials; the names of {@code lance-cpp --stats} and the Python binding's
 * {@code credential_stats()}. A forced refresh means a request was refused with stale
 * credentials and retried: where the timed refresh should have done the work, expect none.
 */
public final class CredentialStats {
  static {
    JniLoader.ensureLoaded();
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private CredentialStats() {}

  /** Provider id -> counter name -> value, for every provider this process has used. */
  public static Map<String, Map<String, Long>> snapshot() {
    try {
      return JSON.readValue(nativeSnapshot(), new TypeReference<Map<String, Map<String, Long>>>() {});
    } catch (Exception e) {
      throw new IllegalStateException("decoding the refresh counters failed: " + e, e);
    }
  }

  private static native String nativeSnapshot();
}
