// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import dev.lancecpp.io.StorageOptionsProvider;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** How to open a dataset: a version and the storage options (Lance's keys). */
public final class ReadOptions {
  private final Optional<Long> version;
  private final Map<String, String> storageOptions;
  private final Optional<StorageOptionsProvider> storageOptionsProvider;

  private ReadOptions(Builder builder) {
    this.version = builder.version;
    this.storageOptionsProvider = builder.storageOptionsProvider;
    this.storageOptions = Collections.unmodifiableMap(new HashMap<>(builder.storageOptions));
  }

  /** The version to open; the latest when empty. */
  public Optional<Long> getVersion() {
    return version;
  }

  /** Object store options, e.g. {@code aws_region}, {@code aws_endpoint}, credentials. */
  public Map<String, String> getStorageOptions() {
    return storageOptions;
  }

  /** Refreshes the credentials of {@link #getStorageOptions()} before they expire. */
  public Optional<StorageOptionsProvider> getStorageOptionsProvider() {
    return storageOptionsProvider;
  }

  /** Builds {@link ReadOptions}. */
  public static final class Builder {
    private Optional<Long> version = Optional.empty();
    private Map<String, String> storageOptions = new HashMap<>();
    private Optional<StorageOptionsProvider> storageOptionsProvider = Optional.empty();

    public Builder setVersion(long version) {
      if (version < 0) {
        throw new IllegalArgumentException("version must not be negative, got " + version);
      }
      this.version = Optional.of(version);
      return this;
    }

    public Builder setStorageOptions(Map<String, String> storageOptions) {
      this.storageOptions = new HashMap<>(storageOptions);
      return this;
    }

    /** A provider the core asks for fresh options before the current ones expire. */
    public Builder setStorageOptionsProvider(StorageOptionsProvider provider) {
      this.storageOptionsProvider = Optional.ofNullable(provider);
      return this;
    }

    public ReadOptions build() {
      return new ReadOptions(this);
    }
  }
}
