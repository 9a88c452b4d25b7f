// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import static dev.lancecpp.TestSupport.openTable;
import static dev.lancecpp.TestSupport.writeTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.AllocatorTest;
import dev.lancecpp.Dataset;
import dev.lancecpp.WriteParams;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.errors.TableNotFoundException;
import org.lance.namespace.errors.UnsupportedOperationException;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;
import org.lance.namespace.model.ListTablesRequest;

/** lance-cpp's DirectoryNamespace as a Java LanceNamespace, alone and wrapped by a user's. */
class NativeNamespaceTest extends AllocatorTest {
  @TempDir Path tmp;
  DirectoryNamespace dir;

  @BeforeEach
  void setUp() {
    dir = new DirectoryNamespace();
    dir.initialize(Map.of("root", tmp.toString()), allocator);
  }

  @AfterEach
  void tearDown() {
    dir.close();
  }

  /** A user's namespace that delegates to another and counts the calls the core makes. */
  static CountingNamespace counting(LanceNamespace inner) {
    return new CountingNamespace.Delegating(() -> "Counting(" + inner.namespaceId() + ")", inner);
  }

  @Test
  void tablesWrittenThroughTheWrapperAreListedAndDescribed() throws IOException {
    assertTrue(dir.namespaceId().contains(tmp.toString()), dir.namespaceId());
    CountingNamespace counting = counting(dir);
    List<String> id = List.of("people");
    try (Dataset ds = writeTable(allocator, counting, id, 0, 7, WriteParams.WriteMode.CREATE)) {
      assertEquals(7, ds.countRows());
    }
    assertEquals(1, counting.declares.get());
    assertEquals(0, counting.describes.get());
    try (Dataset ds = openTable(allocator, counting, id)) {
      assertEquals(7, ds.countRows());
    }
    assertEquals(1, counting.describes.get());

    assertEquals(Set.of("people"), dir.listTables(new ListTablesRequest().id(List.of())).getTables());
    DescribeTableResponse described = dir.describeTable(new DescribeTableRequest().id(id));
    assertTrue(described.getLocation().endsWith("people.lance"), described.getLocation());
  }

  @Test
  void errorsAreTheNamespaceExceptionsOfTheirKind() {
    TableNotFoundException missing =
        assertThrows(
            TableNotFoundException.class,
            () -> dir.describeTable(new DescribeTableRequest().id(List.of("nope"))));
    assertTrue(missing.getMessage().contains("nope"), missing.getMessage());
    DirectoryNamespace fresh = new DirectoryNamespace();
    assertThrows(IllegalStateException.class, fresh::namespaceId);
    assertThrows(
        org.lance.namespace.errors.InvalidInputException.class,
        () -> fresh.initialize(Map.of(), allocator));
    dir.close();
    assertThrows(IllegalStateException.class, dir::namespaceId);
    assertThrows(
        UnsupportedOperationException.class,
        () -> counting(dir).listTables(new ListTablesRequest()));
  }
}
