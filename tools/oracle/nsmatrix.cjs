// SPDX-License-Identifier: Apache-2.0
// Real Lance 8.0.0's directory namespace (@lancedb/lancedb 0.31.0, connectNamespace("dir"))
// with tables of any schema, for tests/interop/test_v2x_namespace.py (file formats 2.1 and
// 2.2 in namespace roots).
//
//   node nsmatrix.cjs JOBS.json RESULTS.json
//
// Every job names its root and layout: {root, manifest: bool, op, ...}. Jobs, run in order
// in one process:
//   create_namespace {namespace: [..], properties?: {..}}
//   namespaces       {namespace?: [..]}         child namespace names
//   tables           {namespace?: [..]}         table names
//   describe_ns      {namespace: [..]}          properties
//   create           {namespace?, name, ipc, storage_version?}  createTable from an Arrow
//                    IPC file (LanceDB's default file version without storage_version);
//                    returns the version
//   add              {namespace?, name, ipc}    appends; returns the version
//   read             {namespace?, name, out}    the table as an Arrow IPC stream at `out`;
//                    returns {version, rows}
// RESULTS.json receives one {ok: true, value} or {ok: false, error} per job; a failing job
// does not stop the batch.
"use strict";
const fs = require("fs");
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const connections = new Map();

async function connect(job) {
  const key = `${job.root}\n${!!job.manifest}`;
  let db = connections.get(key);
  if (!db) {
    db = await lancedb.connectNamespace("dir", { root: job.root, manifestEnabled: !!job.manifest });
    connections.set(key, db);
  }
  return db;
}

function ns(job) {
  return job.namespace || [];
}

function readIpc(file) {
  return arrow.tableFromIPC(fs.readFileSync(file));
}

const ops = {
  async create_namespace(job) {
    const db = await connect(job);
    await db.createNamespace(job.namespace, { properties: job.properties || {} });
    return null;
  },
  async namespaces(job) {
    return (await (await connect(job)).listNamespaces(ns(job))).namespaces;
  },
  async tables(job) {
    return await (await connect(job)).tableNames(ns(job));
  },
  async describe_ns(job) {
    return (await (await connect(job)).describeNamespace(job.namespace)).properties || {};
  },
  async create(job) {
    const db = await connect(job);
    const options = {};
    if (job.storage_version) {
      options.storageOptions = { new_table_data_storage_version: job.storage_version };
    }
    const table = await db.createTable(job.name, readIpc(job.ipc), ns(job), options);
    return await table.version();
  },
  async add(job) {
    const table = await (await connect(job)).openTable(job.name, ns(job));
    await table.add(readIpc(job.ipc));
    return await table.version();
  },
  async read(job) {
    const table = await (await connect(job)).openTable(job.name, ns(job));
    const result = await table.query().toArrow();
    fs.writeFileSync(job.out, arrow.tableToIPC(result, "stream"));
    return { version: await table.version(), rows: result.numRows };
  },
};

(async () => {
  const [jobsPath, resultsPath] = process.argv.slice(2);
  const jobs = JSON.parse(fs.readFileSync(jobsPath, "utf8"));
  const results = [];
  for (const job of jobs) {
    try {
      const fn = ops[job.op];
      if (!fn) throw new Error(`unknown op ${job.op}`);
      const value = await fn(job);
      results.push({ ok: true, value: value === undefined ? null : value });
    } catch (e) {
      results.push({ ok: false, error: String((e && e.stack) || e) });
    }
  }
  fs.writeFileSync(resultsPath, JSON.stringify(results));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
