// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import dev.lancecpp.ipc.LanceScanner;
import dev.lancecpp.ipc.ScanOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A Lance dataset at one version, read and written by the lance-cpp core, with Lance Java's
 * names ({@code org.lance.Dataset}).
 *
 * <p>Reads are thread-safe. {@link #close()} waits for calls in flight and releases the native
 * dataset; any later call throws {@link IllegalStateException}. Readers handed out by scans and
 * takes stay valid after close (they hold what they read), but they hold buffers of the
 * allocator: close them before closing an allocator the dataset made itself.
 */
public class Dataset extends NativeHandle {
  static {
    JniLoader.ensureLoaded();
  }

  private final BufferAllocator allocator;
  private final boolean ownsAllocator;

  Dataset(long nativeHandle, BufferAllocator allocator, boolean ownsAllocator) {
    super(nativeHandle, "Dataset is closed");
    this.allocator = allocator;
    this.ownsAllocator = ownsAllocator;
  }

  // ---- opening and writing ------------------------------------------------------------

  /** A builder for opening a dataset (uri, allocator, read options). */
  public static OpenDatasetBuilder open() {
    return new OpenDatasetBuilder();
  }

  /** A builder for writing a dataset from an {@link ArrowReader} or an ArrowArrayStream. */
  public static WriteDatasetBuilder write() {
    return new WriteDatasetBuilder();
  }

  /** Opens the latest version at {@code path} with an allocator of its own. */
  public static Dataset open(String path) {
    return open().uri(path).build();
  }

  /** Opens {@code path} as {@code options} say, with an allocator of its own. */
  public static Dataset open(String path, ReadOptions options) {
    return open().uri(path).readOptions(options).build();
  }

  /** Opens the latest version at {@code path}; results are allocated from {@code allocator}. */
  public static Dataset open(String path, BufferAllocator allocator) {
    return open().uri(path).allocator(allocator).build();
  }

  /** Opens {@code path} as {@code options} say; results come from {@code allocator}. */
  public static Dataset open(BufferAllocator allocator, String path, ReadOptions options) {
    return open().allocator(allocator).uri(path).readOptions(options).build();
  }

  /** Creates an empty dataset with {@code schema} at {@code path}. */
  public static Dataset create(
      BufferAllocator allocator, String path, Schema schema, WriteParams params) {
    return write().allocator(allocator).uri(path).schema(schema).writeParams(params).execute();
  }

  /** Writes the rows of {@code stream} to {@code path} (the mode of {@code params}). */
  public static Dataset create(
      BufferAllocator allocator, ArrowArrayStream stream, String path, WriteParams params) {
    return write().allocator(allocator).stream(stream).uri(path).writeParams(params).execute();
  }

  /**
   * Commits {@code operation} (fragments written by {@link Fragment#create}, possibly on other
   * machines) to {@code path}. {@code readVersion}: the version the fragments were planned
   * against (required for Append; for Overwrite empty means the latest, or a new dataset).
   */
  public static Dataset commit(
      BufferAllocator allocator,
      String path,
      FragmentOperation operation,
      Optional<Long> readVersion) {
    return commit(allocator, path, operation, readVersion, Map.of());
  }

  /** As {@link #commit(BufferAllocator, String, FragmentOperation, Optional)}, with options. */
  public static Dataset commit(
      BufferAllocator allocator,
      String path,
      FragmentOperation operation,
      Optional<Long> readVersion,
      Map<String, String> storageOptions) {
    return operation.commit(allocator, path, readVersion, storageOptions, null);
  }

  /**
   * As {@link #commit(BufferAllocator, String, FragmentOperation, Optional, Map)}, the
   * credentials of {@code storageOptions} refreshed by {@code provider} (the distributed-write
   * scenario: the driver commits with the namespace's options and provider).
   */
  public static Dataset commit(
      BufferAllocator allocator,
      String path,
      FragmentOperation operation,
      Optional<Long> readVersion,
      Map<String, String> storageOptions,
      dev.lancecpp.io.StorageOptionsProvider provider) {
    return operation.commit(allocator, path, readVersion, storageOptions, provider);
  }

  // ---- reading ------------------------------------------------------------------------

  /** The allocator the results of this dataset come from. */
  public BufferAllocator allocator() {
    return allocator;
  }

  /** The URI the dataset was opened or written with. */
  public String uri() {
    return withHandle(Dataset::nativeUri);
  }

  /** The version this object reads. */
  public long version() {
    return withHandle(Dataset::nativeVersion);
  }

  /** The newest committed version (lists the store). */
  public long latestVersion() {
    return withHandle(Dataset::nativeLatestVersion);
  }

  /** The version this object reads, with its commit time and summary. */
  public Version getVersion() {
    long v = version();
    for (Version each : listVersions()) {
      if (each.getId() == v) {
        return each;
      }
    }
    throw new NotFoundException("version " + v + " is not listed any more", "NotFound", false);
  }

  /** Every committed version, oldest first. */
  public List<Version> listVersions() {
    return Arrays.asList(withHandle(Dataset::nativeListVersions));
  }

  /** The same dataset at {@code version}, as a new object (close it too). */
  public Dataset checkoutVersion(long version) {
    long handle = withHandle(h -> nativeCheckoutVersion(h, version));
    return new Dataset(handle, allocator, false);
  }

  /** "2.0", "2.1", "2.2" (or "0.1" for legacy files): the dataset's file format version. */
  public String getLanceFileFormatVersion() {
    return withHandle(Dataset::nativeDataStorageVersion);
  }

  /** Live rows (deleted rows excluded). */
  public long countRows() {
    return countRows(null);
  }

  /** Live rows matching the SQL-like {@code filter} ({@code null}: all). */
  public long countRows(String filter) {
    return withHandle(h -> nativeCountRows(h, filter));
  }

  /** The Arrow schema of the rows. */
  public Schema getSchema() {
    return importSchema(allocator, Dataset::nativeSchema);
  }

  /** A scanner over every row and column. */
  public LanceScanner newScan() {
    return newScan(new ScanOptions.Builder().build());
  }

  /** A scanner over every row and column in batches of {@code batchSize} rows. */
  public LanceScanner newScan(long batchSize) {
    return newScan(new ScanOptions.Builder().batchSize(batchSize).build());
  }

  /** A scanner as {@code options} say (columns, filter, limit, offset, fragments). */
  public LanceScanner newScan(ScanOptions options) {
    withHandle(h -> h);  // fails when closed
    return LanceScanner.create(this, options, allocator);
  }

  /**
   * The rows at {@code indices} (positions among the live rows, in scan order, as Lance Java's
   * take), in the order given; {@code columns} null or empty: all.
   */
  public ArrowReader take(List<Long> indices, List<String> columns) {
    long[] idx = indices.stream().mapToLong(Long::longValue).toArray();
    String[] cols = columns == null ? null : columns.toArray(new String[0]);
    return importStream(allocator, (h, stream) -> nativeTake(h, idx, cols, stream));
  }

  // ---- writing ------------------------------------------------------------------------

  /**
   * Deletes the rows matching {@code predicate}, committing a new version; this object moves to
   * it. A {@link ConflictException} leaves it at its version.
   */
  public void delete(String predicate) {
    if (predicate == null) {
      throw new IllegalArgumentException("predicate must not be null");
    }
    withHandle(
        h -> {
          nativeDelete(h, predicate);
          return null;
        });
  }

  // ---- lifetime -----------------------------------------------------------------------

  // close() (NativeHandle's) releases the native dataset, then the allocator when the
  // dataset made it.
  @Override
  protected void afterRelease() {
    if (ownsAllocator) {
      allocator.close();
    }
  }

  // ---- natives (java/native/dataset_jni.cc) ----------------------------------------------

  static native long nativeOpen(
      String uri, long version, Map<String, String> storageOptions, Object provider);

  static native long nativeOpenNamespace(
      Object namespace,
      String[] tableId,
      long version,
      Map<String, String> storageOptions,
      boolean ignoreNamespaceStorageOptions);

  static native long nativeWrite(long streamAddress, String uri, NativeWriteParams params);

  static native long nativeWriteNamespace(
      long streamAddress,
      Object namespace,
      String[] tableId,
      NativeWriteParams params,
      boolean ignoreNamespaceStorageOptions);

  /** Commits {@code fragments}: an Append ({@code schemaAddress} 0) or an Overwrite. */
  static native long nativeCommit(
      String uri,
      String[] fragments,
      long schemaAddress,
      long readVersion,
      Map<String, String> storageOptions,
      Object provider);

  private static native String nativeUri(long handle);

  private static native long nativeVersion(long handle);

  private static native long nativeLatestVersion(long handle);

  private static native String nativeDataStorageVersion(long handle);

  private static native long nativeCountRows(long handle, String filter);

  private static native void nativeDelete(long handle, String predicate);

  private static native long nativeCheckoutVersion(long handle, long version);

  private static native Version[] nativeListVersions(long handle);

  private static native void nativeSchema(long handle, long schemaAddress);

  private static native void nativeTake(
      long handle, long[] indices, String[] columns, long streamAddress);
}
