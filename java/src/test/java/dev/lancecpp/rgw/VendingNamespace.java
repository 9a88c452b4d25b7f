// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.rgw;

import dev.lancecpp.namespace.CountingNamespace;
import dev.lancecpp.namespace.DirectoryNamespace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;

/**
 * The namespace of the credential-refresh scenarios (docs/credentials.md): a user's Java
 * LanceNamespace wrapping lance-cpp's DirectoryNamespace on an S3 root (which uses the static
 * test keys for its own I/O). Every describeTable / declareTable is counted and answered with a
 * brand-new revocable key: expires_at_millis = now + ttl, refresh_offset_millis = 1000.
 * Any other operation is Lance's default (unsupported): the core must not need one.
 */
public final class VendingNamespace extends CountingNamespace.Delegating implements AutoCloseable {
  private final S3Env s3;
  private final KeyVendor vendor;
  private final String root;
  private final long ttlMillis;
  private final List<String> vended = new ArrayList<>();

  public VendingNamespace(S3Env s3, KeyVendor vendor, String root, long ttlMillis,
      BufferAllocator allocator) {
    super(() -> "VendingNamespace(" + root + ")", new DirectoryNamespace());
    this.s3 = s3;
    this.vendor = vendor;
    this.root = root;
    this.ttlMillis = ttlMillis;
    Map<String, String> props = new HashMap<>();
    props.put("root", root);
    props.put("manifest_enabled", "false");
    props.put("dir_listing_enabled", "true");
    s3.options().forEach((k, v) -> props.put("storage." + k, v));
    inner().initialize(props, allocator);
  }

  /** The access key ids vended so far, in order. */
  public synchronized List<String> vended() {
    return List.copyOf(vended);
  }

  /** Storage options with a fresh key (whatever the directory namespace answered). */
  @Override
  protected Map<String, String> vend(Map<String, String> ignored) {
    KeyVendor.Key key = vendor.vend(ttlMillis);
    synchronized (this) {
      vended.add(key.access());
    }
    Map<String, String> options = s3.options(key.access(), key.secret());
    options.put("expires_at_millis", Long.toString(key.expiresAtMillis()));
    options.put("refresh_offset_millis", "1000");
    return options;
  }

  @Override
  protected DeclareTableResponse declare(DeclareTableRequest request) {
    // The location the directory namespace (manifest disabled) lists and describes once
    // the first commit made the dataset, as the Python and C++ scenario namespaces do.
    String location = root + "/" + String.join("/", request.getId()) + ".lance";
    return new DeclareTableResponse().location(location).storageOptions(vend(null));
  }

  @Override
  public void close() {
    ((DirectoryNamespace) inner()).close();
  }
}
