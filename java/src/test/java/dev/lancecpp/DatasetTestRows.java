// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

/** The rows the tests write, as an ArrowReader (an Arrow IPC stream in memory). */
public final class DatasetTestRows {
  private DatasetTestRows() {}

  /** Rows id = start .. start + n - 1, name = "n<id>" (null for multiples of 7). */
  public static ArrowReader rows(BufferAllocator allocator, long start, int n) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(DatasetTest.SCHEMA, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector name = (VarCharVector) root.getVector("name");
      id.allocateNew(n);
      name.allocateNew(n);
      for (int i = 0; i < n; i++) {
        long v = start + i;
        id.set(i, v);
        if (v % 7 == 0) {
          name.setNull(i);
        } else {
          name.setSafe(i, ("n" + v).getBytes(StandardCharsets.UTF_8));
        }
      }
      root.setRowCount(n);
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

}
