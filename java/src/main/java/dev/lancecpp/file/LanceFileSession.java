// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.file;

import dev.lancecpp.JniLoader;
import dev.lancecpp.NativeHandle;
import dev.lancecpp.io.StorageOptionsProvider;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Files under one base path sharing one store and one credentials source (pylance's {@code
 * LanceFileSession}; Lance Java 7.0.0 has none): with a provider, no provider call while the
 * credentials are valid and one per expiry, however many files are opened.
 */
public final class LanceFileSession extends NativeHandle {
  static {
    JniLoader.ensureLoaded();
  }

  private final BufferAllocator allocator;

  private LanceFileSession(long handle, BufferAllocator allocator) {
    super(handle, "LanceFileSession is closed");
    this.allocator = allocator;
  }

  /** A session on {@code baseUri}; no request is sent yet. */
  public static LanceFileSession open(
      String baseUri,
      Map<String, String> storageOptions,
      StorageOptionsProvider provider,
      BufferAllocator allocator) {
    return new LanceFileSession(nativeOpen(baseUri, storageOptions, provider), allocator);
  }

  /** Whether a file exists at {@code path} (relative to the base). */
  public boolean contains(String path) {
    return withHandle(h -> nativeContains(h, path));
  }

  /** Every file below {@code prefix} ("" : the whole base), relative to the base, sorted. */
  public List<String> list(String prefix) {
    return Arrays.asList(withHandle(h -> nativeList(h, prefix == null ? "" : prefix)));
  }

  /** A writer of the file at {@code path}; its schema is the first batch's. */
  public LanceFileWriter openWriter(String path, Optional<String> dataStorageVersion) {
    String version = dataStorageVersion.orElse(null);
    return new LanceFileWriter(
        allocator,
        schema -> withHandle(h -> nativeOpenWriter(h, path, schema, version)));
  }

  /** A reader of the file at {@code path}. */
  public LanceFileReader openReader(String path) {
    return new LanceFileReader(withHandle(h -> nativeOpenReader(h, path)), allocator);
  }

  private static native long nativeOpen(
      String baseUri, Map<String, String> storageOptions, Object provider);

  private static native boolean nativeContains(long handle, String path);

  private static native String[] nativeList(long handle, String prefix);

  private static native long nativeOpenWriter(
      long handle, String path, long schemaAddress, String version);

  private static native long nativeOpenReader(long handle, String path);
}
