// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.ipc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** What a scan reads, as Lance Java's {@code org.lance.ipc.ScanOptions}. */
public final class ScanOptions {
  private final Optional<List<Integer>> fragmentIds;
  private final Optional<Long> batchSize;
  private final Optional<List<String>> columns;
  private final Optional<String> filter;
  private final Optional<Long> limit;
  private final Optional<Long> offset;
  private final boolean withRowId;

  private ScanOptions(Builder b) {
    this.fragmentIds = b.fragmentIds.map(l -> Collections.unmodifiableList(new ArrayList<>(l)));
    this.batchSize = b.batchSize;
    this.columns = b.columns.map(l -> Collections.unmodifiableList(new ArrayList<>(l)));
    this.filter = b.filter;
    this.limit = b.limit;
    this.offset = b.offset;
    this.withRowId = b.withRowId;
  }

  /** Only these fragments, in this order; all when empty. */
  public Optional<List<Integer>> getFragmentIds() {
    return fragmentIds;
  }

  public Optional<Long> getBatchSize() {
    return batchSize;
  }

  /** Columns in output order ("_rowid" allowed); all when empty. */
  public Optional<List<String>> getColumns() {
    return columns;
  }

  /** A SQL-like predicate, e.g. {@code "id > 10 AND name IS NOT NULL"}. */
  public Optional<String> getFilter() {
    return filter;
  }

  public Optional<Long> getLimit() {
    return limit;
  }

  public Optional<Long> getOffset() {
    return offset;
  }

  /** Appends the {@code _rowid} column. */
  public boolean isWithRowId() {
    return withRowId;
  }

  /** Builds {@link ScanOptions}. */
  public static final class Builder {
    private Optional<List<Integer>> fragmentIds = Optional.empty();
    private Optional<Long> batchSize = Optional.empty();
    private Optional<List<String>> columns = Optional.empty();
    private Optional<String> filter = Optional.empty();
    private Optional<Long> limit = Optional.empty();
    private Optional<Long> offset = Optional.empty();
    private boolean withRowId;

    public Builder fragmentIds(List<Integer> fragmentIds) {
      this.fragmentIds = Optional.of(fragmentIds);
      return this;
    }

    public Builder batchSize(long batchSize) {
      if (batchSize <= 0) {
        throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
      }
      this.batchSize = Optional.of(batchSize);
      return this;
    }

    public Builder columns(List<String> columns) {
      this.columns = Optional.of(columns);
      return this;
    }

    public Builder filter(String filter) {
      this.filter = Optional.of(filter);
      return this;
    }

    public Builder limit(long limit) {
      if (limit < 0) {
        throw new IllegalArgumentException("limit must not be negative, got " + limit);
      }
      this.limit = Optional.of(limit);
      return this;
    }

    public Builder offset(long offset) {
      if (offset < 0) {
        throw new IllegalArgumentException("offset must not be negative, got " + offset);
      }
      this.offset = Optional.of(offset);
      return this;
    }

    public Builder withRowId(boolean withRowId) {
      this.withRowId = withRowId;
      return this;
    }

    public ScanOptions build() {
      return new ScanOptions(this);
    }
  }
}
