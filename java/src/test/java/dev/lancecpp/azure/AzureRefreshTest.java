// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.Dataset;
import dev.lancecpp.SecretLedger;
import dev.lancecpp.TestSupport;
import dev.lancecpp.namespace.CountingNamespace;
import dev.lancecpp.namespace.DirectoryNamespace;
import dev.lancecpp.namespace.NamespaceRefreshTestBase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.namespace.LanceNamespace;

/**
 * The refresh scenarios from Java on Azurite, with SAS tokens that really expire: our own
 * DirectoryNamespace on an az:// root vends SAS tokens that live 12 s
 * (credential_vendor.reported_lifetime_millis), Azurite refuses them afterwards, and a Java
 * namespace wrapping it counts the calls the core makes (from its own threads). After a wait
 * the wrapper switches to a twin namespace whose tokens outlive the test, so the counts after
 * the refresh are exact. The C++ version: tests/testing/vended_refresh_scenarios.h.
 */
class AzureRefreshTest extends NamespaceRefreshTestBase<AzureRefreshTest.Counting> {
  static final long TTL_MS = 12_000;
  static final long OFFSET_MS = 2_000;
  static final long MARGIN_MS = 1_500;

  static String env(String name) {
    return TestSupport.requireEnv(
        name, "run through make test (scripts/run_tests.sh starts Azurite)");
  }

  /** Counts describe / declare over two vending namespaces (short-lived, long-lived). */
  static final class Counting extends CountingNamespace.Delegating {
    final DirectoryNamespace shortLived;
    final DirectoryNamespace longLived;
    final String root;
    volatile boolean useLong;
    final AtomicLong latestExpiry = new AtomicLong();

    Counting(String root, BufferAllocator allocator) {
      this(root, make(root, TTL_MS, allocator), allocator);
    }

    private Counting(String root, DirectoryNamespace shortLived, BufferAllocator allocator) {
      super(() -> "AzureRefreshTest.Counting { root: " + root + " }", shortLived);
      this.root = root;
      this.shortLived = shortLived;
      this.longLived = make(root, 600_000, allocator);
    }

    static DirectoryNamespace make(String root, long ttl, BufferAllocator allocator) {
      Map<String, String> props = new HashMap<>();
      props.put("root", root);
      props.put("storage.azure_storage_account_name", env("LANCE_AZURE_ACCOUNT"));
      props.put("storage.azure_storage_account_key", env("LANCE_AZURE_KEY"));
      props.put("storage.azure_storage_endpoint", env("LANCE_AZURE_ENDPOINT"));
      props.put("storage.allow_http", "true");
      props.put("credential_vendor.enabled", "true");
      props.put("credential_vendor.permission", "write");
      props.put("credential_vendor.reported_lifetime_millis", Long.toString(ttl));
      props.put("credential_vendor.refresh_offset_millis", Long.toString(OFFSET_MS));
      DirectoryNamespace ns = new DirectoryNamespace();
      ns.initialize(props, allocator);
      return ns;
    }

    @Override
    protected LanceNamespace inner() {
      return useLong ? longLived : shortLived;
    }

    /** Records the vended SAS (for the secrets scan) and the latest expiry. */
    @Override
    protected Map<String, String> vend(Map<String, String> options) {
      if (options == null) {
        return null;
      }
      SecretLedger.record(options.get("azure_storage_sas_token"), "vended azure sas");
      String expires = options.get("expires_at_millis");
      if (expires != null) {
        latestExpiry.accumulateAndGet(Long.parseLong(expires), Math::max);
      }
      return options;
    }

    void close() {
      shortLived.close();
      longLived.close();
    }
  }

  @BeforeEach
  void setUp() {
    String root = "az://" + env("LANCE_AZURE_CONTAINER") + "/java-refresh-"
        + UUID.randomUUID().toString().substring(0, 12);
    ns = new Counting(root, allocator);
  }

  @AfterEach
  void tearDown() {
    TestSupport.expectNoForcedRefresh(ns.root);
    ns.close();
  }

  @Override
  protected void waitForExpiry() throws InterruptedException {
    long delay = ns.latestExpiry.get() + MARGIN_MS - System.currentTimeMillis();
    if (delay > 0) {
      Thread.sleep(delay);
    }
    ns.useLong = true;
  }

  @Test
  void appendAndOverwriteThroughTheNamespace() throws Exception {
    List<String> id = List.of("a");
    createThenAppend(id);
    overwriteAfterAppend(id);
  }

  @Test
  void sixteenReadersAcrossAnExpiry() throws Exception {
    try (Dataset ds = createdAndOpened("many", 60)) {
      long expiredAt = ns.latestExpiry.get() + MARGIN_MS;
      ns.useLong = true;  // the refreshed token outlives the readers
      ExecutorService pool = Executors.newFixedThreadPool(16);
      List<Future<int[]>> results = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        results.add(pool.submit(() -> {
          int before = 0;
          int after = 0;
          long guard = System.currentTimeMillis() + 180_000;
          while (after < 2 && System.currentTimeMillis() < guard) {
            boolean expired = System.currentTimeMillis() >= expiredAt;
            assertEquals(60, ds.countRows("id >= 0"));
            if (expired) {
              after++;
            } else {
              before++;
              Thread.sleep(100);
            }
          }
          return new int[] {before, after};
        }));
      }
      pool.shutdown();
      assertTrue(pool.awaitTermination(240, TimeUnit.SECONDS));
      for (Future<int[]> f : results) {
        int[] r = f.get();
        assertTrue(r[0] >= 1 && r[1] == 2, "before=" + r[0] + " after=" + r[1]);
      }
      assertCalls(1, 2);
    }
  }
}
