// SPDX-License-Identifier: Apache-2.0
// Shared by the oracles in this folder (interop_oracle, writematrix, nsmatrix, s3_oracle,
// ns_oracle, rest_oracle): the job loop, Arrow IPC in, JSON out, LanceDB connections (local folders,
// S3 prefixes, directory namespaces), the query a `read` job runs, and the RGW storage
// options from the LANCE_S3_* environment (never from the jobs file, so the secret is not
// written to disk) with scrubbing of that secret from any text.
"use strict";
const fs = require("fs");
const path = require("path");
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

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

function readIpc(file) {
  return arrow.tableFromIPC(fs.readFileSync(file));
}

// JSON has no bigint (Arrow int64 values, LanceDB versions in some builds): as text.
function jsonSafe(value) {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value, (k, v) => (typeof v === "bigint" ? v.toString() : v)));
}

// Runs the jobs of argv[2] through `ops` and writes one {ok: true, value} or
// {ok: false, error} per job to argv[3]; a failing job does not stop the batch.
function runJobs(ops) {
  (async () => {
    const [jobsPath, resultsPath] = process.argv.slice(2);
    const jobs = JSON.parse(fs.readFileSync(jobsPath, "utf8"));
    const results = [];
    for (const job of jobs) {
      try {
        const fn = ops[job.op];
        if (!fn) throw new Error(`unknown op ${job.op}`);
        results.push({ ok: true, value: jsonSafe(await fn(job)) });
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

// One connection per key for the whole batch (LanceDB's start-up costs about a second).
const connections = new Map();

async function cachedConnection(key, make) {
  let db = connections.get(key);
  if (!db) {
    db = await make();
    connections.set(key, db);
  }
  return db;
}

// ".../dir/name.lance" -> the connection to ".../dir" and the table name "name".
async function connectLocal(uri) {
  const dir = path.dirname(uri);
  const name = path.basename(uri).replace(/\.lance$/, "");
  const db = await cachedConnection(dir, () => lancedb.connect(dir));
  return { db, name };
}

// A directory namespace at job.root (manifest layout when job.manifest). With job.s3 the
// root is an s3:// URI and the RGW's coordinates go in as `storage.*` properties and as
// the connection's storage options.
async function connectNamespace(job) {
  const key = `${job.root}\n${!!job.manifest}\n${!!job.s3}`;
  return await cachedConnection(key, () => {
    const extraProperties = {};
    let options = {};
    if (job.s3) {
      const storage = s3StorageOptions();
      for (const [k, v] of Object.entries(storage)) extraProperties[`storage.${k}`] = v;
      options = { storageOptions: storage };
    }
    return lancedb.connectNamespace(
      "dir", { root: job.root, manifestEnabled: !!job.manifest, extraProperties }, options);
  });
}

// The namespace path of a job (the root namespace when absent).
function ns(job) {
  return job.namespace || [];
}

// The listing ops both namespace oracles answer the same way.
const namespaceOps = {
  async tables(job) {
    return await (await connectNamespace(job)).tableNames(ns(job));
  },
  async namespaces(job) {
    return (await (await connectNamespace(job)).listNamespaces(ns(job))).namespaces;
  },
  async describe_ns(job) {
    return (await (await connectNamespace(job)).describeNamespace(ns(job))).properties || {};
  },
};

// Table options for a created table: Lance's file version (2.0 unless the job says) and
// the manifest naming (V2 names when job.v2_names).
function createStorageOptions(job) {
  return {
    new_table_data_storage_version: job.storage_version || "2.0",
    new_table_enable_v2_manifest_paths: job.v2_names ? "true" : "false",
  };
}

// The Arrow table a `read` job asks for: at job.version when given, filtered by
// job.filter, projected to job.columns, with _rowid when job.with_row_id.
async function queryTable(table, job) {
  if (job.version !== undefined && job.version !== null) await table.checkout(job.version);
  let query = table.query();
  if (job.filter) query = query.where(job.filter);
  if (job.columns) query = query.select(job.columns);
  if (job.with_row_id) query = query.withRowId();
  return await query.toArrow();
}

// The (x: int64 not null, s: utf8) table of a namespace oracle's create / add job.
function rowsTable(job) {
  const schema = new arrow.Schema([
    new arrow.Field("x", new arrow.Int64(), false),
    new arrow.Field("s", new arrow.Utf8(), true),
  ]);
  const x = arrow.vectorFromArray(job.x.map((v) => BigInt(v)), new arrow.Int64());
  const s = arrow.vectorFromArray(job.s, new arrow.Utf8());
  return new arrow.Table(schema, { x, s });
}

// The x and s columns of a rowsTable-shaped result, sorted by x (scan order is not fixed).
function sortedRows(result) {
  const x = [], s = [];
  for (let i = 0; i < result.numRows; ++i) {
    x.push(Number(result.getChild("x").get(i)));
    s.push(result.getChild("s").get(i));
  }
  const order = x.map((_, i) => i).sort((a, b) => x[a] - x[b]);
  return { x: order.map((i) => x[i]), s: order.map((i) => s[i]) };
}

function listVersions(versions) {
  return versions.map((v) => ({ version: v.version, metadata: v.metadata }));
}

module.exports = {
  s3StorageOptions,
  scrub,
  readIpc,
  runJobs,
  cachedConnection,
  connectLocal,
  connectNamespace,
  ns,
  namespaceOps,
  createStorageOptions,
  queryTable,
  listVersions,
  rowsTable,
  sortedRows,
};
