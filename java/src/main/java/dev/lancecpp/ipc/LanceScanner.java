// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.ipc;

import dev.lancecpp.Dataset;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A scan of a dataset, as Lance Java's {@code org.lance.ipc.LanceScanner}: batches stream out
 * of the core through the Arrow C stream interface, zero-copy, one fragment after another
 * (memory bounded by the batch size and the read-ahead).
 */
public final class LanceScanner implements AutoCloseable {
  private final Dataset dataset;
  private final ScanOptions options;
  private final BufferAllocator allocator;

  private LanceScanner(Dataset dataset, ScanOptions options, BufferAllocator allocator) {
    this.dataset = dataset;
    this.options = options;
    this.allocator = allocator;
  }

  /** A scanner of {@code dataset}; its batches come from {@code allocator}. */
  public static LanceScanner create(Dataset dataset, ScanOptions options, BufferAllocator allocator) {
    return new LanceScanner(dataset, options, allocator);
  }

  /** Starts the scan; close the reader when done (it stays valid if the dataset is closed). */
  public ArrowReader scanBatches() {
    String[] columns = options.getColumns().map(c -> c.toArray(new String[0])).orElse(null);
    long[] fragments =
        options
            .getFragmentIds()
            .map(l -> l.stream().mapToLong(Integer::longValue).toArray())
            .orElse(null);
    return dataset.importStream(
        allocator,
        (h, stream) ->
            nativeScan(
                h,
                columns,
                options.getFilter().orElse(null),
                options.getLimit().orElse(-1L),
                options.getOffset().orElse(0L),
                options.getBatchSize().orElse(0L),
                options.isWithRowId(),
                fragments,
                stream));
  }

  /** The schema of the batches {@link #scanBatches()} returns. */
  public Schema schema() {
    try (ArrowReader reader = scanBatches()) {
      return reader.getVectorSchemaRoot().getSchema();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Rows the scan returns (its filter, limit and offset applied). */
  public long countRows() {
    if (options.getLimit().isEmpty()
        && options.getOffset().isEmpty()
        && options.getFragmentIds().isEmpty()) {
      return dataset.countRows(options.getFilter().orElse(null));  // from the manifest if it can
    }
    long rows = 0;
    try (ArrowReader reader = scanBatches()) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rows;
  }

  /** Nothing to release: each {@link #scanBatches()} reader owns its stream. */
  @Override
  public void close() {}

  private static native void nativeScan(
      long handle,
      String[] columns,
      String filter,
      long limit,
      long offset,
      long batchSize,
      boolean withRowId,
      long[] fragmentIds,
      long streamAddress);
}
