// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.file;

import dev.lancecpp.JniLoader;
import dev.lancecpp.NativeHandle;
import dev.lancecpp.io.StorageOptionsProvider;
import dev.lancecpp.util.Range;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads one Lance file (any version: 2.0, 2.1, 2.2, legacy), as Lance Java's {@code
 * org.lance.file.LanceFileReader}: columns and row ranges stream out zero-copy.
 */
public final class LanceFileReader extends NativeHandle {
  static {
    JniLoader.ensureLoaded();
  }

  private final BufferAllocator allocator;

  LanceFileReader(long handle, BufferAllocator allocator) {
    super(handle, "LanceFileReader is closed");
    this.allocator = allocator;
  }

  /** Opens the file at {@code path} (a path or URI). */
  public static LanceFileReader open(String path, BufferAllocator allocator) {
    return open(path, Map.of(), allocator);
  }

  /** Opens the file at {@code path} with storage options (Lance's keys). */
  public static LanceFileReader open(
      String path, Map<String, String> storageOptions, BufferAllocator allocator) {
    return open(path, storageOptions, null, allocator);
  }

  /** As above, the credentials refreshed by {@code provider} before they expire. */
  public static LanceFileReader open(
      String path,
      Map<String, String> storageOptions,
      StorageOptionsProvider provider,
      BufferAllocator allocator) {
    return new LanceFileReader(nativeOpen(path, storageOptions, provider), allocator);
  }

  public long numRows() {
    return withHandle(LanceFileReader::nativeNumRows);
  }

  /** "2.0", "2.1", "2.2" or "0.1". */
  public String version() {
    return withHandle(LanceFileReader::nativeVersion);
  }

  public Schema schema() {
    return importSchema(allocator, LanceFileReader::nativeSchema);
  }

  /**
   * The {@code columns} (null: all) of the rows in {@code ranges} (null: all), in that order,
   * in batches of {@code batchSize} rows. Close the reader when done.
   */
  public ArrowReader readAll(List<String> columns, List<Range> ranges, int batchSize) {
    String[] cols = columns == null ? null : columns.toArray(new String[0]);
    long[] starts = ranges == null ? null : ranges.stream().mapToLong(Range::getStart).toArray();
    long[] ends = ranges == null ? null : ranges.stream().mapToLong(Range::getEnd).toArray();
    return importStream(
        allocator, (h, stream) -> nativeRead(h, cols, starts, ends, batchSize, stream));
  }

  private static native long nativeOpen(
      String uri, Map<String, String> storageOptions, Object provider);

  private static native long nativeNumRows(long handle);

  private static native String nativeVersion(long handle);

  private static native void nativeSchema(long handle, long schemaAddress);

  private static native void nativeRead(
      long handle, String[] columns, long[] starts, long[] ends, int batchSize, long stream);
}
