// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

/** Creating something that already exists (a dataset in create mode, a tag). */
public class AlreadyExistsException extends LanceException {
  private static final long serialVersionUID = 1L;

  /** See {@link LanceException#LanceException(String, String, boolean)}. */
  public AlreadyExistsException(String message, String kind, boolean retryable) {
    super(message, kind, retryable);
  }
}
