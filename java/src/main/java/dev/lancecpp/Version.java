// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A committed version of a dataset: its number, commit time and the manifest summary Lance
 * keeps in the metadata ({@code total_rows}, {@code total_fragments}, {@code total_data_files},
 * ...).
 */
public final class Version {
  private final long id;
  private final ZonedDateTime dataTime;
  private final SortedMap<String, String> metadata;

  /** As Lance Java's constructor. */
  public Version(long id, ZonedDateTime dataTime, TreeMap<String, String> metadata) {
    this.id = id;
    this.dataTime = dataTime;
    this.metadata = Collections.unmodifiableSortedMap(new TreeMap<>(metadata));
  }

  /** Called by the native library: commit time in milliseconds since the epoch. */
  Version(long id, long timestampMillis, Map<String, String> metadata) {
    this(
        id,
        ZonedDateTime.ofInstant(Instant.ofEpochMilli(timestampMillis), ZoneOffset.UTC),
        new TreeMap<>(metadata));
  }

  public long getId() {
    return id;
  }

  public ZonedDateTime getDataTime() {
    return dataTime;
  }

  public SortedMap<String, String> getMetadata() {
    return metadata;
  }

  @Override
  public String toString() {
    return "Version{id=" + id + ", dataTime=" + dataTime + ", metadata=" + metadata + "}";
  }
}
