// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.errors.UnsupportedOperationException;
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
   * The single-request methods of Lance Java's {@link LanceNamespace}, by the spec's
   * snake_case operation name ("describe_table" for describeTable): the core names operations
   * as its table (include/lance/namespace/operations.def) does, so no list is kept here.
   */
  private static final Map<String, Method> OPERATIONS = operations();

  private static Map<String, Method> operations() {
    Map<String, Method> out = new HashMap<>();
    for (Method m : LanceNamespace.class.getMethods()) {
      if (m.getParameterCount() == 1) {
        out.put(snakeCase(m.getName()), m);
      }
    }
    return out;
  }

  static String snakeCase(String camel) {
    StringBuilder out = new StringBuilder();
    for (char c : camel.toCharArray()) {
      if (Character.isUpperCase(c)) {
        out.append('_').append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * Runs operation {@code op} (the spec's snake_case name, e.g. "describe_table") of {@code
   * namespace} on the request {@code json}; returns the response as JSON ("{}" for operations
   * without one).
   */
  public static String call(Object namespace, String op, String json) throws Exception {
    Method method = OPERATIONS.get(op);
    if (method == null) {
      throw new UnsupportedOperationException("Not supported by the Java bridge: " + op);
    }
    Object response;
    try {
      response = method.invoke(namespace, in(json, method.getParameterTypes()[0]));
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception) {
        throw (Exception) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw e;
    }
    return method.getReturnType() == void.class ? "{}" : out(response);
  }

  static <T> T in(String json, Class<T> type) throws Exception {
    return JSON.readValue(json, type);
  }

  static String out(Object response) throws Exception {
    return response == null ? "{}" : JSON.writeValueAsString(response);
  }
}
