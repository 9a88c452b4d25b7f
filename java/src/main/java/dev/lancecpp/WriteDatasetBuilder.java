// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes a dataset from an {@link ArrowReader} or an {@link ArrowArrayStream}, or an empty one
 * from a {@link Schema}: {@code Dataset.write().reader(r).uri(path).mode(APPEND).execute()}.
 * Rows cross to the core through the Arrow C stream interface, zero-copy.
 */
public final class WriteDatasetBuilder {
  private BufferAllocator allocator;
  private ArrowReader reader;
  private ArrowArrayStream stream;
  private Schema schema;
  private String uri;
  private WriteParams.WriteMode mode;
  private Integer maxRowsPerFile;
  private Integer maxRowsPerGroup;
  private String dataStorageVersion;
  private Map<String, String> storageOptions = new HashMap<>();

  WriteDatasetBuilder() {}

  public WriteDatasetBuilder allocator(BufferAllocator allocator) {
    this.allocator = allocator;
    return this;
  }

  /** The rows to write; the reader is consumed and closed. */
  public WriteDatasetBuilder reader(ArrowReader reader) {
    this.reader = reader;
    return this;
  }

  /** The rows to write, as a C stream the core takes over. */
  public WriteDatasetBuilder stream(ArrowArrayStream stream) {
    this.stream = stream;
    return this;
  }

  /** With neither reader nor stream: the schema of an empty dataset to create. */
  public WriteDatasetBuilder schema(Schema schema) {
    this.schema = schema;
    return this;
  }

  public WriteDatasetBuilder uri(String uri) {
    this.uri = uri;
    return this;
  }

  public WriteDatasetBuilder mode(WriteParams.WriteMode mode) {
    this.mode = mode;
    return this;
  }

  public WriteDatasetBuilder maxRowsPerFile(int maxRowsPerFile) {
    this.maxRowsPerFile = maxRowsPerFile;
    return this;
  }

  public WriteDatasetBuilder maxRowsPerGroup(int maxRowsPerGroup) {
    this.maxRowsPerGroup = maxRowsPerGroup;
    return this;
  }

  /** "2.0", "2.1", "2.2" or "stable"; default 2.2 (as pylance 14). */
  public WriteDatasetBuilder dataStorageVersion(String dataStorageVersion) {
    this.dataStorageVersion = dataStorageVersion;
    return this;
  }

  /** Object store options (Lance's keys). */
  public WriteDatasetBuilder storageOptions(Map<String, String> storageOptions) {
    this.storageOptions = new HashMap<>(storageOptions);
    return this;
  }

  /** Takes every value {@code params} sets. */
  public WriteDatasetBuilder writeParams(WriteParams params) {
    params.mode().ifPresent(m -> this.mode = m);
    params.getMaxRowsPerFile().ifPresent(v -> this.maxRowsPerFile = v);
    params.getMaxRowsPerGroup().ifPresent(v -> this.maxRowsPerGroup = v);
    params.getDataStorageVersion().ifPresent(v -> this.dataStorageVersion = v);
    if (!params.getStorageOptions().isEmpty()) {
      this.storageOptions = new HashMap<>(params.getStorageOptions());
    }
    return this;
  }

  /** Writes and commits; returns the dataset at the new version. */
  public Dataset execute() {
    if (uri == null || uri.isEmpty()) {
      throw new IllegalArgumentException("Dataset.write(): uri is required");
    }
    int sources = (reader != null ? 1 : 0) + (stream != null ? 1 : 0) + (schema != null ? 1 : 0);
    if (sources != 1) {
      throw new IllegalArgumentException(
          "Dataset.write(): give exactly one of reader, stream or schema (got " + sources + ")");
    }
    boolean owns = allocator == null;
    BufferAllocator alloc = owns ? new RootAllocator(Long.MAX_VALUE) : allocator;
    try {
      long handle;
      if (stream != null) {
        handle = writeStream(stream);
      } else {
        ArrowReader source = reader != null ? reader : new EmptyReader(alloc, schema);
        try (ArrowArrayStream exported = ArrowArrayStream.allocateNew(alloc)) {
          Data.exportArrayStream(alloc, source, exported);
          handle = writeStream(exported);
        }
      }
      return new Dataset(handle, alloc, owns);
    } catch (RuntimeException e) {
      if (owns) {
        alloc.close();
      }
      throw e;
    }
  }

  private long writeStream(ArrowArrayStream s) {
    return Dataset.nativeWrite(
        s.memoryAddress(),
        uri,
        mode == null ? null : mode.name().toLowerCase(java.util.Locale.ROOT),
        maxRowsPerFile == null ? 0 : maxRowsPerFile,
        maxRowsPerGroup == null ? 0 : maxRowsPerGroup,
        dataStorageVersion,
        Collections.unmodifiableMap(storageOptions));
  }

  /** A reader of no batches with a schema: what an empty dataset is written from. */
  private static final class EmptyReader extends ArrowReader {
    private final Schema schema;

    EmptyReader(BufferAllocator allocator, Schema schema) {
      super(allocator);
      this.schema = schema;
    }

    @Override
    public boolean loadNextBatch() {
      return false;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      return schema;
    }
  }
}
