// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.lancecpp.AllocatorTest;
import dev.lancecpp.Dataset;
import dev.lancecpp.TestSupport;
import dev.lancecpp.WriteParams;
import java.io.IOException;
import java.util.List;

/**
 * What the credential-refresh scenarios share on every store (RGW, Azurite): the tables of a
 * counting namespace {@link #ns} written and opened through it, and the exact numbers of
 * declare_table / describe_table calls the core made.
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
}
