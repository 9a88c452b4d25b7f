// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Distributed writes, as Lance Java's {@code org.lance.Fragment.create}: workers write fragments
 * (data files only, nothing committed), one driver commits them all with {@link
 * Dataset#commit}.
 */
public final class Fragment {
  static {
    JniLoader.ensureLoaded();
  }

  private Fragment() {}

  /** Writes the rows of {@code root} as new fragments of the dataset at {@code datasetUri}. */
  public static List<FragmentMetadata> create(
      String datasetUri, BufferAllocator allocator, VectorSchemaRoot root, WriteParams params) {
    try (ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
      Data.exportVectorSchemaRoot(allocator, root, null, array, schema);
      return write(0, array.memoryAddress(), schema.memoryAddress(), datasetUri, params);
    }
  }

  /** Writes the rows of {@code stream} (taken over) as new fragments. */
  public static List<FragmentMetadata> create(
      String datasetUri, ArrowArrayStream stream, WriteParams params) {
    return write(stream.memoryAddress(), 0, 0, datasetUri, params);
  }

  private static List<FragmentMetadata> write(
      long stream, long array, long schema, String uri, WriteParams params) {
    if (uri == null || uri.isEmpty()) {
      throw new IllegalArgumentException("Fragment.create(): datasetUri is required");
    }
    String[] jsons =
        nativeWriteFragments(
            stream,
            array,
            schema,
            uri,
            // Unset: append, as pylance's write_fragments and Lance Java's Fragment.create.
            NativeWriteParams.of(params, WriteParams.WriteMode.APPEND));
    List<FragmentMetadata> out = new ArrayList<>(jsons.length);
    for (String json : jsons) {
      out.add(FragmentMetadata.fromJson(json));
    }
    return out;
  }

  private static native String[] nativeWriteFragments(
      long streamAddress,
      long arrayAddress,
      long schemaAddress,
      String uri,
      NativeWriteParams params);
}
