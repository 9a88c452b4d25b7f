// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.io;

import java.util.Map;

/**
 * Supplies the storage options of one table (typically temporary credentials with {@code
 * expires_at_millis}) and supplies them again when they are about to expire. The core calls
 * {@link #fetchStorageOptions()} from its own threads, before the credentials expire (at most
 * one call at a time per provider id), never on a request's critical path while the old ones
 * are still valid; an exception it throws fails only the refresh (the old credentials are used
 * while valid) and is reported with its message.
 *
 * <p>Implementations must be thread-safe.
 */
public interface StorageOptionsProvider {
  /**
   * The current storage options: Lance's keys ({@code aws_access_key_id}, {@code
   * aws_secret_access_key}, {@code aws_session_token}, {@code expires_at_millis}, ...). Null or
   * missing {@code expires_at_millis}: the options do not expire.
   */
  Map<String, String> fetchStorageOptions();

  /**
   * A stable id: two providers with the same id share one store and one refresh (so make it
   * name the table and where its credentials come from, never a secret).
   */
  String providerId();
}
