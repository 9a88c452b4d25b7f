// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecpp.fragment.DataFile;
import dev.lancecpp.fragment.DataFileJson;
import java.io.Serializable;
import java.util.Collections;
import java.util.List;

/**
 * A fragment written by {@link Fragment#create} and not yet committed (or one of a dataset), as
 * Lance Java's {@code org.lance.FragmentMetadata}. Its canonical form is pylance's
 * FragmentMetadata JSON ({@link #toJson()}): that is what crosses to the native core, and what
 * a worker sends to the driver that commits (pylance's {@code FragmentMetadata.from_json} reads
 * it too).
 */
public final class FragmentMetadata implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String json;
  private final int id;
  private final long physicalRows;
  private final long numDeletions;
  private final List<DataFile> files;

  private FragmentMetadata(String json, JsonNode node) {
    this.json = json;
    this.id = node.path("id").asInt();
    this.physicalRows = node.path("physical_rows").asLong();
    JsonNode deletion = node.path("deletion_file");
    this.numDeletions = deletion.isObject() ? deletion.path("num_deleted_rows").asLong() : 0;
    this.files = Collections.unmodifiableList(DataFileJson.read(node, DataFile::new));
  }

  /** Parses pylance's FragmentMetadata JSON (what {@link #toJson()} returns). */
  public static FragmentMetadata fromJson(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException("FragmentMetadata JSON must be an object");
      }
      return new FragmentMetadata(json, node);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("malformed FragmentMetadata JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** pylance's FragmentMetadata JSON. */
  public String toJson() {
    return json;
  }

  /** 0 until a commit assigns ids. */
  public int getId() {
    return id;
  }

  public List<DataFile> getFiles() {
    return files;
  }

  /** Rows in the files, deleted ones included. */
  public long getPhysicalRows() {
    return physicalRows;
  }

  public long getNumDeletions() {
    return numDeletions;
  }

  /** Live rows. */
  public long getNumRows() {
    return physicalRows - numDeletions;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FragmentMetadata && ((FragmentMetadata) o).json.equals(json);
  }

  @Override
  public int hashCode() {
    return json.hashCode();
  }

  @Override
  public String toString() {
    return "FragmentMetadata{id=" + id + ", physicalRows=" + physicalRows + ", files=" + files + "}";
  }
}
