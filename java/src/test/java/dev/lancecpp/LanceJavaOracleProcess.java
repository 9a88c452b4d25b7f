// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Real Lance Java (org.lance:lance-core:7.0.0) in a JVM of its own: the oracle program of
 * java/oracle ({@code LanceJavaOracle serve}), one command per line. Its classpath comes from
 * the system property {@code lancecpp.oracle.dir} (the oracle module's build directory, which
 * make build fills). Missing: the test fails, it is never skipped.
 */
final class LanceJavaOracleProcess implements AutoCloseable {
  private final Process process;
  private final Writer in;
  private final BufferedReader out;

  LanceJavaOracleProcess() throws IOException {
    String dir = System.getProperty("lancecpp.oracle.dir");
    if (dir == null || !Files.isRegularFile(Path.of(dir, "classpath.txt"))) {
      fail("the Lance Java oracle is not built (lancecpp.oracle.dir=" + dir + "; make build)");
    }
    String cp =
        Path.of(dir, "lance-java-oracle-0.1.0.jar")
            + ":"
            + Files.readString(Path.of(dir, "classpath.txt")).trim();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    process =
        new ProcessBuilder(
                java,
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-cp",
                cp,
                "dev.lancecpp.oracle.LanceJavaOracle",
                "serve")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Runs one command; its output lines. A failed command fails the test with its message. */
  List<String> call(String... args) throws IOException {
    in.write(String.join("\t", args) + "\n");
    in.flush();
    List<String> lines = new ArrayList<>();
    String line;
    while ((line = out.readLine()) != null && !line.equals("done")) {
      if (line.startsWith("error ")) {
        fail("Lance Java failed on " + args[0] + ": " + line.substring(6));
      }
      lines.add(line);
    }
    if (line == null) {
      fail("the Lance Java oracle exited unexpectedly");
    }
    return lines;
  }

  /** The value of a one-line answer "KEY VALUE". */
  String one(String... args) throws IOException {
    List<String> lines = call(args);
    if (lines.size() != 1) {
      fail("expected one line from " + args[0] + ", got " + lines);
    }
    return lines.get(0).substring(lines.get(0).indexOf(' ') + 1);
  }

  @Override
  public void close() throws IOException {
    in.close();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
