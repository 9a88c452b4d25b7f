// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import dev.lancecpp.io.StorageOptionsProvider;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The write parameters as the natives take them (java/native/java_objects.cc,
 * MakeWriteParams, reads these fields by name): unset values null or 0, the mode lower-case.
 * One object for Dataset.write() and Fragment.create() instead of one argument per value.
 */
final class NativeWriteParams {
  final String mode;
  final int maxRowsPerFile;
  final int maxRowsPerGroup;
  final String dataStorageVersion;
  final Map<String, String> storageOptions;
  final StorageOptionsProvider provider;

  NativeWriteParams(
      WriteParams.WriteMode mode,
      Integer maxRowsPerFile,
      Integer maxRowsPerGroup,
      String dataStorageVersion,
      Map<String, String> storageOptions,
      StorageOptionsProvider provider) {
    this.mode = mode == null ? null : mode.name().toLowerCase(Locale.ROOT);
    this.maxRowsPerFile = maxRowsPerFile == null ? 0 : maxRowsPerFile;
    this.maxRowsPerGroup = maxRowsPerGroup == null ? 0 : maxRowsPerGroup;
    this.dataStorageVersion = dataStorageVersion;
    this.storageOptions = Collections.unmodifiableMap(new HashMap<>(storageOptions));
    this.provider = provider;
  }

  /** {@code params}, with {@code defaultMode} when it sets none. */
  static NativeWriteParams of(WriteParams params, WriteParams.WriteMode defaultMode) {
    return new NativeWriteParams(
        params.mode().orElse(defaultMode),
        params.getMaxRowsPerFile().orElse(null),
        params.getMaxRowsPerGroup().orElse(null),
        params.getDataStorageVersion().orElse(null),
        params.getStorageOptions(),
        params.getStorageOptionsProvider().orElse(null));
  }
}
