// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.fragment;

import java.io.Serializable;
import java.util.Arrays;

/** One data file of a fragment, as Lance Java's {@code org.lance.fragment.DataFile}. */
public final class DataFile implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String path;
  private final int[] fields;
  private final int[] columnIndices;
  private final int fileMajorVersion;
  private final int fileMinorVersion;
  private final Long fileSizeBytes;

  public DataFile(
      String path,
      int[] fields,
      int[] columnIndices,
      int fileMajorVersion,
      int fileMinorVersion,
      Long fileSizeBytes) {
    this.path = path;
    this.fields = fields.clone();
    this.columnIndices = columnIndices.clone();
    this.fileMajorVersion = fileMajorVersion;
    this.fileMinorVersion = fileMinorVersion;
    this.fileSizeBytes = fileSizeBytes;
  }

  /** The file name under {@code data/}. */
  public String getPath() {
    return path;
  }

  public int[] getFields() {
    return fields.clone();
  }

  public int[] getColumnIndices() {
    return columnIndices.clone();
  }

  public int getFileMajorVersion() {
    return fileMajorVersion;
  }

  public int getFileMinorVersion() {
    return fileMinorVersion;
  }

  /** The size, or null when the writer did not record it. */
  public Long getFileSizeBytes() {
    return fileSizeBytes;
  }

  @Override
  public String toString() {
    return "DataFile{path="
        + path
        + ", fields="
        + Arrays.toString(fields)
        + ", fileVersion="
        + fileMajorVersion
        + "."
        + fileMinorVersion
        + ", fileSizeBytes="
        + fileSizeBytes
        + "}";
  }
}
