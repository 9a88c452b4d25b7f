// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.errors.UnsupportedOperationException;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeregisterTableRequest;
import org.lance.namespace.model.DescribeNamespaceRequest;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.NamespaceExistsRequest;
import org.lance.namespace.model.RegisterTableRequest;
import org.lance.namespace.model.TableExistsRequest;
import org.openapitools.jackson.nullable.JsonNullableModule;

/**
 * How the native core calls a Java {@link LanceNamespace}: requests and responses cross as the
 * Lance Namespace spec's JSON (the REST wire format, which the model classes are generated
 * for). Called by the native library only; exceptions propagate to it unchanged (a {@code
 * LanceNamespaceException} keeps its error code).
 */
public final class NamespaceBridge {
  static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JsonNullableModule())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
          .setDefaultPropertyInclusion(
              JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL));

  private NamespaceBridge() {}

  /** {@code namespace.namespaceId()}. */
  public static String namespaceId(Object namespace) {
    return ((LanceNamespace) namespace).namespaceId();
  }

  /**
   * Runs operation {@code op} (the spec's snake_case name, e.g. "describe_table") of {@code
   * namespace} on the request {@code json}; returns the response as JSON ("{}" for operations
   * without one).
   */
  public static String call(Object namespace, String op, String json) throws Exception {
    LanceNamespace ns = (LanceNamespace) namespace;
    switch (op) {
      case "list_namespaces":
        return out(ns.listNamespaces(in(json, ListNamespacesRequest.class)));
      case "describe_namespace":
        return out(ns.describeNamespace(in(json, DescribeNamespaceRequest.class)));
      case "create_namespace":
        return out(ns.createNamespace(in(json, CreateNamespaceRequest.class)));
      case "drop_namespace":
        return out(ns.dropNamespace(in(json, DropNamespaceRequest.class)));
      case "namespace_exists":
        ns.namespaceExists(in(json, NamespaceExistsRequest.class));
        return "{}";
      case "list_tables":
        return out(ns.listTables(in(json, ListTablesRequest.class)));
      case "describe_table":
        return out(ns.describeTable(in(json, DescribeTableRequest.class)));
      case "declare_table":
        return out(ns.declareTable(in(json, DeclareTableRequest.class)));
      case "register_table":
        return out(ns.registerTable(in(json, RegisterTableRequest.class)));
      case "deregister_table":
        return out(ns.deregisterTable(in(json, DeregisterTableRequest.class)));
      case "table_exists":
        ns.tableExists(in(json, TableExistsRequest.class));
        return "{}";
      case "drop_table":
        return out(ns.dropTable(in(json, DropTableRequest.class)));
      default:
        throw new UnsupportedOperationException("Not supported by the Java bridge: " + op);
    }
  }

  static <T> T in(String json, Class<T> type) throws Exception {
    return JSON.readValue(json, type);
  }

  static String out(Object response) throws Exception {
    return response == null ? "{}" : JSON.writeValueAsString(response);
  }
}
