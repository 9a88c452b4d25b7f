// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.namespace;

/**
 * lance-cpp's REST namespace client, with Lance's properties: {@code uri} (the server),
 * {@code header.*} (extra request headers), timeouts.
 */
public final class RestNamespace extends NativeNamespace {
  public RestNamespace() {
    super("rest");
  }
}
