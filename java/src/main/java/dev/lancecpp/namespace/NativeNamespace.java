// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import dev.lancecpp.JniLoader;
import dev.lancecpp.NativeHandle;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.CreateNamespaceResponse;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DeregisterTableRequest;
import org.lance.namespace.model.DeregisterTableResponse;
import org.lance.namespace.model.DescribeNamespaceRequest;
import org.lance.namespace.model.DescribeNamespaceResponse;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropNamespaceResponse;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.DropTableResponse;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListNamespacesResponse;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.ListTablesResponse;
import org.lance.namespace.model.NamespaceExistsRequest;
import org.lance.namespace.model.RegisterTableRequest;
import org.lance.namespace.model.RegisterTableResponse;
import org.lance.namespace.model.TableExistsRequest;

/**
 * One of lance-cpp's namespaces as a Java {@link LanceNamespace}: construct, then {@link
 * #initialize} with Lance's properties, as Lance Java's namespaces. Operations the native
 * namespace does not implement throw {@code org.lance.namespace.errors.UnsupportedOperationException};
 * errors are the {@code org.lance.namespace.errors} exception of their kind.
 */
public abstract class NativeNamespace extends NativeHandle implements LanceNamespace {
  static {
    JniLoader.ensureLoaded();
  }

  private final String impl;

  NativeNamespace(String impl) {
    super(0, "the namespace is not initialized or is closed");
    this.impl = impl;
  }

  @Override
  public void initialize(Map<String, String> properties, BufferAllocator allocator) {
    if (!closed()) {
      throw new IllegalStateException(getClass().getSimpleName() + " is already initialized");
    }
    setHandle(nativeConnect(impl, properties));
  }

  @Override
  public String namespaceId() {
    return withHandle(NativeNamespace::nativeNamespaceId);
  }

  @Override
  public ListNamespacesResponse listNamespaces(ListNamespacesRequest request) {
    return call("list_namespaces", request, ListNamespacesResponse.class);
  }

  @Override
  public DescribeNamespaceResponse describeNamespace(DescribeNamespaceRequest request) {
    return call("describe_namespace", request, DescribeNamespaceResponse.class);
  }

  @Override
  public CreateNamespaceResponse createNamespace(CreateNamespaceRequest request) {
    return call("create_namespace", request, CreateNamespaceResponse.class);
  }

  @Override
  public DropNamespaceResponse dropNamespace(DropNamespaceRequest request) {
    return call("drop_namespace", request, DropNamespaceResponse.class);
  }

  @Override
  public void namespaceExists(NamespaceExistsRequest request) {
    call("namespace_exists", request, null);
  }

  @Override
  public ListTablesResponse listTables(ListTablesRequest request) {
    return call("list_tables", request, ListTablesResponse.class);
  }

  @Override
  public DescribeTableResponse describeTable(DescribeTableRequest request) {
    return call("describe_table", request, DescribeTableResponse.class);
  }

  @Override
  public DeclareTableResponse declareTable(DeclareTableRequest request) {
    return call("declare_table", request, DeclareTableResponse.class);
  }

  @Override
  public RegisterTableResponse registerTable(RegisterTableRequest request) {
    return call("register_table", request, RegisterTableResponse.class);
  }

  @Override
  public DeregisterTableResponse deregisterTable(DeregisterTableRequest request) {
    return call("deregister_table", request, DeregisterTableResponse.class);
  }

  @Override
  public void tableExists(TableExistsRequest request) {
    call("table_exists", request, null);
  }

  @Override
  public DropTableResponse dropTable(DropTableRequest request) {
    return call("drop_table", request, DropTableResponse.class);
  }

  private <T> T call(String op, Object request, Class<T> responseType) {
    String json;
    try {
      json = NamespaceBridge.out(request);
    } catch (Exception e) {
      throw new IllegalArgumentException("cannot encode the " + op + " request: " + e, e);
    }
    String response = withHandle(h -> nativeCall(h, op, json));
    if (responseType == null) {
      return null;
    }
    try {
      return NamespaceBridge.in(response, responseType);
    } catch (Exception e) {
      throw new IllegalStateException("cannot decode the " + op + " response: " + e, e);
    }
  }

  private static native long nativeConnect(String impl, Map<String, String> properties);

  private static native String nativeNamespaceId(long handle);

  private static native String nativeCall(long handle, String op, String requestJson);
}
