// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.file;

import dev.lancecpp.AllocatorTest;
import static dev.lancecpp.TestSupport.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.DatasetTestRows;
import dev.lancecpp.NotFoundException;
import dev.lancecpp.util.Range;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Single Lance files: writer, reader (columns, ranges), session; on local disk. */
class FileTest extends AllocatorTest {
  @TempDir Path tmp;

  /** Writes rows [0, 2n) as two batches of n through {@code writer}. */
  void writeTwoBatches(LanceFileWriter writer, int n) throws IOException {
    try (writer) {
      for (int b = 0; b < 2; b++) {
        try (ArrowReader rows = DatasetTestRows.rows(allocator, (long) b * n, n)) {
          assertTrue(rows.loadNextBatch());
          writer.write(rows.getVectorSchemaRoot());
        }
      }
    }
  }

  @Test
  void writeThenReadColumnsAndRanges() throws IOException {
    for (String version : List.of("2.0", "2.1", "2.2")) {
      String path = tmp.resolve("f" + version + ".lance").toString();
      writeTwoBatches(
          LanceFileWriter.open(path, allocator, null, Optional.of(version), Map.of()), 50);
      try (LanceFileReader reader = LanceFileReader.open(path, allocator)) {
        assertEquals(100, reader.numRows());
        assertEquals(version, reader.version());
        assertEquals(List.of("id", "name"), reader.schema().getFields().stream().map(f -> f.getName()).toList());
        assertEquals(range(0, 100), DatasetTestRows.ids(reader.readAll(null, null, 7)));
        List<Long> picked =
            DatasetTestRows.ids(
                reader.readAll(List.of("id"), List.of(Range.of(10, 13), Range.of(95, 100)), 2));
        assertEquals(List.of(10L, 11L, 12L, 95L, 96L, 97L, 98L, 99L), picked);
        assertThrows(IllegalArgumentException.class, () -> reader.readAll(List.of("nope"), null, 10));
        assertThrows(
            IllegalArgumentException.class,
            () -> reader.readAll(null, List.of(Range.of(90, 101)), 10).close());
      }
    }
    assertThrows(
        NotFoundException.class,
        () -> LanceFileReader.open(tmp.resolve("missing.lance").toString(), allocator));
  }

  @Test
  void aWriterThatFailedOrWasNeverWrittenPublishesNothing() throws IOException {
    String path = tmp.resolve("never.lance").toString();
    LanceFileWriter.open(path, allocator, null).close();
    assertFalse(Files.exists(Path.of(path)));
    String bad = tmp.resolve("v.lance").toString();
    try (LanceFileWriter writer =
            LanceFileWriter.open(bad, allocator, null, Optional.of("9.9"), Map.of());
        ArrowReader rows = DatasetTestRows.rows(allocator, 0, 3)) {
      assertTrue(rows.loadNextBatch());
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> writer.write(rows.getVectorSchemaRoot()));
      assertTrue(e.getMessage().contains("9.9"), e.getMessage());
    }
    assertFalse(Files.exists(Path.of(bad)));
  }

  @Test
  void sessionListsWritesAndReads() throws IOException {
    LanceFileSession closedSession = LanceFileSession.open(tmp.toString(), Map.of(), null, allocator);
    closedSession.close();
    assertThrows(IllegalStateException.class, () -> closedSession.list(""));
    try (LanceFileSession session =
        LanceFileSession.open(tmp.toString(), Map.of(), null, allocator)) {
      assertFalse(session.contains("a/one.lance"));
      writeTwoBatches(session.openWriter("a/one.lance", Optional.empty()), 5);
      writeTwoBatches(session.openWriter("b.lance", Optional.of("2.1")), 3);
      assertTrue(session.contains("a/one.lance"));
      assertEquals(List.of("a/one.lance", "b.lance"), session.list(""));
      assertEquals(List.of("a/one.lance"), session.list("a"));
      try (LanceFileReader reader = session.openReader("b.lance")) {
        assertEquals(range(0, 6), DatasetTestRows.ids(reader.readAll(null, null, 100)));
      }
      assertThrows(IllegalArgumentException.class, () -> session.contains("../x"));
      LanceFileReader reader = session.openReader("b.lance");
      reader.close();
      IllegalStateException closed = assertThrows(IllegalStateException.class, reader::numRows);
      assertEquals("LanceFileReader is closed", closed.getMessage());
    }
  }
}
