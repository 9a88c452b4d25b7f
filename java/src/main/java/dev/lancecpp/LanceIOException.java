// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

/** Storage failed: local or remote I/O, an unavailable service, or stored bytes that do not decode (the core's IOError, Unavailable and Corrupt). */
public class LanceIOException extends LanceException {
  private static final long serialVersionUID = 1L;

  /** See {@link LanceException#LanceException(String, String, boolean)}. */
  public LanceIOException(String message, String kind, boolean retryable) {
    super(message, kind, retryable);
  }
}
