// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

/**
 * Opens a dataset by URI ({@code Dataset.open().uri(path).build()}) or through a Lance Namespace
 * ({@code Dataset.open().namespaceClient(ns).tableId(List.of("t")).build()}: one {@code
 * describeTable}, then the table's vended credentials refreshed through {@code ns} before they
 * expire).
 */
public final class OpenDatasetBuilder extends DatasetBuilderBase<OpenDatasetBuilder> {
  private ReadOptions readOptions = new ReadOptions.Builder().build();

  OpenDatasetBuilder() {}

  public OpenDatasetBuilder readOptions(ReadOptions readOptions) {
    this.readOptions = readOptions;
    return this;
  }

  /** Opens the dataset. */
  public Dataset build() {
    boolean viaNamespace = viaNamespace("Dataset.open()");
    if (viaNamespace == (uri != null)) {
      throw new IllegalArgumentException(
          "Dataset.open(): give either uri or namespaceClient + tableId");
    }
    if (uri != null && uri.isEmpty()) {
      throw new IllegalArgumentException("Dataset.open(): uri is empty");
    }
    long version = readOptions.getVersion().orElse(-1L);
    return openWith(
        alloc ->
            viaNamespace
                ? Dataset.nativeOpenNamespace(
                    namespace,
                    nativeTableId(),
                    version,
                    readOptions.getStorageOptions(),
                    ignoreNamespaceStorageOptions)
                : Dataset.nativeOpen(
                    uri,
                    version,
                    readOptions.getStorageOptions(),
                    readOptions.getStorageOptionsProvider().orElse(null)));
  }
}
