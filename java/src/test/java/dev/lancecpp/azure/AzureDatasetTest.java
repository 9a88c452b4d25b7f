// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.azure;

import static dev.lancecpp.TestSupport.openAt;
import static dev.lancecpp.TestSupport.openTable;
import static dev.lancecpp.TestSupport.range;
import static dev.lancecpp.TestSupport.writeRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.lancecpp.Dataset;
import dev.lancecpp.DatasetTestRows;
import dev.lancecpp.SecretLedger;
import dev.lancecpp.TestSupport;
import dev.lancecpp.Version;
import dev.lancecpp.WriteParams;
import dev.lancecpp.namespace.DirectoryNamespace;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;

/**
 * The Java API on Azure Blob Storage (Azurite, LANCE_AZURE_* of scripts/run_tests.sh; fails
 * without, never skips): an az:// dataset written, appended and read back (every version)
 * with storage options, and a DirectoryNamespace on an az:// root vending SAS tokens whose
 * table is written and read through the namespace and, with the bare vended options, at its
 * location -- never the account key.
 */
class AzureDatasetTest {
  private static String env(String name) {
    return TestSupport.requireEnv(
        name, "run through make test (scripts/run_tests.sh starts Azurite)");
  }

  private final String endpoint = env("LANCE_AZURE_ENDPOINT");
  private final String account = env("LANCE_AZURE_ACCOUNT");
  private final String key = env("LANCE_AZURE_KEY");
  private final String container = env("LANCE_AZURE_CONTAINER");

  private Map<String, String> options() {
    Map<String, String> out = new HashMap<>();
    out.put("azure_storage_account_name", account);
    out.put("azure_storage_account_key", key);
    out.put("azure_storage_endpoint", endpoint);
    out.put("allow_http", "true");
    return out;
  }

  private String unique(String what) {
    return "az://" + container + "/java/" + what + "-" + UUID.randomUUID().toString().substring(0, 12);
  }

  @Test
  void writeAppendAndReadEveryVersionWithStorageOptions() throws IOException {
    String uri = unique("ds") + ".lance";
    try (BufferAllocator allocator = new RootAllocator()) {
      try (Dataset created = writeRows(allocator, 0, 10).uri(uri)
              .mode(WriteParams.WriteMode.CREATE).storageOptions(options()).execute()) {
        assertEquals(1, created.version());
      }
      try (Dataset appended = writeRows(allocator, 10, 5).uri(uri)
              .mode(WriteParams.WriteMode.APPEND).storageOptions(options()).execute()) {
        assertEquals(2, appended.version());
      }
      try (Dataset latest = openAt(allocator, uri, options(), null)) {
        assertEquals(2, latest.version());
        assertEquals(15, latest.countRows());
        assertEquals(3, latest.countRows("id >= 12"));
        assertEquals(range(0, 15), DatasetTestRows.ids(latest.newScan().scanBatches()));
        assertEquals(List.of(1L, 2L),
            latest.listVersions().stream().map(Version::getId).toList());
      }
      try (Dataset first = openAt(allocator, uri, options(), 1L)) {
        assertEquals(range(0, 10), DatasetTestRows.ids(first.newScan().scanBatches()));
      }
      // azure:// names the same dataset.
      String azure = uri.replaceFirst("^az://", "azure://");
      try (Dataset same = openAt(allocator, azure, options(), null)) {
        assertEquals(15, same.countRows());
      }
      // A wrong key: refused, and the error shows neither key.
      Map<String, String> bad = options();
      bad.put("azure_storage_account_key", "QmFkS2V5" + key.substring(8));
      bad.put("client_max_retries", "0");
      SecretLedger.record(bad.get("azure_storage_account_key"), "wrong azurite key");
      RuntimeException err = assertThrows(RuntimeException.class, () -> {
        try (Dataset ds = openAt(allocator, uri, bad, null)) {
          ds.countRows();
        }
      });
      String text = String.valueOf(err.getMessage());
      assertFalse(text.contains(key), "the key is in the error");
      assertFalse(text.contains(bad.get("azure_storage_account_key")), "the key is in the error");
    }
  }

  @Test
  void namespaceOnAzureRootVendsSas() throws IOException {
    String root = unique("ns");
    Map<String, String> props = new HashMap<>();
    props.put("root", root);
    options().forEach((k, v) -> props.put("storage." + k, v));
    props.put("credential_vendor.enabled", "true");
    props.put("credential_vendor.permission", "write");
    try (BufferAllocator allocator = new RootAllocator()) {
      DirectoryNamespace ns = new DirectoryNamespace();
      ns.initialize(props, allocator);
      try {
        List<String> id = List.of("events");
        try (Dataset created = writeRows(allocator, 0, 8).namespaceClient(ns).tableId(id)
                .mode(WriteParams.WriteMode.CREATE).execute()) {
          assertEquals(8, created.countRows());
        }
        try (Dataset appended = writeRows(allocator, 8, 4).namespaceClient(ns).tableId(id)
                .mode(WriteParams.WriteMode.APPEND).execute()) {
          assertEquals(2, appended.version());
        }
        DescribeTableResponse described =
            ns.describeTable(new DescribeTableRequest().id(id).vendCredentials(true));
        Map<String, String> vended = described.getStorageOptions();
        String sas = vended.get("azure_storage_sas_token");
        SecretLedger.record(sas, "vended azure sas");
        assertTrue(sas != null && sas.contains("sig="), "no SAS vended");
        assertEquals(account, vended.get("azure_storage_account_name"));
        assertEquals("container:" + container, vended.get("lance_cpp_vended_scope"));
        assertTrue(Long.parseLong(vended.get("expires_at_millis")) > 0);
        assertFalse(vended.toString().contains(key), "the account key was vended");
        assertFalse(vended.containsKey("azure_storage_account_key"));

        try (Dataset opened = openTable(allocator, ns, id)) {
          assertEquals(range(0, 12), DatasetTestRows.ids(opened.newScan().scanBatches()));
        }
        // The bare vended options (no key anywhere) open the table at its location.
        Map<String, String> bare = new HashMap<>(vended);
        bare.remove("expires_at_millis");
        bare.remove("refresh_offset_millis");
        try (Dataset alone = openAt(allocator, described.getLocation(), bare, null)) {
          assertEquals(12, alone.countRows());
          assertEquals(2, alone.countRows("id >= 10"));
        }
      } finally {
        ns.close();
      }
    }
  }
}
