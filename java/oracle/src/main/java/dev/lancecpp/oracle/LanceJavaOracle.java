// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.oracle;

import dev.lancecpp.DatasetTestRows;
import dev.lancecpp.fragment.DataFileJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.FragmentOperation;
import org.lance.WriteParams;
import org.lance.fragment.DataFile;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Real Lance Java on the command line: one command per run, or {@code serve} (one command per
 * stdin line). Results on stdout, one line each:
 *
 * <pre>
 *   write URI create|append|overwrite VERSION START N   -> "version V"
 *   rows URI                                            -> "row ID NAME" per row (scan order), NAME "null" for nulls
 *   count URI [FILTER]                                  -> "count N"
 *   delete URI PREDICATE                                -> "version V"
 *   fragments URI VERSION START N                       -> one pylance FragmentMetadata JSON per line
 *   commit-append URI READ_VERSION JSON...              -> "version V"
 *   format URI                                          -> "format X.Y"
 * </pre>
 *
 * The rows are the tests' (dev.lancecpp.DatasetTestRows, compiled into this jar too): id
 * int64 not null, name utf8, "n" + id, null for multiples of 7.
 */
public final class LanceJavaOracle {
  static final ObjectMapper JSON = new ObjectMapper();

  private LanceJavaOracle() {}

  public static void main(String[] args) throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      if (args.length == 1 && args[0].equals("serve")) {
        serve(allocator);
      } else {
        run(allocator, args);
      }
    }
  }

  /**
   * One command per stdin line (its arguments separated by tabs), each answered by its output
   * lines, then "error MESSAGE" if it failed, then "done": one JVM (and one extraction of
   * Lance's 180 MB native library) for a whole test class.
   */
  static void serve(BufferAllocator allocator) throws Exception {
    java.io.BufferedReader in =
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      try {
        run(allocator, line.split("\t", -1));
      } catch (Exception e) {
        System.out.println("error " + String.valueOf(e.getMessage()).replace('\n', ' '));
      }
      System.out.println("done");
      System.out.flush();
    }
  }

  static void run(BufferAllocator a, String[] args) throws Exception {
    String uri = args[1];
    switch (args[0]) {
      case "write": {
        WriteParams.WriteMode mode = WriteParams.WriteMode.valueOf(args[2].toUpperCase());
        try (ArrowReader rows = rows(a, Long.parseLong(args[4]), Integer.parseInt(args[5]));
            Dataset ds =
                Dataset.write()
                    .allocator(a)
                    .reader(rows)
                    .uri(uri)
                    .mode(mode)
                    .dataStorageVersion(args[3])
                    .maxRowsPerFile(40)
                    .execute()) {
          System.out.println("version " + ds.version());
        }
        break;
      }
      case "rows": {
        try (Dataset ds = Dataset.open(uri, a);
            LanceScanner scanner = ds.newScan(new ScanOptions.Builder().build());
            ArrowReader reader = scanner.scanBatches()) {
          for (String row : DatasetTestRows.lines(reader)) {
            System.out.println(row);
          }
        }
        break;
      }
      case "count": {
        try (Dataset ds = Dataset.open(uri, a)) {
          System.out.println("count " + (args.length > 2 ? ds.countRows(args[2]) : ds.countRows()));
        }
        break;
      }
      case "format": {
        try (Dataset ds = Dataset.open(uri, a)) {
          System.out.println("format " + ds.getLanceFileFormatVersion());
        }
        break;
      }
      case "delete": {
        try (Dataset ds = Dataset.open(uri, a)) {
          ds.delete(args[2]);
          System.out.println("version " + ds.version());
        }
        break;
      }
      case "fragments": {
        WriteParams params =
            new WriteParams.Builder()
                .withDataStorageVersion(args[2])
                .withMaxRowsPerFile(40)
                .build();
        try (ArrowReader rows = rows(a, Long.parseLong(args[3]), Integer.parseInt(args[4]))) {
          rows.loadNextBatch();
          for (FragmentMetadata f : Fragment.create(uri, a, rows.getVectorSchemaRoot(), params)) {
            System.out.println(toJson(f));
          }
        }
        break;
      }
      case "commit-append": {
        List<FragmentMetadata> fragments = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
          fragments.add(fromJson(args[i]));
        }
        try (Dataset ds =
            Dataset.commit(
                a, uri, new FragmentOperation.Append(fragments), Optional.of(Long.parseLong(args[2])))) {
          System.out.println("version " + ds.version());
        }
        break;
      }
      default:
        throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }

  static ArrowReader rows(BufferAllocator a, long start, int n) throws Exception {
    return DatasetTestRows.rows(a, start, n);
  }

  /** pylance's FragmentMetadata JSON of a fragment without deletions or row ids. */
  static String toJson(FragmentMetadata f) {
    ObjectNode out = JSON.createObjectNode();
    out.put("id", f.getId());
    ArrayNode files = out.putArray("files");
    for (DataFile d : f.getFiles()) {
      ObjectNode file = files.addObject();
      file.put("path", d.getPath());
      ArrayNode fields = file.putArray("fields");
      for (int x : d.getFields()) {
        fields.add(x);
      }
      ArrayNode columns = file.putArray("column_indices");
      for (int x : d.getColumnIndices()) {
        columns.add(x);
      }
      file.put("file_major_version", d.getFileMajorVersion());
      file.put("file_minor_version", d.getFileMinorVersion());
      if (d.getFileSizeBytes() != null) {
        file.put("file_size_bytes", d.getFileSizeBytes());
      }
    }
    out.put("physical_rows", f.getPhysicalRows());
    out.putNull("deletion_file");
    return out.toString();
  }

  static FragmentMetadata fromJson(String json) throws Exception {
    JsonNode node = JSON.readTree(json);
    List<DataFile> files =
        DataFileJson.read(
            node,
            (path, fields, columns, major, minor, size) ->
                new DataFile(path, fields, columns, major, minor, size, null));
    return new FragmentMetadata(
        node.get("id").asInt(), files, node.get("physical_rows").asLong(), null, null);
  }
}
