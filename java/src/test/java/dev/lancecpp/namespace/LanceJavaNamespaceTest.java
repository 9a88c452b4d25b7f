// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import static dev.lancecpp.TestSupport.openTable;
import static dev.lancecpp.TestSupport.writeTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.AllocatorTest;
import dev.lancecpp.Dataset;
import dev.lancecpp.NotFoundException;
import dev.lancecpp.WriteParams;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.namespace.model.ListTablesRequest;

/**
 * Lance Java's own DirectoryNamespace (org.lance:lance-core:7.0.0, its Rust implementation
 * behind Lance's JNI library) as the namespace client of our Dataset, in one JVM with our
 * library.
 */
class LanceJavaNamespaceTest extends AllocatorTest {
  @TempDir Path tmp;
  org.lance.namespace.DirectoryNamespace lanceNs;

  @BeforeEach
  void setUp() {
    lanceNs = new org.lance.namespace.DirectoryNamespace();
    lanceNs.initialize(Map.of("root", tmp.toString()), allocator);
  }

  @AfterEach
  void tearDown() throws Exception {
    lanceNs.close();
  }

  /**
   * Lance Java's RestNamespace client, talking to Lance Java's RestAdapter serving a
   * directory namespace, and our own RestNamespace client of the same server.
   */
  @Test
  void lanceJavasRestNamespaceAndOursReachTheSameServer() throws Exception {
    try (org.lance.namespace.RestAdapter server =
            new org.lance.namespace.RestAdapter(
                "dir", Map.of("root", tmp.resolve("served").toString()), "127.0.0.1", 0);
        org.lance.namespace.RestNamespace lanceRest = new org.lance.namespace.RestNamespace();
        RestNamespace ourRest = new RestNamespace()) {
      server.start();
      String url = "http://127.0.0.1:" + server.getPort();
      lanceRest.initialize(Map.of("uri", url), allocator);
      ourRest.initialize(Map.of("uri", url), allocator);
      List<String> id = List.of("rest_t");
      try (Dataset ds = writeTable(allocator, lanceRest, id, 0, 9, WriteParams.WriteMode.CREATE)) {
        assertEquals(9, ds.countRows());
      }
      try (Dataset ds = openTable(allocator, ourRest, id)) {
        assertEquals(9, ds.countRows());
      }
      assertTrue(
          ourRest.listTables(new ListTablesRequest().id(List.of())).getTables().contains("rest_t"));
    }
  }

  @Test
  void lanceJavasDirectoryNamespaceLocatesOurTables() throws IOException {
    List<String> id = List.of("people");
    try (Dataset ds = writeTable(allocator, lanceNs, id, 0, 12, WriteParams.WriteMode.CREATE)) {
      assertEquals(12, ds.countRows());
    }
    try (Dataset ds = writeTable(allocator, lanceNs, id, 12, 3, WriteParams.WriteMode.APPEND)) {
      assertEquals(15, ds.countRows());
    }
    try (Dataset ds = openTable(allocator, lanceNs, id)) {
      assertEquals(2, ds.version());
      assertEquals(15, ds.countRows());
    }
    assertTrue(
        lanceNs.listTables(new ListTablesRequest().id(List.of())).getTables().contains("people"));
    NotFoundException missing =
        assertThrows(NotFoundException.class, () -> openTable(allocator, lanceNs, List.of("nope")));
    assertTrue(missing.getMessage().contains("TableNotFoundException"), missing.getMessage());
  }
}
