// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.io;

import java.util.List;
import java.util.Map;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;

/**
 * The storage options of table {@code tableId} as {@code namespace} vends them: each fetch is
 * one {@code describeTable(id, vendCredentials=true)}, as Lance's provider of the same name.
 */
public final class LanceNamespaceStorageOptionsProvider implements StorageOptionsProvider {
  private final LanceNamespace namespace;
  private final List<String> tableId;

  public LanceNamespaceStorageOptionsProvider(LanceNamespace namespace, List<String> tableId) {
    if (namespace == null) {
      throw new IllegalArgumentException("namespace must not be null");
    }
    if (tableId == null || tableId.isEmpty()) {
      throw new IllegalArgumentException("tableId must not be empty");
    }
    this.namespace = namespace;
    this.tableId = List.copyOf(tableId);
  }

  @Override
  public Map<String, String> fetchStorageOptions() {
    DescribeTableResponse response =
        namespace.describeTable(new DescribeTableRequest().id(tableId).vendCredentials(true));
    return response.getStorageOptions();
  }

  @Override
  public String providerId() {
    return "LanceNamespaceStorageOptionsProvider { namespace: "
        + namespace.namespaceId()
        + ", table_id: "
        + tableId
        + " }";
  }

  @Override
  public String toString() {
    return providerId();
  }
}
