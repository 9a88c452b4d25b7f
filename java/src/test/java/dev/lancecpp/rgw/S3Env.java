// SPDX-License-Identifier: Apache-2.0
package dev.lancecpp.rgw;

import dev.lancecpp.TestSupport;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/** The LANCE_S3_* environment of the test RGW (scripts/rgw.sh; make test starts one). */
public final class S3Env {
  public final String endpoint;
  public final String region;
  public final String accessKey;
  public final String secretKey;
  public final String bucket;
  public final String rgwConf;

  private S3Env() {
    endpoint = env("LANCE_S3_ENDPOINT");
    region = env("LANCE_S3_REGION");
    accessKey = env("LANCE_S3_ACCESS_KEY");
    secretKey = env("LANCE_S3_SECRET_KEY");
    bucket = env("LANCE_S3_BUCKET");
    rgwConf = env("LANCE_RGW_CONF");
  }

  /** The environment, or a failed test (never a skip) when no RGW is configured. */
  public static S3Env get() {
    return new S3Env();
  }

  private static String env(String name) {
    return TestSupport.requireEnv(
        name, "these tests need a real RGW "
            + "(scripts/rgw.sh start DIR > env.sh; source env.sh)");
  }

  /** Lance storage options for the RGW: the static test keys unless others are given. */
  public Map<String, String> options(String access, String secret) {
    Map<String, String> out = new HashMap<>();
    out.put("aws_access_key_id", access == null ? accessKey : access);
    out.put("aws_secret_access_key", secret == null ? secretKey : secret);
    out.put("aws_endpoint", endpoint);
    out.put("aws_region", region);
    out.put("allow_http", "true");
    return out;
  }

  public Map<String, String> options() {
    return options(null, null);
  }

  public String uniqueUri(String what) {
    return "s3://" + bucket + "/java/" + what + "-" + UUID.randomUUID().toString().substring(0, 12);
  }
}
