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
  FragmentOperation() {}

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
    long handle = commitNative(allocator, path, readVersion.orElse(-1L), storageOptions, provider);
    return new Dataset(handle, allocator, false);
  }

  /** The native commit of this operation; returns the new dataset's handle. */
  abstract long commitNative(
      BufferAllocator allocator,
      String path,
      long readVersion,
      Map<String, String> storageOptions,
      StorageOptionsProvider provider);

  static String[] jsons(List<FragmentMetadata> fragments) {
    List<String> out = new ArrayList<>(fragments.size());
    for (FragmentMetadata f : fragments) {
      out.add(f.toJson());
    }
    return out.toArray(new String[0]);
  }

  /** Adds fragments; needs the version they were planned against. */
  public static final class Append extends FragmentOperation {
    private final List<FragmentMetadata> fragments;

    public Append(List<FragmentMetadata> fragments) {
      this.fragments = List.copyOf(fragments);
    }

    @Override
    long commitNative(
        BufferAllocator allocator,
        String path,
        long readVersion,
        Map<String, String> storageOptions,
        StorageOptionsProvider provider) {
      return Dataset.nativeCommitAppend(
          path, jsons(fragments), readVersion, storageOptions, provider);
    }
  }

  /** Replaces schema and fragments (creates the dataset when it does not exist). */
  public static final class Overwrite extends FragmentOperation {
    private final List<FragmentMetadata> fragments;
    private final Schema schema;

    public Overwrite(List<FragmentMetadata> fragments, Schema schema) {
      this.fragments = List.copyOf(fragments);
      this.schema = schema;
    }

    @Override
    long commitNative(
        BufferAllocator allocator,
        String path,
        long readVersion,
        Map<String, String> storageOptions,
        StorageOptionsProvider provider) {
      try (ArrowSchema exported = ArrowSchema.allocateNew(allocator)) {
        Data.exportSchema(allocator, schema, null, exported);
        return Dataset.nativeCommitOverwrite(
            path, jsons(fragments), exported.memoryAddress(), readVersion, storageOptions,
            provider);
      }
    }
  }
}
