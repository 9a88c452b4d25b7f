// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import dev.lancecpp.io.StorageOptionsProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What {@link Dataset#commit} commits, as Lance Java's {@code org.lance.FragmentOperation}:
 * {@link Append} new fragments, or {@link Overwrite} the dataset with fragments and a schema.
 */
public abstract class FragmentOperation {
  private final List<FragmentMetadata> fragments;
  /** The Overwrite's schema; null for an Append. */
  private final Schema schema;

  FragmentOperation(List<FragmentMetadata> fragments, Schema schema) {
    this.fragments = List.copyOf(fragments);
    this.schema = schema;
  }

  /** Commits this operation to {@code path}, planned against {@code readVersion}. */
  public Dataset commit(
      BufferAllocator allocator,
      String path,
      Optional<Long> readVersion,
      Map<String, String> storageOptions) {
    return commit(allocator, path, readVersion, storageOptions, null);
  }

  /** As above, the credentials of {@code storageOptions} refreshed by {@code provider}. */
  public final Dataset commit(
      BufferAllocator allocator,
      String path,
      Optional<Long> readVersion,
      Map<String, String> storageOptions,
      StorageOptionsProvider provider) {
    List<String> jsons = new ArrayList<>(fragments.size());
    for (FragmentMetadata f : fragments) {
      jsons.add(f.toJson());
    }
    try (ArrowSchema exported = ArrowSchema.allocateNew(allocator)) {
      if (schema != null) {
        Data.exportSchema(allocator, schema, null, exported);
      }
      long handle =
          Dataset.nativeCommit(
              path,
              jsons.toArray(new String[0]),
              schema == null ? 0 : exported.memoryAddress(),
              readVersion.orElse(-1L),
              storageOptions,
              provider);
      return new Dataset(handle, allocator, false);
    }
  }

  /** Adds fragments; needs the version they were planned against. */
  public static final class Append extends FragmentOperation {
    public Append(List<FragmentMetadata> fragments) {
      super(fragments, null);
    }
  }

  /** Replaces schema and fragments (creates the dataset when it does not exist). */
  public static final class Overwrite extends FragmentOperation {
    public Overwrite(List<FragmentMetadata> fragments, Schema schema) {
      super(fragments, schema);
    }
  }
}
