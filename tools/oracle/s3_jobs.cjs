// SPDX-License-Identifier: Apache-2.0
// Shared by the S3 oracles (s3_oracle.cjs, ns_oracle.cjs): the RGW storage options from the
// LANCE_S3_* environment (never from the jobs file, so the secret is not written to disk),
// scrubbing of the secret from any text, and the job loop (one {ok, value} or {ok, error}
// per job in RESULTS.json; a failing job does not stop the batch).
"use strict";
const fs = require("fs");

function s3StorageOptions() {
  const need = ["LANCE_S3_ENDPOINT", "LANCE_S3_REGION", "LANCE_S3_ACCESS_KEY", "LANCE_S3_SECRET_KEY"];
  const missing = need.filter((k) => !process.env[k]);
  if (missing.length) {
    throw new Error(`missing ${missing.join(", ")}: run through scripts/run_tests.sh (or source the RGW env)`);
  }
  return {
    aws_endpoint: process.env.LANCE_S3_ENDPOINT,
    aws_region: process.env.LANCE_S3_REGION,
    aws_access_key_id: process.env.LANCE_S3_ACCESS_KEY,
    aws_secret_access_key: process.env.LANCE_S3_SECRET_KEY,
    allow_http: "true",
  };
}

function scrub(text) {
  const secret = process.env.LANCE_S3_SECRET_KEY;
  return secret ? text.split(secret).join("<redacted>") : text;
}

// Runs the jobs of argv[2] through `ops` and writes the results to argv[3].
function runJobs(ops, toJson = (v) => v) {
  (async () => {
    const [jobsPath, resultsPath] = process.argv.slice(2);
    const jobs = JSON.parse(fs.readFileSync(jobsPath, "utf8"));
    const results = [];
    for (const job of jobs) {
      try {
        const fn = ops[job.op];
        if (!fn) throw new Error(`unknown op ${job.op}`);
        results.push({ ok: true, value: toJson(await fn(job)) });
      } catch (e) {
        results.push({ ok: false, error: scrub(String((e && e.stack) || e)) });
      }
    }
    fs.writeFileSync(resultsPath, JSON.stringify(results));
  })().catch((e) => {
    console.error(scrub(String((e && e.stack) || e)));
    process.exit(1);
  });
}

module.exports = { s3StorageOptions, scrub, runJobs };
