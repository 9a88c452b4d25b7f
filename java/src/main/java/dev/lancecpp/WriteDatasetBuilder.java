// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import dev.lancecpp.io.StorageOptionsProvider;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.namespace.LanceNamespace;

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
  private StorageOptionsProvider storageOptionsProvider;
  private LanceNamespace namespace;
  private List<String> tableId;
  private boolean ignoreNamespaceStorageOptions;

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

  /** Refreshes the credentials of the storage options before they expire. */
  public WriteDatasetBuilder storageOptionsProvider(StorageOptionsProvider provider) {
    this.storageOptionsProvider = provider;
    return this;
  }

  /**
   * Writes the table {@code tableId} of {@code namespace} instead of a URI: CREATE declares it
   * (one {@code declareTable}), APPEND and OVERWRITE locate it (one {@code describeTable}); the
   * table's vended credentials are refreshed through the namespace.
   */
  public WriteDatasetBuilder namespaceClient(LanceNamespace namespace) {
    this.namespace = namespace;
    return this;
  }

  public WriteDatasetBuilder tableId(List<String> tableId) {
    this.tableId = List.copyOf(tableId);
    return this;
  }

  /** Use only {@link #storageOptions}, not the namespace's (no refresh then). */
  public WriteDatasetBuilder ignoreNamespaceStorageOptions(boolean ignore) {
    this.ignoreNamespaceStorageOptions = ignore;
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
    boolean viaNamespace = namespace != null || tableId != null;
    if (viaNamespace && (namespace == null || tableId == null || tableId.isEmpty())) {
      throw new IllegalArgumentException(
          "Dataset.write(): namespaceClient and a non-empty tableId go together");
    }
    if (viaNamespace == (uri != null && !uri.isEmpty())) {
      throw new IllegalArgumentException(
          "Dataset.write(): give either uri or namespaceClient + tableId");
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
    String nativeMode = mode == null ? null : mode.name().toLowerCase(Locale.ROOT);
    int rowsPerFile = maxRowsPerFile == null ? 0 : maxRowsPerFile;
    int rowsPerGroup = maxRowsPerGroup == null ? 0 : maxRowsPerGroup;
    Map<String, String> options = Collections.unmodifiableMap(storageOptions);
    if (namespace != null) {
      return Dataset.nativeWriteNamespace(
          s.memoryAddress(),
          namespace,
          tableId.toArray(new String[0]),
          nativeMode,
          rowsPerFile,
          rowsPerGroup,
          dataStorageVersion,
          options,
          ignoreNamespaceStorageOptions);
    }
    return Dataset.nativeWrite(
        s.memoryAddress(),
        uri,
        nativeMode,
        rowsPerFile,
        rowsPerGroup,
        dataStorageVersion,
        options,
        storageOptionsProvider);
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
