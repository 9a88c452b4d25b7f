// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import static dev.lancecpp.TestSupport.openTable;
import static dev.lancecpp.TestSupport.writeRows;
import static dev.lancecpp.TestSupport.writeTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.AllocatorTest;
import dev.lancecpp.AlreadyExistsException;
import dev.lancecpp.Dataset;
import dev.lancecpp.LanceIOException;
import dev.lancecpp.NotFoundException;
import dev.lancecpp.ReadOptions;
import dev.lancecpp.WriteParams;
import dev.lancecpp.io.StorageOptionsProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A user's Java LanceNamespace as namespaceClient: the core calls back into it. */
class JavaNamespaceTest extends AllocatorTest {
  @TempDir Path tmp;
  CountingNamespace ns;

  @BeforeEach
  void setUp() {
    ns = CountingNamespace.onDirectory(tmp);
  }

  Dataset write(List<String> id, long start, int n, WriteParams.WriteMode mode)
      throws IOException {
    return writeTable(allocator, ns, id, start, n, mode);
  }

  @Test
  void writeOpenAppendMakeLancesNamespaceCalls() throws IOException {
    List<String> id = List.of("t1");
    try (Dataset ds = write(id, 0, 10, WriteParams.WriteMode.CREATE)) {
      assertEquals(10, ds.countRows());
      assertEquals(tmp.resolve("t1.lance").toString(), ds.uri());
    }
    assertEquals(1, ns.declares.get(), "create declares the table once");
    assertEquals(0, ns.describes.get(), "create does not describe");

    try (Dataset ds = openTable(allocator, ns, id)) {
      assertEquals(10, ds.countRows());
      assertEquals(1, ds.version());
    }
    assertEquals(1, ns.describes.get(), "open describes once");

    try (Dataset ds = write(id, 10, 5, WriteParams.WriteMode.APPEND)) {
      assertEquals(15, ds.countRows());
    }
    assertEquals(2, ns.describes.get(), "append describes once");
    assertEquals(1, ns.declares.get());

    // The namespace's own errors keep their kind.
    AlreadyExistsException exists =
        assertThrows(AlreadyExistsException.class, () -> write(id, 0, 1, WriteParams.WriteMode.CREATE));
    assertTrue(exists.getMessage().contains("TableAlreadyExistsException"), exists.getMessage());
  }

  @Test
  void namespaceErrorsReachJavaWithTheirKindAndMessage() {
    NotFoundException missing =
        assertThrows(NotFoundException.class, () -> openTable(allocator, ns, List.of("nope")));
    assertTrue(missing.getMessage().contains("Table not found: [nope]"), missing.getMessage());
    assertTrue(missing.getMessage().contains("describe_table"), missing.getMessage());

    ns.failDescribe = new IllegalStateException("boom from the user's namespace");
    LanceIOException failed =
        assertThrows(LanceIOException.class, () -> openTable(allocator, ns, List.of("nope")));
    assertTrue(
        failed.getMessage().contains("IllegalStateException: boom from the user's namespace"),
        failed.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> Dataset.open().allocator(allocator).namespaceClient(ns).build());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            Dataset.open()
                .allocator(allocator)
                .uri("x")
                .namespaceClient(ns)
                .tableId(List.of("t"))
                .build());
  }

  @Test
  void storageOptionsProviderIsCalledThroughTheCore() throws IOException {
    String uri = tmp.resolve("p.lance").toString();
    writeRows(allocator, 0, 3).uri(uri).execute().close();
    AtomicInteger calls = new AtomicInteger();
    StorageOptionsProvider provider =
        new StorageOptionsProvider() {
          @Override
          public Map<String, String> fetchStorageOptions() {
            calls.incrementAndGet();
            return Map.of(
                "expires_at_millis", Long.toString(System.currentTimeMillis() + 3_600_000));
          }

          @Override
          public String providerId() {
            return "test-provider-" + uri;
          }
        };
    ReadOptions options = new ReadOptions.Builder().setStorageOptionsProvider(provider).build();
    try (Dataset ds = Dataset.open(allocator, uri, options)) {
      assertEquals(3, ds.countRows());
    }
    // Local files need no credentials: the core asks a provider only when a store signs a
    // request with them (S3), so opening and reading here made no call.
    assertEquals(0, calls.get());
  }
}
