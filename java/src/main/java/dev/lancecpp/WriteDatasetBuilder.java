// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import dev.lancecpp.io.StorageOptionsProvider;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes a dataset from an {@link ArrowReader} or an {@link ArrowArrayStream}, or an empty one
 * from a {@link Schema}: {@code Dataset.write().reader(r).uri(path).mode(APPEND).execute()}.
 * Rows cross to the core through the Arrow C stream interface, zero-copy. Through a namespace
 * ({@code namespaceClient(ns).tableId(id)}), CREATE declares the table (one {@code
 * declareTable}), APPEND and OVERWRITE locate it (one {@code describeTable}).
 */
public final class WriteDatasetBuilder extends DatasetBuilderBase<WriteDatasetBuilder> {
  private ArrowReader reader;
  private ArrowArrayStream stream;
  private Schema schema;
  private WriteParams.WriteMode mode;
  private Integer maxRowsPerFile;
  private Integer maxRowsPerGroup;
  private String dataStorageVersion;
  private Map<String, String> storageOptions = new HashMap<>();
  private StorageOptionsProvider storageOptionsProvider;

  WriteDatasetBuilder() {}

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

  /** Refreshes the credentials of the storage options before they expire. */
  public WriteDatasetBuilder storageOptionsProvider(StorageOptionsProvider provider) {
    this.storageOptionsProvider = provider;
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
    params.getStorageOptionsProvider().ifPresent(p -> this.storageOptionsProvider = p);
    return this;
  }

  /** Writes and commits; returns the dataset at the new version. */
  public Dataset execute() {
    boolean viaNamespace = viaNamespace("Dataset.write()");
    if (viaNamespace == (uri != null && !uri.isEmpty())) {
      throw new IllegalArgumentException(
          "Dataset.write(): give either uri or namespaceClient + tableId");
    }
    int sources = (reader != null ? 1 : 0) + (stream != null ? 1 : 0) + (schema != null ? 1 : 0);
    if (sources != 1) {
      throw new IllegalArgumentException(
          "Dataset.write(): give exactly one of reader, stream or schema (got " + sources + ")");
    }
    return openWith(
        alloc -> {
          if (stream != null) {
            return writeStream(stream);
          }
          ArrowReader source = reader != null ? reader : new EmptyReader(alloc, schema);
          try (ArrowArrayStream exported = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, source, exported);
            return writeStream(exported);
          }
        });
  }

  private long writeStream(ArrowArrayStream s) {
    if (namespace != null) {
      // The namespace's vended credentials are refreshed through it: no provider here.
      return Dataset.nativeWriteNamespace(
          s.memoryAddress(),
          namespace,
          nativeTableId(),
          params(null),
          ignoreNamespaceStorageOptions);
    }
    return Dataset.nativeWrite(s.memoryAddress(), uri, params(storageOptionsProvider));
  }

  private NativeWriteParams params(StorageOptionsProvider provider) {
    return new NativeWriteParams(
        mode, maxRowsPerFile, maxRowsPerGroup, dataStorageVersion, storageOptions, provider);
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
