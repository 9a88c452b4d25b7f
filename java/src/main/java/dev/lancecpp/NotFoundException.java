// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

/** A dataset, version, file or table that does not exist. */
public class NotFoundException extends LanceException {
  private static final long serialVersionUID = 1L;

  /** See {@link LanceException#LanceException(String, String, boolean)}. */
  public NotFoundException(String message, String kind, boolean retryable) {
    super(message, kind, retryable);
  }
}
