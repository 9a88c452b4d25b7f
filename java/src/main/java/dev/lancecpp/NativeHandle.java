// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A native object owned by a Java object through a {@code long} handle: calls run under a read
 * lock, {@link #close()} takes the write lock, so close waits for calls in flight and no call
 * ever reaches a released object (it throws {@link IllegalStateException} instead).
 */
public abstract class NativeHandle implements AutoCloseable {
  /** An operation on the live handle. */
  @FunctionalInterface
  public interface HandleFunction<T> {
    T apply(long handle);
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

  /** Whether the native object is gone (closed, or never created). */
  public final boolean closed() {
    lock.readLock().lock();
    try {
      return handle == 0;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Releases the native object once; idempotent. */
  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      if (handle != 0) {
        release(handle);
        handle = 0;
        afterRelease();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Frees the native object of {@code handle}. */
  protected abstract void release(long handle);

  /** Runs after the native object is released (e.g. closing an owned allocator). */
  protected void afterRelease() {}
}
