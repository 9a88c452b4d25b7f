// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** Opens a dataset: {@code Dataset.open().uri(path).readOptions(options).build()}. */
public final class OpenDatasetBuilder {
  private BufferAllocator allocator;
  private String uri;
  private ReadOptions readOptions = new ReadOptions.Builder().build();

  OpenDatasetBuilder() {}

  /** Where results are allocated; without one the dataset makes (and closes) its own. */
  public OpenDatasetBuilder allocator(BufferAllocator allocator) {
    this.allocator = allocator;
    return this;
  }

  /** A path, {@code file://}, {@code memory://} or {@code s3://} URI. */
  public OpenDatasetBuilder uri(String uri) {
    this.uri = uri;
    return this;
  }

  public OpenDatasetBuilder readOptions(ReadOptions readOptions) {
    this.readOptions = readOptions;
    return this;
  }

  /** Opens the dataset. */
  public Dataset build() {
    if (uri == null || uri.isEmpty()) {
      throw new IllegalArgumentException("Dataset.open(): uri is required");
    }
    boolean owns = allocator == null;
    BufferAllocator alloc = owns ? new RootAllocator(Long.MAX_VALUE) : allocator;
    try {
      return Dataset.opened(
          uri, readOptions.getVersion(), readOptions.getStorageOptions(), alloc, owns);
    } catch (RuntimeException e) {
      if (owns) {
        alloc.close();
      }
      throw e;
    }
  }
}
