// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

/** A commit that lost a race with a concurrent writer and could not be rebased; {@link #isRetryable()} says whether planning it again on the latest version may succeed. */
public class ConflictException extends LanceException {
  private static final long serialVersionUID = 1L;

  /** See {@link LanceException#LanceException(String, String, boolean)}. */
  public ConflictException(String message, String kind, boolean retryable) {
    super(message, kind, retryable);
  }
}
