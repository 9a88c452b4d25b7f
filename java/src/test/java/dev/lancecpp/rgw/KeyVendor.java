// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.rgw;

import dev.lancecpp.SecretLedger;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Short-lived RGW access keys of the test user, revoked on the server one second after they
 * expire, so that a client that failed to refresh gets a 403 instead of silently working with
 * stale keys (as tests/python/_vending.py and tests/testing/s3_env.cc). Keys are minted ahead
 * ({@link #premint}) so that a test's timed part only hands out ready keys. Every key change
 * runs under the per-user lock file the C++ and Python suites take ({@code flock(1)}: the same
 * flock(2) lock, which Java's own FileLock would not be), so that concurrent suites never change
 * the user's keys at once.
 */
public final class KeyVendor {
  /** One vended key. */
  public record Key(String access, String secret, long expiresAtMillis) {
    @Override
    public String toString() {
      return "Key{" + access.substring(0, 4) + "***}";  // never the secret
    }
  }

  private static final SecureRandom RANDOM = new SecureRandom();
  private final String conf;
  private final String user;
  private final Path lockFile;
  private final Deque<String[]> pool = new ArrayDeque<>();
  private final PriorityQueue<Object[]> pending =
      new PriorityQueue<>((a, b) -> Long.compare((Long) a[0], (Long) b[0]));
  private final Set<String> revoked = new HashSet<>();
  private final Thread revoker;
  private boolean closed;

  public KeyVendor(String rgwConf) {
    this.conf = rgwConf;
    // The user whose keys are minted: LANCE_RGW_KEY_USER or "test", as the other suites.
    String u = System.getenv("LANCE_RGW_KEY_USER");
    this.user = u == null || u.isEmpty() ? "test" : u;
    Path dir = Path.of(rgwConf).toAbsolutePath().getParent();
    this.lockFile = dir.resolve("keys-" + user + ".lock");
    this.revoker = new Thread(this::revokeLoop, "key-revoker");
    this.revoker.setDaemon(true);
    this.revoker.start();
  }

  private static String hex(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(String.format(Locale.ROOT, "%02x", x));
    }
    return sb.toString();
  }

  private void admin(String... args) {
    List<String> cmd = new ArrayList<>(List.of("flock", lockFile.toString(), "radosgw-admin", "-c", conf, "key"));
    cmd.addAll(List.of(args));
    cmd.add("--uid=" + user);
    cmd.add("--key-type=s3");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        if (rc == 0) {
          return;
        }
        if (out.contains("unable to store user info") && System.nanoTime() < deadline) {
          Thread.sleep(50);
          continue;
        }
        // The command line holds the secret: report only the verb and RGW's complaint.
        throw new IllegalStateException("radosgw-admin key " + args[0] + " failed (rc " + rc + ")");
      } catch (IOException e) {
        throw new IllegalStateException("running radosgw-admin failed: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }

  private String[] mint() {
    String access = "J" + hex(9).toUpperCase(Locale.ROOT);
    String secret = hex(20);
    SecretLedger.record(secret, "secret of " + access.substring(0, 4) + "***");
    admin("create", "--access-key=" + access, "--secret-key=" + secret);
    return new String[] {access, secret};
  }

  /** Makes sure {@code n} keys are ready (minted now, outside a test's timed part). */
  public void premint(int n) {
    while (true) {
      synchronized (this) {
        if (pool.size() >= n) {
          return;
        }
      }
      String[] key = mint();
      synchronized (this) {
        pool.add(key);
      }
    }
  }

  /** A key valid for {@code ttlMillis} from now, revoked one second after that. */
  public Key vend(long ttlMillis) {
    String[] key;
    synchronized (this) {
      key = pool.poll();
    }
    if (key == null) {
      key = mint();
    }
    long expires = System.currentTimeMillis() + ttlMillis;
    synchronized (this) {
      pending.add(new Object[] {System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMillis + 1000), key[0]});
      notifyAll();
    }
    return new Key(key[0], key[1], expires);
  }

  /** Waits until every key of {@code keys} expired and was revoked on the server. */
  public synchronized void waitRevoked(Collection<String> keys, long guardMillis)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(guardMillis);
    while (!revoked.containsAll(keys)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("vended keys still not revoked after " + guardMillis + " ms");
      }
      wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 1000)));
    }
  }

  private void revokeLoop() {
    while (true) {
      String access;
      synchronized (this) {
        try {
          while (!closed && (pending.isEmpty() || (Long) pending.peek()[0] > System.nanoTime())) {
            long waitNanos = pending.isEmpty() ? TimeUnit.SECONDS.toNanos(1) : (Long) pending.peek()[0] - System.nanoTime();
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
          }
        } catch (InterruptedException e) {
          return;
        }
        if (closed) {
          return;
        }
        access = (String) pending.poll()[1];
      }
      revoke(access);
    }
  }

  private void revoke(String access) {
    try {
      admin("rm", "--access-key=" + access);
      synchronized (this) {
        revoked.add(access);
        notifyAll();
      }
    } catch (IllegalStateException e) {
      // Best effort: a leftover key only costs a user-info entry.
    }
  }

  /** Revokes every key still alive and every unused pre-minted one. */
  public void close() throws InterruptedException {
    List<String> rest = new ArrayList<>();
    synchronized (this) {
      closed = true;
      for (Object[] p : pending) {
        rest.add((String) p[1]);
      }
      for (String[] k : pool) {
        rest.add(k[0]);
      }
      pending.clear();
      pool.clear();
      notifyAll();
    }
    revoker.join();
    for (String access : rest) {
      revoke(access);
    }
  }
}
