// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lancecpp.Dataset;
import dev.lancecpp.DatasetTestRows;
import dev.lancecpp.WriteParams;
import dev.lancecpp.io.CredentialStats;
import dev.lancecpp.namespace.DirectoryNamespace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;

/**
 * The refresh scenarios from Java on Azurite, with SAS tokens that really expire: our own
 * DirectoryNamespace on an az:// root vends SAS tokens that live 12 s
 * (credential_vendor.reported_lifetime_millis), Azurite refuses them afterwards, and a Java
 * namespace wrapping it counts the calls the core makes (from its own threads). After a wait
 * the wrapper switches to a twin namespace whose tokens outlive the test, so the counts after
 * the refresh are exact. The C++ version: tests/testing/vended_refresh_scenarios.h.
 */
class AzureRefreshTest {
  static final long TTL_MS = 12_000;
  static final long OFFSET_MS = 2_000;
  static final long MARGIN_MS = 1_500;

  private static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) {
      fail(name + " is not set: run through make test (scripts/run_tests.sh starts Azurite)");
    }
    return value;
  }

  /** Counts describe / declare over two vending namespaces (short-lived, long-lived). */
  static final class Counting implements LanceNamespace {
    final DirectoryNamespace shortLived;
    final DirectoryNamespace longLived;
    final String root;
    volatile boolean useLong;
    final AtomicInteger describes = new AtomicInteger();
    final AtomicInteger declares = new AtomicInteger();
    final AtomicLong latestExpiry = new AtomicLong();

    Counting(String root, BufferAllocator allocator) {
      this.root = root;
      this.shortLived = make(root, TTL_MS, allocator);
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

    LanceNamespace inner() {
      return useLong ? longLived : shortLived;
    }

    void note(Map<String, String> options) {
      if (options == null) {
        return;
      }
      String sas = options.get("azure_storage_sas_token");
      if (sas != null) {
        record(sas, "vended azure sas");
      }
      String expires = options.get("expires_at_millis");
      if (expires != null) {
        latestExpiry.accumulateAndGet(Long.parseLong(expires), Math::max);
      }
    }

    @Override
    public void initialize(Map<String, String> properties, BufferAllocator allocator) {}

    @Override
    public String namespaceId() {
      return "AzureRefreshTest.Counting { root: " + root + " }";
    }

    @Override
    public DescribeTableResponse describeTable(DescribeTableRequest request) {
      describes.incrementAndGet();
      DescribeTableResponse response = inner().describeTable(request);
      note(response.getStorageOptions());
      return response;
    }

    @Override
    public DeclareTableResponse declareTable(DeclareTableRequest request) {
      declares.incrementAndGet();
      DeclareTableResponse response = inner().declareTable(request);
      note(response.getStorageOptions());
      return response;
    }

    void close() {
      shortLived.close();
      longLived.close();
    }
  }

  static void record(String secret, String label) {
    String path = System.getenv("LANCE_SECRETS_LEDGER");
    if (secret == null || secret.isEmpty() || path == null || path.isEmpty()) {
      return;
    }
    try {
      Files.write(Path.of(path),
          (label + "\t" + secret + "\n").getBytes(StandardCharsets.UTF_8),
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new RuntimeException("recording a secret in the ledger", e);
    }
  }

  BufferAllocator allocator;
  Counting ns;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    String root = "az://" + env("LANCE_AZURE_CONTAINER") + "/java-refresh-"
        + UUID.randomUUID().toString().substring(0, 12);
    ns = new Counting(root, allocator);
  }

  @AfterEach
  void tearDown() {
    int seen = 0;
    for (Map.Entry<String, Map<String, Long>> e : CredentialStats.snapshot().entrySet()) {
      if (!e.getKey().contains(ns.root)) {
        continue;
      }
      seen++;
      assertEquals(0L, e.getValue().get("forced_refreshes"), e.getKey() + " " + e.getValue());
      assertEquals(0L, e.getValue().get("failures"), e.getKey() + " " + e.getValue());
    }
    assertTrue(seen > 0, "no refresh counters for this test's providers");
    ns.close();
    allocator.close();
  }

  Dataset write(List<String> id, long start, int n, WriteParams.WriteMode mode)
      throws IOException {
    return Dataset.write().allocator(allocator).reader(DatasetTestRows.rows(allocator, start, n))
        .namespaceClient(ns).tableId(id).mode(mode).execute();
  }

  Dataset open(List<String> id) {
    return Dataset.open().allocator(allocator).namespaceClient(ns).tableId(id).build();
  }

  void assertCalls(int declares, int describes) {
    assertEquals(declares, ns.declares.get(), "declare_table calls");
    assertEquals(describes, ns.describes.get(), "describe_table calls");
  }

  void waitForExpiry() throws InterruptedException {
    long delay = ns.latestExpiry.get() + MARGIN_MS - System.currentTimeMillis();
    if (delay > 0) {
      Thread.sleep(delay);
    }
    ns.useLong = true;
  }

  static List<Long> range(long start, long end) {
    return LongStream.range(start, end).boxed().toList();
  }

  @Test
  void openThenRefreshAfterExpiry() throws Exception {
    List<String> id = List.of("t");
    write(id, 0, 3, WriteParams.WriteMode.CREATE).close();
    assertCalls(1, 0);
    try (Dataset ds = open(id)) {
      assertCalls(1, 1);
      assertEquals(range(0, 3), DatasetTestRows.ids(ds.newScan().scanBatches()));
      assertEquals(1, ds.countRows("id >= 2"));
      assertCalls(1, 1);
      waitForExpiry();
      assertEquals(range(0, 3), DatasetTestRows.ids(ds.newScan().scanBatches()));
      assertEquals(3, ds.countRows());
      assertCalls(1, 2);
    }
  }

  @Test
  void appendAndOverwriteThroughTheNamespace() throws Exception {
    List<String> id = List.of("a");
    write(id, 0, 1, WriteParams.WriteMode.CREATE).close();
    try (Dataset ds = write(id, 1, 1, WriteParams.WriteMode.APPEND)) {
      assertEquals(2, ds.version());
      assertEquals(2, ds.countRows());
    }
    assertCalls(1, 1);
    try (Dataset ds = write(id, 100, 2, WriteParams.WriteMode.OVERWRITE)) {
      assertEquals(3, ds.version());
      assertEquals(range(100, 102), DatasetTestRows.ids(ds.newScan().scanBatches()));
    }
    assertCalls(1, 2);
  }

  @Test
  void sixteenReadersAcrossAnExpiry() throws Exception {
    List<String> id = List.of("many");
    write(id, 0, 60, WriteParams.WriteMode.CREATE).close();
    try (Dataset ds = open(id)) {
      assertCalls(1, 1);
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
