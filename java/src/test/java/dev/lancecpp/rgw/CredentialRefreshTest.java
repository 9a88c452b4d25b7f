// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.rgw;

import static dev.lancecpp.TestSupport.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.Dataset;
import dev.lancecpp.DatasetTestRows;
import dev.lancecpp.Fragment;
import dev.lancecpp.FragmentMetadata;
import dev.lancecpp.FragmentOperation;
import dev.lancecpp.TestSupport;
import dev.lancecpp.WriteParams;
import dev.lancecpp.file.LanceFileReader;
import dev.lancecpp.file.LanceFileSession;
import dev.lancecpp.file.LanceFileWriter;
import dev.lancecpp.io.LanceNamespaceStorageOptionsProvider;
import dev.lancecpp.namespace.NamespaceRefreshTestBase;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;

/**
 * The credential-refresh scenarios of docs/credentials.md on a real RGW, from Java: a Java
 * namespace wrapping lance-cpp's DirectoryNamespace vends a new revocable key on every call;
 * the counts are Lance's, exactly (as the C++ and Python suites pin them). Keys live TTL_MS
 * (long enough for a loaded 2-core machine) and are revoked one second after; the waits are
 * for that revocation, not for a fixed time.
 */
class CredentialRefreshTest extends NamespaceRefreshTestBase<VendingNamespace> {
  static final long TTL_MS = 15_000;
  static final long GUARD_MS = 180_000;
  static S3Env s3;
  static KeyVendor vendor;

  @BeforeAll
  static void startVendor() {
    s3 = S3Env.get();
    vendor = new KeyVendor(s3.rgwConf);
  }

  @AfterAll
  static void stopVendor() throws InterruptedException {
    vendor.close();
  }

  @BeforeEach
  void setUp() {
    vendor.premint(4);
    ns = new VendingNamespace(s3, vendor, s3.uniqueUri("ns"), TTL_MS, allocator);
  }

  @AfterEach
  void tearDown() {
    // The counters of every provider on this test's namespace.
    TestSupport.expectNoForcedRefresh(ns.namespaceId());
    ns.close();
  }

  @Override
  protected void waitForExpiry() throws InterruptedException {
    vendor.premint(2);  // the refresh takes a ready key, as the timed window expects
    vendor.waitRevoked(ns.vended(), GUARD_MS);
  }

  @Test
  void scenario3AppendThroughTheNamespace() throws Exception {
    List<String> id = List.of("s3");
    createThenAppend(id);
    try (Dataset ds = open(id)) {
      assertEquals(2, ds.countRows());
      assertEquals(2, ds.listVersions().size());
    }
    assertCalls(1, 2);
  }

  @Test
  void scenarios4To6CreateAppendOverwriteModes() throws Exception {
    List<String> id = List.of("s4");
    try (Dataset ds = write(id, 0, 2, WriteParams.WriteMode.CREATE)) {
      assertEquals(1, ds.version());
      assertEquals(range(0, 2), DatasetTestRows.ids(ds.newScan().scanBatches()));
    }
    assertCalls(1, 0);
    try (Dataset ds = write(id, 2, 2, WriteParams.WriteMode.APPEND)) {
      assertEquals(2, ds.version());
      for (int i = 0; i < 3; i++) {
        assertEquals(4, ds.countRows("id >= 0"));
      }
    }
    assertCalls(1, 1);
    overwriteAfterAppend(id);
  }

  @Test
  void scenario7DistributedWrite() throws Exception {
    List<String> id = List.of("s7");
    DeclareTableResponse declared = ns.declareTable(new DeclareTableRequest().id(id));
    assertCalls(1, 0);
    String location = declared.getLocation();
    Map<String, String> options = declared.getStorageOptions();
    LanceNamespaceStorageOptionsProvider provider =
        new LanceNamespaceStorageOptionsProvider(ns, id);
    WriteParams params =
        new WriteParams.Builder()
            .withStorageOptions(options)
            .withStorageOptionsProvider(provider)
            .build();
    List<FragmentMetadata> fragments = new ArrayList<>();
    int[][] parts = {{0, 2}, {2, 2}, {4, 1}};  // three workers: 2 + 2 + 1 rows
    for (int[] part : parts) {
      try (ArrowReader rows = DatasetTestRows.rows(allocator, part[0], part[1]);
          ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
        Data.exportArrayStream(allocator, rows, stream);
        fragments.addAll(Fragment.create(location, stream, params));
      }
    }
    try (Dataset ds =
        Dataset.commit(
            allocator,
            location,
            new FragmentOperation.Overwrite(fragments, DatasetTestRows.SCHEMA),
            Optional.empty(),
            options,
            provider)) {
      assertEquals(1, ds.version());
      List<Long> ids = new ArrayList<>(DatasetTestRows.ids(ds.newScan().scanBatches()));
      ids.sort(null);
      assertEquals(range(0, 5), ids);
    }
    assertCalls(1, 0);
    try (Dataset ds = open(id)) {
      assertEquals(5, ds.countRows());
    }
    assertCalls(1, 1);
  }

  // ---- single files (scenarios 8-10) ------------------------------------------------------

  /** A table in the namespace and one describe's answer (declare 1, describe 1). */
  DescribeTableResponse described(List<String> id) throws IOException {
    write(id, 0, 1, WriteParams.WriteMode.CREATE).close();
    DescribeTableResponse response = ns.describeTable(new DescribeTableRequest().id(id));
    assertCalls(1, 1);
    return response;
  }

  /** Rows [0, 3) in two batches (2 + 1). */
  void writeFile(LanceFileWriter writer) throws IOException {
    try (writer) {
      for (int[] part : new int[][] {{0, 2}, {2, 1}}) {
        try (ArrowReader rows = DatasetTestRows.rows(allocator, part[0], part[1])) {
          assertTrue(rows.loadNextBatch());
          writer.write(rows.getVectorSchemaRoot());
        }
      }
    }
  }

  List<Long> readFile(LanceFileReader reader) throws IOException {
    try (reader) {
      return DatasetTestRows.ids(reader.readAll(null, null, 1024));
    }
  }

  /**
   * Rows [0, 3) written to the file {@code path} with {@code writeOptions} (refreshed by {@code
   * writeProvider}, null: none), then read back with {@code readOptions} and {@code
   * readProvider}; the describe_table calls after each.
   */
  void writeThenRead(
      String path,
      Map<String, String> writeOptions,
      LanceNamespaceStorageOptionsProvider writeProvider,
      int describesAfterWrite,
      Map<String, String> readOptions,
      LanceNamespaceStorageOptionsProvider readProvider,
      int describesAfterRead)
      throws IOException {
    writeFile(LanceFileWriter.open(path, allocator, Optional.empty(), writeOptions, writeProvider));
    assertCalls(1, describesAfterWrite);
    assertEquals(
        range(0, 3), readFile(LanceFileReader.open(path, readOptions, readProvider, allocator)));
    assertCalls(1, describesAfterRead);
  }

  @Test
  void scenario8FileWriter() throws Exception {
    List<String> id = List.of("s8");
    DescribeTableResponse table = described(id);
    Map<String, String> options = table.getStorageOptions();
    LanceNamespaceStorageOptionsProvider provider = new LanceNamespaceStorageOptionsProvider(ns, id);
    String one = table.getLocation() + "/standalone/one.lance";
    writeThenRead(one, options, provider, 1, options, provider, 1);
    waitForExpiry();
    String two = table.getLocation() + "/standalone/two.lance";
    // One store per provider: the reader uses the writer's fresh credentials.
    writeThenRead(two, options, provider, 2, options, provider, 2);
  }

  @Test
  void scenario9FileReader() throws Exception {
    List<String> id = List.of("s9");
    DescribeTableResponse table = described(id);
    String location = table.getLocation();
    Map<String, String> fresh = table.getStorageOptions();
    LanceNamespaceStorageOptionsProvider provider = new LanceNamespaceStorageOptionsProvider(ns, id);
    writeThenRead(location + "/standalone/r1.lance", s3.options(), null, 1, fresh, provider, 1);
    waitForExpiry();
    // The first vended keys are revoked by now: write with the static test keys.
    writeThenRead(location + "/standalone/r2.lance", s3.options(), null, 1, fresh, provider, 2);
  }

  @Test
  void scenario10FileSession() throws Exception {
    List<String> id = List.of("s10");
    DescribeTableResponse table = described(id);
    LanceNamespaceStorageOptionsProvider provider = new LanceNamespaceStorageOptionsProvider(ns, id);
    try (LanceFileSession session =
        LanceFileSession.open(
            table.getLocation() + "/session", table.getStorageOptions(), provider, allocator)) {
      assertFalse(session.contains("s1.lance"));
      assertEquals(List.of(), session.list(""));
      writeFile(session.openWriter("s1.lance", Optional.empty()));
      assertEquals(range(0, 3), readFile(session.openReader("s1.lance")));
      assertTrue(session.contains("s1.lance"));
      assertCalls(1, 1);
      waitForExpiry();
      writeFile(session.openWriter("s2.lance", Optional.empty()));
      assertCalls(1, 2);
      assertEquals(range(0, 3), readFile(session.openReader("s2.lance")));
      assertCalls(1, 2);
    }
  }

  /** Beyond Lance: 32 Java threads reading across an expiry make one describe, no failure. */
  @Test
  void thirtyTwoThreadsAcrossAnExpiryMakeOneDescribe() throws Exception {
    try (Dataset ds = createdAndOpened("threads", 50)) {
      waitForExpiry();
      ExecutorService pool = Executors.newFixedThreadPool(32);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Long>> counts = new ArrayList<>();
      for (int t = 0; t < 32; t++) {
        counts.add(
            pool.submit(
                () -> {
                  start.await();
                  return ds.countRows("id >= 10");
                }));
      }
      start.countDown();
      for (Future<Long> f : counts) {
        assertEquals(40L, f.get(120, TimeUnit.SECONDS));
      }
      pool.shutdown();
      assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
      assertCalls(1, 2);
    }
  }
}
