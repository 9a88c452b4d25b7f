// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.io.Closeable;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.CDataDictionaryProvider;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A native object owned by a Java object through a {@code long} handle: calls run under a read
 * lock, {@link #close()} takes the write lock, so close waits for calls in flight and no call
 * ever reaches a released object (it throws {@link IllegalStateException} instead).
 */
public abstract class NativeHandle implements Closeable {
  static {
    JniLoader.ensureLoaded();
  }

  /** An operation on the live handle. */
  @FunctionalInterface
  public interface HandleFunction<T> {
    T apply(long handle);
  }

  /** A native call filling the Arrow C struct Java allocated at {@code address}. */
  @FunctionalInterface
  public interface ExportCall {
    void fill(long handle, long address);
  }

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final String closedMessage;
  private long handle;

  /** {@code handle} 0: not yet set ({@link #setHandle}); {@code closedMessage}: when unusable. */
  protected NativeHandle(long handle, String closedMessage) {
    this.handle = handle;
    this.closedMessage = closedMessage;
  }

  /** Sets the handle of an object created without one (once). */
  protected final void setHandle(long newHandle) {
    lock.writeLock().lock();
    try {
      if (handle != 0) {
        throw new IllegalStateException(getClass().getSimpleName() + " already has a native object");
      }
      handle = newHandle;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Runs {@code op} on the live handle; close() cannot interleave. */
  public final <T> T withHandle(HandleFunction<T> op) {
    lock.readLock().lock();
    try {
      if (handle == 0) {
        throw new IllegalStateException(closedMessage);
      }
      return op.apply(handle);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The schema {@code call} exports from the live handle, imported into {@code allocator}. */
  public final Schema importSchema(BufferAllocator allocator, ExportCall call) {
    return withHandle(
        h -> {
          try (ArrowSchema schema = ArrowSchema.allocateNew(allocator);
              CDataDictionaryProvider dictionaries = new CDataDictionaryProvider()) {
            call.fill(h, schema.memoryAddress());
            return Data.importSchema(allocator, schema, dictionaries);
          }
        });
  }

  /** The C stream {@code call} exports from the live handle, as a reader of {@code allocator}. */
  public final ArrowReader importStream(BufferAllocator allocator, ExportCall call) {
    return withHandle(
        h -> {
          try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
            call.fill(h, stream.memoryAddress());
            return Data.importArrayStream(allocator, stream);
          }
        });
  }

  /** Whether the native object is gone (closed, or never created). */
  public final boolean closed() {
    lock.readLock().lock();
    try {
      return handle == 0;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Releases the native object once; idempotent. Calls after it throw IllegalStateException. */
  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      if (handle != 0) {
        nativeRelease(handle);
        handle = 0;
        afterRelease();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Runs after the native object is released (e.g. closing an owned allocator). */
  protected void afterRelease() {}

  /** Frees the native object of a handle of any kind (java/native/jni_util.h, ToHandle). */
  private static native void nativeRelease(long handle);
}
