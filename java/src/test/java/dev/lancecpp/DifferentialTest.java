// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * lance-cpp's Java bindings against real Lance Java 7.0.0 (in its own JVM): datasets each
 * engine writes are read equal by the other, both ways, with appends and deletes by the other
 * engine in between; fragments written by one engine are committed by the other. File formats
 * 2.0 and 2.1 (Lance Java 7's default).
 */
class DifferentialTest extends AllocatorTest {
  static LanceJavaOracleProcess lanceJava;

  @TempDir Path tmp;

  @BeforeAll
  static void startOracle() throws IOException {
    lanceJava = new LanceJavaOracleProcess();
  }

  @AfterAll
  static void stopOracle() throws IOException {
    lanceJava.close();
  }

  /** "row ID NAME" lines, as the oracle prints them, of the rows the tests write. */
  static List<String> expected(long start, long end) {
    List<String> out = new ArrayList<>();
    for (long v = start; v < end; v++) {
      out.add("row " + v + " " + (v % 7 == 0 ? "null" : "n" + v));
    }
    return out;
  }

  static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** Our scan of every row, printed as the oracle prints it. */
  /** Our scan of every row, printed as the oracle prints it. */
  static List<String> ourRows(Dataset ds) throws IOException {
    try (ArrowReader reader = ds.newScan().scanBatches()) {
      return DatasetTestRows.lines(reader);
    }
  }

  Dataset ourWrite(String uri, String version, long start, int n, WriteParams.WriteMode mode)
      throws IOException {
    return TestSupport.writeRows(allocator, start, n)
        .uri(uri)
        .mode(mode)
        .dataStorageVersion(version)
        .maxRowsPerFile(40)
        .execute();
  }

  @ParameterizedTest
  @ValueSource(strings = {"2.0", "2.1"})
  void lanceJavaWritesWeReadAndAppendAndItReadsBack(String version) throws IOException {
    String uri = tmp.resolve("theirs.lance").toString();
    assertEquals("1", lanceJava.one("write", uri, "create", version, "0", "100"));
    try (Dataset ds = Dataset.open(uri, allocator)) {
      assertEquals(version, ds.getLanceFileFormatVersion());
      assertEquals(100, ds.countRows());
      assertEquals(expected(0, 100), ourRows(ds));
    }
    try (Dataset ds = ourWrite(uri, version, 100, 50, WriteParams.WriteMode.APPEND)) {
      assertEquals(2, ds.version());
    }
    assertEquals(concat(expected(0, 100), expected(100, 150)), lanceJava.call("rows", uri));
    assertEquals("3", lanceJava.one("delete", uri, "id < 10"));
    try (Dataset ds = Dataset.open(uri, allocator)) {
      assertEquals(3, ds.version());
      assertEquals(concat(expected(10, 100), expected(100, 150)), ourRows(ds));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"2.0", "2.1"})
  void weWriteLanceJavaReadsAndAppendsAndWeReadBack(String version) throws IOException {
    String uri = tmp.resolve("ours.lance").toString();
    ourWrite(uri, version, 0, 100, WriteParams.WriteMode.CREATE).close();
    assertEquals(expected(0, 100), lanceJava.call("rows", uri));
    assertEquals(version, lanceJava.one("format", uri));
    assertEquals("50", lanceJava.one("count", uri, "id >= 50"));
    assertEquals("2", lanceJava.one("write", uri, "append", version, "100", "30"));
    try (Dataset ds = Dataset.open(uri, allocator)) {
      assertEquals(concat(expected(0, 100), expected(100, 130)), ourRows(ds));
      ds.delete("id % 2 = 0");
    }
    assertEquals("65", lanceJava.one("count", uri));
  }

  @ParameterizedTest
  @ValueSource(strings = {"2.0", "2.1"})
  void fragmentsWrittenByOneEngineAreCommittedByTheOther(String version) throws IOException {
    String uri = tmp.resolve("mixed.lance").toString();
    ourWrite(uri, version, 0, 10, WriteParams.WriteMode.CREATE).close();
    // Lance Java's workers write fragments; we commit them.
    List<FragmentMetadata> theirs = new ArrayList<>();
    for (String json : lanceJava.call("fragments", uri, version, "100", "5")) {
      theirs.add(FragmentMetadata.fromJson(json));
    }
    try (Dataset ds =
        Dataset.commit(allocator, uri, new FragmentOperation.Append(theirs), Optional.of(1L))) {
      assertEquals(2, ds.version());
      assertEquals(concat(expected(0, 10), expected(100, 105)), ourRows(ds));
    }
    // Our workers write fragments; Lance Java commits them.
    List<String> ours = new ArrayList<>();
    WriteParams params = new WriteParams.Builder().withDataStorageVersion(version).build();
    try (ArrowReader rows = DatasetTestRows.rows(allocator, 200, 3);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, rows, stream);
      for (FragmentMetadata f : Fragment.create(uri, stream, params)) {
        ours.add(f.toJson());
      }
    }
    List<String> commit = new ArrayList<>(List.of("commit-append", uri, "2"));
    commit.addAll(ours);
    assertEquals("3", lanceJava.one(commit.toArray(new String[0])));
    List<String> all = concat(concat(expected(0, 10), expected(100, 105)), expected(200, 203));
    assertEquals(all, lanceJava.call("rows", uri));
    try (Dataset ds = Dataset.open(uri, allocator)) {
      assertEquals(all, ourRows(ds));
    }
  }
}
