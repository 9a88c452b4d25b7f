// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** The rows the tests write, as an ArrowReader (an Arrow IPC stream in memory). */
public final class DatasetTestRows {
  /** id: int64 not null, name: utf8. */
  public static final Schema SCHEMA =
      new Schema(
          List.of(
              new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
              new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));

  private DatasetTestRows() {}

  /** Rows id = start .. start + n - 1, name = "n<id>" (null for multiples of 7). */
  public static ArrowReader rows(BufferAllocator allocator, long start, int n) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
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


  /** The id column of every batch of {@code reader}, which is closed. */
  public static List<Long> ids(ArrowReader reader) throws IOException {
    List<Long> out = new ArrayList<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        BigIntVector id = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < id.getValueCount(); i++) {
          out.add(id.get(i));
        }
      }
    }
    return out;
  }
}
