// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.gcs;

import static dev.lancecpp.TestSupport.openAt;
import static dev.lancecpp.TestSupport.range;
import static dev.lancecpp.TestSupport.writeRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.Dataset;
import dev.lancecpp.DatasetTestRows;
import dev.lancecpp.TestSupport;
import dev.lancecpp.Version;
import dev.lancecpp.WriteParams;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * The Java API on Google Cloud Storage (fake-gcs-server, LANCE_GCS_* of scripts/run_tests.sh;
 * fails without, never skips): a gs:// dataset written, appended and read back (every
 * version) with storage options; a missing dataset is NotFound.
 */
class GcsDatasetTest {
  private static String env(String name) {
    return TestSupport.requireEnv(
        name, "run through make test (scripts/run_tests.sh starts fake-gcs-server)");
  }

  private final Map<String, String> options =
      Map.of("google_base_url", env("LANCE_GCS_ENDPOINT"), "allow_http", "true");
  private final String bucket = env("LANCE_GCS_BUCKET");

  @Test
  void writeAppendAndReadEveryVersionWithStorageOptions() throws IOException {
    String base = "gs://" + bucket + "/java/ds-" + UUID.randomUUID().toString().substring(0, 12);
    String uri = base + ".lance";
    try (BufferAllocator allocator = new RootAllocator()) {
      try (Dataset created = writeRows(allocator, 0, 10).uri(uri)
              .mode(WriteParams.WriteMode.CREATE).storageOptions(options).execute()) {
        assertEquals(1, created.version());
      }
      try (Dataset appended = writeRows(allocator, 10, 5).uri(uri)
              .mode(WriteParams.WriteMode.APPEND).storageOptions(options).execute()) {
        assertEquals(2, appended.version());
      }
      try (Dataset latest = openAt(allocator, uri, options, null)) {
        assertEquals(15, latest.countRows());
        assertEquals(range(0, 15),
            DatasetTestRows.ids(latest.newScan().scanBatches()));
        assertEquals(List.of(1L, 2L),
            latest.listVersions().stream().map(Version::getId).toList());
      }
      try (Dataset first = openAt(allocator, uri, options, 1L)) {
        assertEquals(range(0, 10),
            DatasetTestRows.ids(first.newScan().scanBatches()));
      }
      RuntimeException missing = assertThrows(RuntimeException.class, () -> {
        try (Dataset ds = openAt(allocator, base + "-absent.lance", options, null)) {
          ds.countRows();
        }
      });
      assertTrue(String.valueOf(missing.getMessage()).contains("no manifest"),
          String.valueOf(missing.getMessage()));
    }
  }
}
