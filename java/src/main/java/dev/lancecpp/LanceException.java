// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

/**
 * An error of the lance-cpp core. Invalid input is reported as {@link
 * IllegalArgumentException} instead, as Lance Java does; the subclasses name the kinds callers
 * usually handle: {@link NotFoundException}, {@link AlreadyExistsException}, {@link
 * ConflictException}, {@link PermissionDeniedException} and {@link LanceIOException}.
 *
 * <p>The message is the core's: it says what was attempted on which path and never holds a
 * secret.
 */
public class LanceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String kind;
  private final boolean retryable;

  /**
   * @param message the core's message
   * @param kind the core's status code name, e.g. "NotFound", "Conflict", "IOError"
   * @param retryable whether doing the same again (after reloading) may succeed
   */
  public LanceException(String message, String kind, boolean retryable) {
    super(message);
    this.kind = kind;
    this.retryable = retryable;
  }

  /** The core's status code name, e.g. "NotFound", "Conflict", "IOError". */
  public String getKind() {
    return kind;
  }

  /**
   * Whether the same operation may succeed if tried again: a retryable commit conflict (plan
   * it again on the latest version), a throttled or unavailable service.
   */
  public boolean isRetryable() {
    return retryable;
  }
}
