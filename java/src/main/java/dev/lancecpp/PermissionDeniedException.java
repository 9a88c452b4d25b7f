// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

/** Credentials missing, refused, expired beyond refresh, or not allowed to do this. */
public class PermissionDeniedException extends LanceException {
  private static final long serialVersionUID = 1L;

  /** See {@link LanceException#LanceException(String, String, boolean)}. */
  public PermissionDeniedException(String message, String kind, boolean retryable) {
    super(message, kind, retryable);
  }
}
