// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.ipc.LanceScanner;
import dev.lancecpp.ipc.ScanOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dataset through the JNI library on local disk: data, versions, errors and lifetimes. */
class DatasetTest extends AllocatorTest {
  static final Schema SCHEMA = DatasetTestRows.SCHEMA;

  @TempDir Path tmp;

  static ArrowReader rows(BufferAllocator allocator, long start, int n) throws IOException {
    return DatasetTestRows.rows(allocator, start, n);
  }

  static List<Long> ids(ArrowReader reader) throws IOException {
    return DatasetTestRows.ids(reader);
  }

  Dataset write(String uri, long start, int n, WriteParams.WriteMode mode) throws IOException {
    return TestSupport.writeRows(allocator, start, n)
        .uri(uri)
        .mode(mode)
        .maxRowsPerFile(40)
        .execute();
  }

  @Test
  void writeScanDeleteAndVersions() throws IOException {
    String uri = tmp.resolve("ds.lance").toString();
    try (Dataset ds = write(uri, 0, 100, WriteParams.WriteMode.CREATE)) {
      assertEquals(1, ds.version());
      assertEquals(100, ds.countRows());
      assertEquals(50, ds.countRows("id >= 50"));
      assertEquals("2.2", ds.getLanceFileFormatVersion());
      Schema schema = ds.getSchema();
      assertEquals(List.of("id", "name"), fieldNames(schema));
      assertFalse(schema.getFields().get(0).isNullable());

      ScanOptions options =
          new ScanOptions.Builder()
              .columns(List.of("id"))
              .filter("id % 10 = 3")
              .limit(4)
              .offset(1)
              .batchSize(2)
              .build();
      try (LanceScanner scanner = ds.newScan(options)) {
        assertEquals(List.of(13L, 23L, 33L, 43L), ids(scanner.scanBatches()));
        assertEquals(4, scanner.countRows());
        assertEquals(List.of("id"), fieldNames(scanner.schema()));
      }

      ds.delete("id < 10");
      assertEquals(2, ds.version());
      assertEquals(90, ds.countRows());
      assertEquals(List.of(10L, 15L, 99L), ids(ds.take(List.of(0L, 5L, 89L), List.of("id"))));
      assertEquals(2, ds.latestVersion());
      List<Version> versions = ds.listVersions();
      assertEquals(List.of(1L, 2L), versions.stream().map(Version::getId).toList());
      assertEquals("90", versions.get(1).getMetadata().get("total_rows"));
      assertEquals(2, ds.getVersion().getId());
      try (Dataset first = ds.checkoutVersion(1)) {
        assertEquals(100, first.countRows());
      }
    }
    try (Dataset again =
        Dataset.open(allocator, uri, new ReadOptions.Builder().setVersion(1).build())) {
      assertEquals(1, again.version());
      assertEquals(100, again.countRows());
    }
  }

  @Test
  void appendAndOverwrite() throws IOException {
    String uri = tmp.resolve("modes.lance").toString();
    write(uri, 0, 10, WriteParams.WriteMode.CREATE).close();
    try (Dataset ds = write(uri, 10, 5, WriteParams.WriteMode.APPEND)) {
      assertEquals(2, ds.version());
      assertEquals(15, ds.countRows());
    }
    try (Dataset ds = write(uri, 100, 3, WriteParams.WriteMode.OVERWRITE)) {
      assertEquals(3, ds.version());
      assertEquals(List.of(100L, 101L, 102L), ids(ds.newScan().scanBatches()));
    }
  }

  @Test
  void createEmptyFromSchemaAndFormatVersion() {
    String uri = tmp.resolve("empty.lance").toString();
    WriteParams params =
        new WriteParams.Builder()
            .withMode(WriteParams.WriteMode.CREATE)
            .withDataStorageVersion("2.0")
            .build();
    try (Dataset ds = Dataset.create(allocator, uri, SCHEMA, params)) {
      assertEquals(0, ds.countRows());
      assertEquals("2.0", ds.getLanceFileFormatVersion());
      assertEquals(List.of("id", "name"), fieldNames(ds.getSchema()));
    }
  }

  @Test
  void errorsAreTypedAndCarryTheCoresMessage() throws IOException {
    String missing = tmp.resolve("missing.lance").toString();
    NotFoundException nf = assertThrows(NotFoundException.class, () -> Dataset.open(missing));
    assertEquals("NotFound", nf.getKind());
    assertTrue(nf.getMessage().contains("missing.lance"), nf.getMessage());

    String uri = tmp.resolve("errs.lance").toString();
    try (Dataset ds = write(uri, 0, 10, WriteParams.WriteMode.CREATE)) {
      IllegalArgumentException bad =
          assertThrows(IllegalArgumentException.class, () -> ds.countRows("nosuch > 1"));
      assertTrue(bad.getMessage().contains("nosuch"), bad.getMessage());
      assertThrows(IllegalArgumentException.class, () -> ds.take(List.of(10L), null));
      assertThrows(NotFoundException.class, () -> ds.checkoutVersion(9));
      assertThrows(
          IllegalArgumentException.class,
          () -> ds.newScan(new ScanOptions.Builder().columns(List.of("nope")).build()).scanBatches());
    }
    AlreadyExistsException exists =
        assertThrows(
            AlreadyExistsException.class, () -> write(uri, 0, 1, WriteParams.WriteMode.CREATE));
    assertEquals("AlreadyExists", exists.getKind());
    assertThrows(
        IllegalArgumentException.class,
        () -> new WriteParams.Builder().withMaxRowsPerFile(0));
  }

  @Test
  void useAfterCloseIsAnExceptionAndReadersOutliveTheDataset() throws IOException {
    String uri = tmp.resolve("life.lance").toString();
    Dataset ds = write(uri, 0, 100, WriteParams.WriteMode.CREATE);
    ArrowReader reader = ds.newScan(new ScanOptions.Builder().batchSize(10).build()).scanBatches();
    ds.close();
    ds.close();  // idempotent
    assertTrue(ds.closed());
    IllegalStateException closed = assertThrows(IllegalStateException.class, ds::countRows);
    assertEquals("Dataset is closed", closed.getMessage());
    assertThrows(IllegalStateException.class, ds::listVersions);
    assertThrows(IllegalStateException.class, () -> ds.delete("id = 1"));
    // The scan started before close still reads every row.
    // Every row, in order: batches of 10 are slices of the decoded pages, which must cross
    // to Java with their offsets applied.
    List<Long> all = ids(reader);
    assertEquals(java.util.stream.LongStream.range(0, 100).boxed().toList(), all);
  }

  /** Closing while other threads read: each read succeeds or says "closed", never a crash. */
  @Test
  void closeRacingReadersNeverCrashes() throws Exception {
    String uri = tmp.resolve("race.lance").toString();
    write(uri, 0, 200, WriteParams.WriteMode.CREATE).close();
    for (int round = 0; round < 5; round++) {
      Dataset ds = Dataset.open(uri, allocator);
      java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
      java.util.concurrent.atomic.AtomicInteger ok = new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicInteger closedSeen = new java.util.concurrent.atomic.AtomicInteger();
      List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20; i++) {
                    try {
                      assertEquals(100, ds.countRows("id >= 100"));
                      ok.incrementAndGet();
                    } catch (IllegalStateException e) {
                      assertEquals("Dataset is closed", e.getMessage());
                      closedSeen.incrementAndGet();
                    }
                  }
                }));
      }
      Thread.sleep(2);
      ds.close();
      for (java.util.concurrent.Future<?> f : futures) {
        f.get();
      }
      pool.shutdown();
      assertEquals(160, ok.get() + closedSeen.get());
      assertThrows(IllegalStateException.class, ds::countRows);
    }
  }

  @Test
  void datasetsWithTheirOwnAllocatorCloseIt() throws IOException {
    String uri = tmp.resolve("own.lance").toString();
    write(uri, 0, 5, WriteParams.WriteMode.CREATE).close();
    Dataset ds = Dataset.open(uri);
    assertEquals(5, ids(ds.newScan().scanBatches()).size());
    assertEquals(0, ds.allocator().getAllocatedMemory());
    ds.close();
    assertThrows(IllegalStateException.class, () -> ds.allocator().buffer(8));
  }

  static List<String> fieldNames(Schema schema) {
    return schema.getFields().stream().map(Field::getName).toList();
  }
}
