// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.fragment;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The data files of pylance's FragmentMetadata JSON ("files": path, fields, column_indices,
 * file_major_version, file_minor_version, file_size_bytes), read into a DataFile class: ours,
 * and Lance Java's in the differential tests' oracle (java/oracle compiles this file too, so
 * both read the layout from one definition). Not part of Lance Java's API.
 */
public final class DataFileJson {
  /** Makes one data file; {@code fileSizeBytes} is null when the writer did not record it. */
  public interface Maker<T> {
    T make(
        String path,
        int[] fields,
        int[] columnIndices,
        int fileMajorVersion,
        int fileMinorVersion,
        Long fileSizeBytes);
  }

  private DataFileJson() {}

  /** The data files of the FragmentMetadata JSON {@code fragment}, in order. */
  public static <T> List<T> read(JsonNode fragment, Maker<T> maker) {
    List<T> out = new ArrayList<>();
    for (JsonNode f : fragment.path("files")) {
      JsonNode size = f.path("file_size_bytes");
      out.add(
          maker.make(
              f.path("path").asText(),
              ints(f.path("fields")),
              ints(f.path("column_indices")),
              f.path("file_major_version").asInt(),
              f.path("file_minor_version").asInt(),
              size.isNumber() ? size.asLong() : null));
    }
    return out;
  }

  private static int[] ints(JsonNode array) {
    int[] out = new int[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asInt();
    }
    return out;
  }
}
