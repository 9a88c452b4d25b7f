// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

/**
 * lance-cpp's directory namespace, with Lance Java's properties: {@code root} (required),
 * {@code storage.*} (storage options of the root), {@code manifest_enabled}, {@code
 * dir_listing_enabled}, {@code credential_vendor.*}.
 */
public final class DirectoryNamespace extends NativeNamespace {
  public DirectoryNamespace() {
    super("dir");
  }
}
