// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.errors.TableAlreadyExistsException;
import org.lance.namespace.errors.TableNotFoundException;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;

/**
 * A user's own LanceNamespace, written against the org.lance.namespace interface only: tables
 * are directories under a root; every call is counted. Storage options carry a marker and an
 * expiry, as vended credentials would.
 */
public class CountingNamespace implements LanceNamespace {
  final Path root;
  final Map<String, String> tables = new ConcurrentHashMap<>();
  final AtomicInteger describes = new AtomicInteger();
  final AtomicInteger declares = new AtomicInteger();
  volatile RuntimeException failDescribe;

  CountingNamespace(Path root) {
    this.root = root;
  }

  @Override
  public void initialize(Map<String, String> properties, BufferAllocator allocator) {}

  @Override
  public String namespaceId() {
    return "CountingNamespace { root: " + root + " }";
  }

  Map<String, String> options() {
    Map<String, String> out = new HashMap<>();
    out.put("expires_at_millis", Long.toString(System.currentTimeMillis() + 3_600_000));
    return out;
  }

  @Override
  public DescribeTableResponse describeTable(DescribeTableRequest request) {
    describes.incrementAndGet();
    if (failDescribe != null) {
      throw failDescribe;
    }
    String location = tables.get(name(request.getId()));
    if (location == null) {
      throw new TableNotFoundException("Table not found: " + request.getId());
    }
    return new DescribeTableResponse().location(location).storageOptions(options());
  }

  @Override
  public DeclareTableResponse declareTable(DeclareTableRequest request) {
    declares.incrementAndGet();
    String name = name(request.getId());
    String location = root.resolve(name + ".lance").toString();
    if (tables.putIfAbsent(name, location) != null) {
      throw new TableAlreadyExistsException("Table already exists: " + request.getId());
    }
    return new DeclareTableResponse().location(location).storageOptions(options());
  }

  static String name(List<String> id) {
    return String.join("$", id);
  }
}
