// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lance.namespace.LanceNamespace;

/**
 * Opens a dataset by URI ({@code Dataset.open().uri(path).build()}) or through a Lance Namespace
 * ({@code Dataset.open().namespaceClient(ns).tableId(List.of("t")).build()}: one {@code
 * describeTable}, then the table's vended credentials refreshed through {@code ns} before they
 * expire).
 */
public final class OpenDatasetBuilder {
  private BufferAllocator allocator;
  private String uri;
  private LanceNamespace namespace;
  private List<String> tableId;
  private boolean ignoreNamespaceStorageOptions;
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

  /** Any {@link LanceNamespace} (Lance Java's, ours, a user's); needs {@link #tableId}. */
  public OpenDatasetBuilder namespaceClient(LanceNamespace namespace) {
    this.namespace = namespace;
    return this;
  }

  public OpenDatasetBuilder tableId(List<String> tableId) {
    this.tableId = List.copyOf(tableId);
    return this;
  }

  /** Use only the read options' storage options, not the namespace's (no refresh then). */
  public OpenDatasetBuilder ignoreNamespaceStorageOptions(boolean ignore) {
    this.ignoreNamespaceStorageOptions = ignore;
    return this;
  }

  public OpenDatasetBuilder readOptions(ReadOptions readOptions) {
    this.readOptions = readOptions;
    return this;
  }

  /** Opens the dataset. */
  public Dataset build() {
    boolean viaNamespace = namespace != null || tableId != null;
    if (viaNamespace && (namespace == null || tableId == null || tableId.isEmpty())) {
      throw new IllegalArgumentException(
          "Dataset.open(): namespaceClient and a non-empty tableId go together");
    }
    if (viaNamespace == (uri != null)) {
      throw new IllegalArgumentException(
          "Dataset.open(): give either uri or namespaceClient + tableId");
    }
    if (uri != null && uri.isEmpty()) {
      throw new IllegalArgumentException("Dataset.open(): uri is empty");
    }
    boolean owns = allocator == null;
    BufferAllocator alloc = owns ? new RootAllocator(Long.MAX_VALUE) : allocator;
    try {
      long version = readOptions.getVersion().orElse(-1L);
      long handle =
          viaNamespace
              ? Dataset.nativeOpenNamespace(
                  namespace,
                  tableId.toArray(new String[0]),
                  version,
                  readOptions.getStorageOptions(),
                  ignoreNamespaceStorageOptions)
              : Dataset.nativeOpen(
                  uri,
                  version,
                  readOptions.getStorageOptions(),
                  readOptions.getStorageOptionsProvider().orElse(null));
      return new Dataset(handle, alloc, owns);
    } catch (RuntimeException e) {
      if (owns) {
        alloc.close();
      }
      throw e;
    }
  }
}
