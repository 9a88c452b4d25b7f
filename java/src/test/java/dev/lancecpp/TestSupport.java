// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.lancecpp.io.CredentialStats;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.namespace.LanceNamespace;

/**
 * What the test classes share beyond the rows (DatasetTestRows, which the Lance Java oracle
 * compiles too and so knows nothing of our Dataset): the environment of the services, and
 * the writes and opens of those rows by URI or through a namespace.
 */
public final class TestSupport {
  private TestSupport() {}

  /** The variable {@code name}, or a failed test (never a skip); {@code hint} says who sets it. */
  public static String requireEnv(String name, String hint) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) {
      fail(name + " is not set: " + hint);
    }
    return value;
  }

  /** start .. end - 1. */
  public static List<Long> range(long start, long end) {
    return LongStream.range(start, end).boxed().toList();
  }

  /** A write of DatasetTestRows.rows(start, n), to be given its target and options. */
  public static WriteDatasetBuilder writeRows(BufferAllocator allocator, long start, int n)
      throws IOException {
    return Dataset.write().allocator(allocator).reader(DatasetTestRows.rows(allocator, start, n));
  }

  /** Writes DatasetTestRows.rows(start, n) to the table {@code id} of {@code ns}. */
  public static Dataset writeTable(
      BufferAllocator allocator,
      LanceNamespace ns,
      List<String> id,
      long start,
      int n,
      WriteParams.WriteMode mode)
      throws IOException {
    return writeRows(allocator, start, n).namespaceClient(ns).tableId(id).mode(mode).execute();
  }

  /** Opens the table {@code id} of {@code ns} (its latest version). */
  public static Dataset openTable(BufferAllocator allocator, LanceNamespace ns, List<String> id) {
    return Dataset.open().allocator(allocator).namespaceClient(ns).tableId(id).build();
  }

  /** Opens {@code uri} with storage options at {@code version} (null: the latest). */
  public static Dataset openAt(
      BufferAllocator allocator, String uri, Map<String, String> options, Long version) {
    ReadOptions.Builder read = new ReadOptions.Builder().setStorageOptions(options);
    if (version != null) {
      read.setVersion(version);
    }
    return Dataset.open().allocator(allocator).uri(uri).readOptions(read.build()).build();
  }

  /**
   * The timed refresh did the work: no request was refused with stale credentials and retried
   * after a forced refresh, and no fetch failed (the counters of every provider whose id
   * contains {@code providerKey}, of which there is at least one).
   */
  public static void expectNoForcedRefresh(String providerKey) {
    int seen = 0;
    for (Map.Entry<String, Map<String, Long>> e : CredentialStats.snapshot().entrySet()) {
      if (!e.getKey().contains(providerKey)) {
        continue;
      }
      seen++;
      assertEquals(0L, e.getValue().get("forced_refreshes"), e.getKey() + " " + e.getValue());
      assertEquals(0L, e.getValue().get("failures"), e.getKey() + " " + e.getValue());
    }
    assertTrue(seen > 0, "no refresh counters for this test's providers");
  }
}
