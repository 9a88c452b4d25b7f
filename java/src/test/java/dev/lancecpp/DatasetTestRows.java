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

/**
 * The rows the tests write, as an ArrowReader (an Arrow IPC stream in memory), and how they
 * read back. The Lance Java oracle (java/oracle) compiles this class too, so that both sides
 * write and print the same rows: it uses Arrow only.
 */
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

  /**
   * Every row of {@code reader} (left open) as "row ID NAME", NAME "null" for nulls: what the
   * oracle prints for its scans.
   */
  public static List<String> lines(ArrowReader reader) throws IOException {
    List<String> out = new ArrayList<>();
    while (reader.loadNextBatch()) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector name = (VarCharVector) root.getVector("name");
      for (int i = 0; i < root.getRowCount(); i++) {
        String n = name.isNull(i) ? "null" : new String(name.get(i), StandardCharsets.UTF_8);
        out.add("row " + id.get(i) + " " + n);
      }
    }
    return out;
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
