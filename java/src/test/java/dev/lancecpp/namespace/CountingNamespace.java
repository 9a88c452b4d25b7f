// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.errors.TableAlreadyExistsException;
import org.lance.namespace.errors.TableNotFoundException;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeclareTableResponse;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;

/**
 * A user's own LanceNamespace, written against the org.lance.namespace interface only, that
 * counts the describeTable / declareTable calls the core makes (from its own threads) and
 * answers them as a subclass says: {@link #onDirectory} keeps tables as directories under a
 * root, {@link Delegating} asks another namespace. Any other operation is Lance's default
 * (unsupported): the core must not need one.
 */
public abstract class CountingNamespace implements LanceNamespace {
  public final AtomicInteger describes = new AtomicInteger();
  public final AtomicInteger declares = new AtomicInteger();
  /** When set, describeTable throws it (after counting). */
  public volatile RuntimeException failDescribe;
  private final Supplier<String> id;

  /** {@code id}: the namespaceId(), asked for when the core asks. */
  protected CountingNamespace(Supplier<String> id) {
    this.id = id;
  }

  @Override
  public void initialize(Map<String, String> properties, BufferAllocator allocator) {}

  @Override
  public String namespaceId() {
    return id.get();
  }

  @Override
  public final DescribeTableResponse describeTable(DescribeTableRequest request) {
    describes.incrementAndGet();
    if (failDescribe != null) {
      throw failDescribe;
    }
    return describe(request);
  }

  @Override
  public final DeclareTableResponse declareTable(DeclareTableRequest request) {
    declares.incrementAndGet();
    return declare(request);
  }

  protected abstract DescribeTableResponse describe(DescribeTableRequest request);

  protected abstract DeclareTableResponse declare(DeclareTableRequest request);

  /**
   * Tables are directories under {@code root}; storage options carry an expiry an hour ahead,
   * as vended credentials would.
   */
  static CountingNamespace onDirectory(Path root) {
    return new CountingNamespace(() -> "CountingNamespace { root: " + root + " }") {
      final Map<String, String> tables = new ConcurrentHashMap<>();

      Map<String, String> options() {
        Map<String, String> out = new HashMap<>();
        out.put("expires_at_millis", Long.toString(System.currentTimeMillis() + 3_600_000));
        return out;
      }

      @Override
      protected DescribeTableResponse describe(DescribeTableRequest request) {
        String location = tables.get(name(request.getId()));
        if (location == null) {
          throw new TableNotFoundException("Table not found: " + request.getId());
        }
        return new DescribeTableResponse().location(location).storageOptions(options());
      }

      @Override
      protected DeclareTableResponse declare(DeclareTableRequest request) {
        String name = name(request.getId());
        String location = root.resolve(name + ".lance").toString();
        if (tables.putIfAbsent(name, location) != null) {
          throw new TableAlreadyExistsException("Table already exists: " + request.getId());
        }
        return new DeclareTableResponse().location(location).storageOptions(options());
      }
    };
  }

  static String name(List<String> id) {
    return String.join("$", id);
  }

  /**
   * Answers with {@link #inner()}'s responses, their storage options passed through {@link
   * #vend} (which subclasses override to watch or replace them).
   */
  public static class Delegating extends CountingNamespace {
    private final LanceNamespace inner;

    public Delegating(Supplier<String> id, LanceNamespace inner) {
      super(id);
      this.inner = inner;
    }

    /** The namespace asked now. */
    protected LanceNamespace inner() {
      return inner;
    }

    /** The storage options a response carries, from those of the inner namespace's. */
    protected Map<String, String> vend(Map<String, String> options) {
      return options;
    }

    @Override
    protected DescribeTableResponse describe(DescribeTableRequest request) {
      DescribeTableResponse response = inner().describeTable(request);
      return response.storageOptions(vend(response.getStorageOptions()));
    }

    @Override
    protected DeclareTableResponse declare(DeclareTableRequest request) {
      DeclareTableResponse response = inner().declareTable(request);
      return response.storageOptions(vend(response.getStorageOptions()));
    }
  }
}
