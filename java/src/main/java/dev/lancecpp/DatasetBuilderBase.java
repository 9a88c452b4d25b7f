// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.lance.namespace.LanceNamespace;

/**
 * What {@link OpenDatasetBuilder} and {@link WriteDatasetBuilder} share: where results are
 * allocated and which dataset, by URI or as the table {@code tableId} of a Lance Namespace.
 */
abstract class DatasetBuilderBase<B extends DatasetBuilderBase<B>> {
  BufferAllocator allocator;
  String uri;
  LanceNamespace namespace;
  List<String> tableId;
  boolean ignoreNamespaceStorageOptions;

  DatasetBuilderBase() {}

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /** Where results are allocated; without one the dataset makes (and closes) its own. */
  public B allocator(BufferAllocator allocator) {
    this.allocator = allocator;
    return self();
  }

  /** A path, {@code file://}, {@code memory://} or {@code s3://} URI. */
  public B uri(String uri) {
    this.uri = uri;
    return self();
  }

  /**
   * Any {@link LanceNamespace} (Lance Java's, ours, a user's) instead of a URI; needs {@link
   * #tableId}. The table's vended credentials are refreshed through it before they expire.
   */
  public B namespaceClient(LanceNamespace namespace) {
    this.namespace = namespace;
    return self();
  }

  public B tableId(List<String> tableId) {
    this.tableId = List.copyOf(tableId);
    return self();
  }

  /** Use only the storage options given here, not the namespace's (no refresh then). */
  public B ignoreNamespaceStorageOptions(boolean ignore) {
    this.ignoreNamespaceStorageOptions = ignore;
    return self();
  }

  /**
   * Whether the dataset is a namespace table; {@code where} ("Dataset.open()") names the call
   * in the error when namespaceClient and tableId are not given together.
   */
  final boolean viaNamespace(String where) {
    boolean viaNamespace = namespace != null || tableId != null;
    if (viaNamespace && (namespace == null || tableId == null || tableId.isEmpty())) {
      throw new IllegalArgumentException(
          where + ": namespaceClient and a non-empty tableId go together");
    }
    return viaNamespace;
  }

  /** tableId as the natives take it. */
  final String[] nativeTableId() {
    return tableId.toArray(new String[0]);
  }

  /**
   * The dataset of the handle {@code open} returns, its results allocated from the allocator
   * given or from one of its own, which is closed again when {@code open} throws.
   */
  final Dataset openWith(ToLongFunction<BufferAllocator> open) {
    boolean owns = allocator == null;
    BufferAllocator alloc = owns ? new RootAllocator(Long.MAX_VALUE) : allocator;
    try {
      return new Dataset(open.applyAsLong(alloc), alloc, owns);
    } catch (RuntimeException e) {
      if (owns) {
        alloc.close();
      }
      throw e;
    }
  }
}
