// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.util;

/** Rows {@code [start, end)}, as Lance Java's {@code org.lance.util.Range}. */
public final class Range {
  private final long start;
  private final long end;

  public Range(long start, long end) {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("bad range [" + start + ", " + end + ")");
    }
    this.start = start;
    this.end = end;
  }

  public static Range of(long start, long end) {
    return new Range(start, end);
  }

  public long getStart() {
    return start;
  }

  public long getEnd() {
    return end;
  }

  @Override
  public String toString() {
    return "[" + start + ", " + end + ")";
  }
}
