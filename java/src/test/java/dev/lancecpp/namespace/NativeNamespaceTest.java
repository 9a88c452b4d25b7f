// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import dev.lancecpp.AllocatorTest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.Dataset;
import dev.lancecpp.DatasetTestRows;
import dev.lancecpp.WriteParams;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.errors.TableNotFoundException;
import org.lance.namespace.errors.UnsupportedOperationException;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
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
  static final class Counting implements LanceNamespace {
    final LanceNamespace inner;
    final AtomicInteger describes = new AtomicInteger();
    final AtomicInteger declares = new AtomicInteger();

    Counting(LanceNamespace inner) {
      this.inner = inner;
    }

    @Override
    public void initialize(Map<String, String> properties, BufferAllocator allocator) {}

    @Override
    public String namespaceId() {
      return "Counting(" + inner.namespaceId() + ")";
    }

    @Override
    public DescribeTableResponse describeTable(DescribeTableRequest request) {
      describes.incrementAndGet();
      return inner.describeTable(request);
    }

    @Override
    public DeclareTableResponse declareTable(DeclareTableRequest request) {
      declares.incrementAndGet();
      return inner.declareTable(request);
    }
  }

  @Test
  void tablesWrittenThroughTheWrapperAreListedAndDescribed() throws IOException {
    assertTrue(dir.namespaceId().contains(tmp.toString()), dir.namespaceId());
    Counting counting = new Counting(dir);
    List<String> id = List.of("people");
    try (Dataset ds =
        Dataset.write()
            .allocator(allocator)
            .reader(DatasetTestRows.rows(allocator, 0, 7))
            .namespaceClient(counting)
            .tableId(id)
            .mode(WriteParams.WriteMode.CREATE)
            .execute()) {
      assertEquals(7, ds.countRows());
    }
    assertEquals(1, counting.declares.get());
    assertEquals(0, counting.describes.get());
    try (Dataset ds =
        Dataset.open().allocator(allocator).namespaceClient(counting).tableId(id).build()) {
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
        () -> new Counting(dir).listTables(new ListTablesRequest()));
  }
}
