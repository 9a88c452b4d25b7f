// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import dev.lancecpp.io.StorageOptionsProvider;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** How to write a dataset, as Lance Java's WriteParams. Unset values take the core's defaults. */
public final class WriteParams {
  /** What a write does to an existing dataset. */
  public enum WriteMode {
    /** Fails if the dataset exists. */
    CREATE,
    /** Adds rows (creates the dataset if missing). */
    APPEND,
    /** Replaces schema and rows with a new version. */
    OVERWRITE
  }

  private final Optional<Integer> maxRowsPerFile;
  private final Optional<Integer> maxRowsPerGroup;
  private final Optional<WriteMode> mode;
  private final Optional<String> dataStorageVersion;
  private final Map<String, String> storageOptions;
  private final Optional<StorageOptionsProvider> storageOptionsProvider;

  private WriteParams(Builder b) {
    this.storageOptionsProvider = b.storageOptionsProvider;
    this.maxRowsPerFile = b.maxRowsPerFile;
    this.maxRowsPerGroup = b.maxRowsPerGroup;
    this.mode = b.mode;
    this.dataStorageVersion = b.dataStorageVersion;
    this.storageOptions = Collections.unmodifiableMap(new HashMap<>(b.storageOptions));
  }

  public Optional<Integer> getMaxRowsPerFile() {
    return maxRowsPerFile;
  }

  public Optional<Integer> getMaxRowsPerGroup() {
    return maxRowsPerGroup;
  }

  /** The mode as Lance Java carries it: "CREATE", "APPEND" or "OVERWRITE". */
  public Optional<String> getMode() {
    return mode.map(Enum::name);
  }

  /** "2.0", "2.1", "2.2" or "stable"; the core's default (2.2, as pylance 14) when empty. */
  public Optional<String> getDataStorageVersion() {
    return dataStorageVersion;
  }

  public Map<String, String> getStorageOptions() {
    return storageOptions;
  }

  /** Refreshes the credentials of {@link #getStorageOptions()} before they expire. */
  public Optional<StorageOptionsProvider> getStorageOptionsProvider() {
    return storageOptionsProvider;
  }

  Optional<WriteMode> mode() {
    return mode;
  }

  /** Builds {@link WriteParams}. */
  public static final class Builder {
    private Optional<Integer> maxRowsPerFile = Optional.empty();
    private Optional<Integer> maxRowsPerGroup = Optional.empty();
    private Optional<WriteMode> mode = Optional.empty();
    private Optional<String> dataStorageVersion = Optional.empty();
    private Map<String, String> storageOptions = new HashMap<>();
    private Optional<StorageOptionsProvider> storageOptionsProvider = Optional.empty();

    public Builder withMaxRowsPerFile(int maxRowsPerFile) {
      this.maxRowsPerFile = Optional.of(positive("maxRowsPerFile", maxRowsPerFile));
      return this;
    }

    public Builder withMaxRowsPerGroup(int maxRowsPerGroup) {
      this.maxRowsPerGroup = Optional.of(positive("maxRowsPerGroup", maxRowsPerGroup));
      return this;
    }

    public Builder withMode(WriteMode mode) {
      this.mode = Optional.of(mode);
      return this;
    }

    public Builder withDataStorageVersion(String dataStorageVersion) {
      this.dataStorageVersion = Optional.of(dataStorageVersion);
      return this;
    }

    public Builder withStorageOptions(Map<String, String> storageOptions) {
      this.storageOptions = new HashMap<>(storageOptions);
      return this;
    }

    /** A provider the core asks for fresh options before the current ones expire. */
    public Builder withStorageOptionsProvider(StorageOptionsProvider provider) {
      this.storageOptionsProvider = Optional.ofNullable(provider);
      return this;
    }

    public WriteParams build() {
      return new WriteParams(this);
    }

    private static int positive(String name, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " must be positive, got " + value);
      }
      return value;
    }
  }
}
