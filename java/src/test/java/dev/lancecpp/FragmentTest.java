// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Distributed writes: Fragment.create on "workers", one Dataset.commit on the "driver". */
class FragmentTest extends AllocatorTest {
  @TempDir Path tmp;

  List<FragmentMetadata> writeFragments(String uri, long start, int n) throws IOException {
    WriteParams params = new WriteParams.Builder().withMaxRowsPerFile(25).build();
    try (ArrowReader rows = DatasetTest.rows(allocator, start, n);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, rows, stream);
      return Fragment.create(uri, stream, params);
    }
  }

  @Test
  void overwriteThenAppendFragmentsWrittenApart() throws IOException {
    String uri = tmp.resolve("dist.lance").toString();
    List<FragmentMetadata> first = writeFragments(uri, 0, 60);
    assertEquals(3, first.size());  // 25 + 25 + 10 rows
    assertEquals(List.of(25L, 25L, 10L), first.stream().map(FragmentMetadata::getNumRows).toList());
    assertTrue(first.get(0).getFiles().get(0).getPath().endsWith(".lance"));
    assertEquals(2, first.get(0).getFiles().get(0).getFileMajorVersion());

    // Nothing is committed until the driver commits.
    assertThrows(NotFoundException.class, () -> Dataset.open(uri, allocator));
    try (Dataset created =
        Dataset.commit(
            allocator,
            uri,
            new FragmentOperation.Overwrite(first, DatasetTest.SCHEMA),
            Optional.empty())) {
      assertEquals(1, created.version());
      assertEquals(60, created.countRows());
    }

    // Two workers append; the JSON form is what travels to the driver.
    List<FragmentMetadata> gathered = new ArrayList<>();
    for (FragmentMetadata f : writeFragments(uri, 100, 30)) {
      gathered.add(FragmentMetadata.fromJson(f.toJson()));
    }
    gathered.addAll(writeFragments(uri, 200, 5));
    try (Dataset appended =
        Dataset.commit(allocator, uri, new FragmentOperation.Append(gathered), Optional.of(1L))) {
      assertEquals(2, appended.version());
      assertEquals(95, appended.countRows());
      assertEquals(5, appended.countRows("id >= 200"));
    }
  }

  @Test
  void commitErrors() throws IOException {
    String uri = tmp.resolve("errs.lance").toString();
    List<FragmentMetadata> frags = writeFragments(uri, 0, 10);
    // Append without a read version, or to a dataset that does not exist.
    assertThrows(
        IllegalArgumentException.class,
        () -> Dataset.commit(allocator, uri, new FragmentOperation.Append(frags), Optional.empty()));
    assertThrows(
        NotFoundException.class,
        () -> Dataset.commit(allocator, uri, new FragmentOperation.Append(frags), Optional.of(1L)));
    assertThrows(IllegalArgumentException.class, () -> FragmentMetadata.fromJson("{not json"));
    assertThrows(IllegalArgumentException.class, () -> FragmentMetadata.fromJson("[1]"));
  }
}
