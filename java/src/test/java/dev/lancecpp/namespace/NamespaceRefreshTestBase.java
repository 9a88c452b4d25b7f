// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import static dev.lancecpp.TestSupport.range;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lancecpp.AllocatorTest;
import dev.lancecpp.Dataset;
import dev.lancecpp.DatasetTestRows;
import dev.lancecpp.TestSupport;
import dev.lancecpp.WriteParams;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the credential-refresh scenarios share on every store (RGW, Azurite): the tables of a
 * counting namespace {@link #ns} written and opened through it, the exact numbers of
 * declare_table / describe_table calls the core made, and the scenarios both stores run.
 */
public abstract class NamespaceRefreshTestBase<N extends CountingNamespace> extends AllocatorTest {
  protected N ns;

  protected Dataset write(List<String> id, long start, int n, WriteParams.WriteMode mode)
      throws IOException {
    return TestSupport.writeTable(allocator, ns, id, start, n, mode);
  }

  protected Dataset open(List<String> id) {
    return TestSupport.openTable(allocator, ns, id);
  }

  protected void assertCalls(int declares, int describes) {
    assertEquals(declares, ns.declares.get(), "declare_table calls");
    assertEquals(describes, ns.describes.get(), "describe_table calls");
  }

  /**
   * The table {@code name} of rows 0 .. rows - 1, created (one declare) and opened (one
   * describe).
   */
  protected Dataset createdAndOpened(String name, int rows) throws IOException {
    List<String> id = List.of(name);
    write(id, 0, rows, WriteParams.WriteMode.CREATE).close();
    Dataset ds = open(id);
    assertCalls(1, 1);
    return ds;
  }

  /** Waits until every credential vended so far has expired (and is refused). */
  protected abstract void waitForExpiry() throws InterruptedException;

  /**
   * Scenarios 1 and 2, on every store: a table created (one declare) and opened (one
   * describe); reads make no call until every credential vended so far has expired and is
   * refused, then the next reads refresh exactly once and read with the new credentials.
   */
  @Test
  void scenario1OpenAndScenario2Refresh() throws Exception {
    List<String> id = List.of("s1");
    try (Dataset created = write(id, 0, 3, WriteParams.WriteMode.CREATE)) {
      assertEquals(1, created.version());
    }
    assertCalls(1, 0);
    try (Dataset ds = open(id)) {
      assertCalls(1, 1);
      assertEquals(range(0, 3), DatasetTestRows.ids(ds.newScan().scanBatches()));
      assertEquals(1, ds.countRows("id >= 2"));
      for (int i = 0; i < 3; i++) {
        assertEquals(3, ds.countRows("id >= 0"));
      }
      assertCalls(1, 1);
      waitForExpiry();
      assertEquals(3, ds.countRows("id >= 0"));
      assertEquals(range(0, 3), DatasetTestRows.ids(ds.newScan().scanBatches()));
      assertEquals(3, ds.countRows());
      assertCalls(1, 2);
    }
  }

  /** Scenario 3: create (one declare), then append through the namespace (one describe). */
  protected void createThenAppend(List<String> id) throws IOException {
    write(id, 0, 1, WriteParams.WriteMode.CREATE).close();
    try (Dataset ds = write(id, 1, 1, WriteParams.WriteMode.APPEND)) {
      assertEquals(2, ds.version());
      assertEquals(2, ds.countRows());
    }
    assertCalls(1, 1);
  }

  /**
   * Scenario 6, after a create and an append: an overwrite with rows 100 and 101 through the
   * namespace describes once more (two in all).
   */
  protected void overwriteAfterAppend(List<String> id) throws IOException {
    try (Dataset ds = write(id, 100, 2, WriteParams.WriteMode.OVERWRITE)) {
      assertEquals(3, ds.version());
      assertEquals(range(100, 102), DatasetTestRows.ids(ds.newScan().scanBatches()));
    }
    assertCalls(1, 2);
  }
}
