// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Loads liblance_cpp_jni.so once per class loader, from the first of: the system property
 * {@code lancecpp.native.lib} (a path), the environment variable {@code LANCE_CPP_JNI_LIB}, the
 * copy the jar bundles (extracted to a temporary file), {@code java.library.path}.
 */
public final class JniLoader {
  private static final String RESOURCE = "/dev/lancecpp/native/linux-x86-64/liblance_cpp_jni.so";
  private static volatile boolean loaded;

  private JniLoader() {}

  /** Loads the native library if it is not loaded yet. */
  public static synchronized void ensureLoaded() {
    if (loaded) {
      return;
    }
    String path = System.getProperty("lancecpp.native.lib");
    if (path == null || path.isEmpty()) {
      path = System.getenv("LANCE_CPP_JNI_LIB");
    }
    if (path != null && !path.isEmpty()) {
      System.load(Path.of(path).toAbsolutePath().toString());
    } else if (JniLoader.class.getResource(RESOURCE) != null) {
      System.load(extractBundled().toString());
    } else {
      System.loadLibrary("lance_cpp_jni");
    }
    loaded = true;
  }

  private static Path extractBundled() {
    try (InputStream in = JniLoader.class.getResourceAsStream(RESOURCE)) {
      Path dir = Files.createTempDirectory("lance-cpp-jni");
      Path lib = dir.resolve("liblance_cpp_jni.so");
      Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
      lib.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      return lib;
    } catch (IOException e) {
      throw new UncheckedIOException("extracting the bundled liblance_cpp_jni.so failed", e);
    }
  }
}
