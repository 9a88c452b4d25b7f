// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.file;

import dev.lancecpp.JniLoader;
import dev.lancecpp.io.StorageOptionsProvider;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * Writes one Lance file, as Lance Java's {@code org.lance.file.LanceFileWriter}: the schema is
 * the first batch's; the file becomes visible when {@link #close()} succeeds (a writer closed
 * after a failed write, or never written to, publishes nothing).
 */
public final class LanceFileWriter implements AutoCloseable {
  static {
    JniLoader.ensureLoaded();
  }

  /** Opens the native writer once the schema is known. */
  interface Opener {
    long open(long schemaAddress);
  }

  private final BufferAllocator allocator;
  private final Opener opener;
  private long handle;
  private boolean failed;
  private boolean closed;

  LanceFileWriter(BufferAllocator allocator, Opener opener) {
    this.allocator = allocator;
    this.opener = opener;
  }

  /** A writer of the file at {@code path} (default format 2.2). */
  public static LanceFileWriter open(
      String path, BufferAllocator allocator, DictionaryProvider dictionaryProvider) {
    return open(path, allocator, dictionaryProvider, Optional.empty(), Map.of());
  }

  public static LanceFileWriter open(
      String path,
      BufferAllocator allocator,
      DictionaryProvider dictionaryProvider,
      Map<String, String> storageOptions) {
    return open(path, allocator, dictionaryProvider, Optional.empty(), storageOptions);
  }

  /** With a format version ("2.0", "2.1", "2.2", "stable") and storage options. */
  public static LanceFileWriter open(
      String path,
      BufferAllocator allocator,
      DictionaryProvider dictionaryProvider,
      Optional<String> dataStorageVersion,
      Map<String, String> storageOptions) {
    return open(path, allocator, dataStorageVersion, storageOptions, null);
  }

  /** As above, the credentials refreshed by {@code provider} before they expire. */
  public static LanceFileWriter open(
      String path,
      BufferAllocator allocator,
      Optional<String> dataStorageVersion,
      Map<String, String> storageOptions,
      StorageOptionsProvider provider) {
    if (path == null || path.isEmpty()) {
      throw new IllegalArgumentException("LanceFileWriter.open(): path is required");
    }
    String version = dataStorageVersion.orElse(null);
    return new LanceFileWriter(
        allocator, schema -> nativeOpen(path, schema, version, storageOptions, provider));
  }

  /** Appends the rows of {@code root}; the first call fixes the file's schema. */
  public synchronized void write(VectorSchemaRoot root) {
    if (closed) {
      throw new IllegalStateException("LanceFileWriter is closed");
    }
    try (ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
      if (handle == 0) {
        try (ArrowSchema first = ArrowSchema.allocateNew(allocator)) {
          Data.exportSchema(allocator, root.getSchema(), null, first);
          handle = opener.open(first.memoryAddress());
        }
      }
      Data.exportVectorSchemaRoot(allocator, root, null, array, schema);
      nativeWrite(handle, array.memoryAddress(), schema.memoryAddress());
    } catch (RuntimeException e) {
      failed = true;
      throw e;
    }
  }

  /** Publishes the file (unless a write failed). Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (handle == 0) {
      return;
    }
    long h = handle;
    handle = 0;
    try {
      if (!failed) {
        nativeClose(h);
      }
    } finally {
      nativeRelease(h, failed);
    }
  }

  private static native long nativeOpen(
      String uri,
      long schemaAddress,
      String version,
      Map<String, String> storageOptions,
      Object provider);


  private static native void nativeWrite(long handle, long arrayAddress, long schemaAddress);

  private static native long nativeClose(long handle);

  private static native void nativeRelease(long handle, boolean abort);
}
