// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The test side of the secrets scan (scripts/scan_secrets.sh): every secret the Java tests
 * obtain is appended to the ledger LANCE_SECRETS_LEDGER names ("label\tsecret", one write per
 * line), so that the scan checks every log of the run for it. No ledger (a run by hand): no-op.
 */
public final class SecretLedger {
  private SecretLedger() {}

  public static synchronized void record(String secret, String label) {
    String path = System.getenv("LANCE_SECRETS_LEDGER");
    if (secret == null || secret.isEmpty() || path == null || path.isEmpty()) {
      return;
    }
    byte[] line = (label + "\t" + secret + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      Files.write(Path.of(path), line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("appending to the secrets ledger failed", e);
    }
  }
}
