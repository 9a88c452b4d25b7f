// SPDX-License-Identifier: Apache-2.0
// Real Lance 8.0.0 (through @lancedb/lancedb) as an oracle for tests/interop.
//
//   node interop_oracle.cjs JOBS.json RESULTS.json
//
// JOBS.json is an array of jobs, run in order in one process (LanceDB's start-up costs
// about a second, so the tests batch their checks). Every job names a dataset folder
// `uri` (".../name.lance") and an `op`:
//   create   {ipc: [file, ...], v2_names: bool, storage_version: "2.0"}  first file
//            creates the table, each further file is added as another fragment
//   add      {ipc: file}
//   delete   {predicate}
//   count    {filter?}
//   read     {out, filter?, columns?, with_row_id?, version?}  writes an Arrow IPC file
//   version  {}
//   versions {}
//   schema   {}   the table's schema as [{name, type, nullable}]
// RESULTS.json receives one {ok: true, value} or {ok: false, error} per job; a failing
// job does not stop the batch. Data crosses to Python as Arrow IPC files.
"use strict";
const fs = require("fs");
const path = require("path");
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const connections = new Map();

async function openTable(uri) {
  const dir = path.dirname(uri);
  const name = path.basename(uri).replace(/\.lance$/, "");
  let db = connections.get(dir);
  if (!db) {
    db = await lancedb.connect(dir);
    connections.set(dir, db);
  }
  return { db, name };
}

function readIpc(file) {
  return arrow.tableFromIPC(fs.readFileSync(file));
}

function jsonSafe(value) {
  return JSON.parse(JSON.stringify(value, (k, v) => (typeof v === "bigint" ? v.toString() : v)));
}

const ops = {
  async create(job) {
    const { db, name } = await openTable(job.uri);
    const files = job.ipc;
    const storageOptions = {
      new_table_data_storage_version: job.storage_version || "2.0",
      new_table_enable_v2_manifest_paths: job.v2_names ? "true" : "false",
    };
    const table = await db.createTable(name, readIpc(files[0]), { storageOptions });
    for (const file of files.slice(1)) await table.add(readIpc(file));
    return await table.version();
  },
  async add(job) {
    const { db, name } = await openTable(job.uri);
    const table = await db.openTable(name);
    await table.add(readIpc(job.ipc));
    return await table.version();
  },
  async delete(job) {
    const { db, name } = await openTable(job.uri);
    const table = await db.openTable(name);
    await table.delete(job.predicate);
    return await table.version();
  },
  async count(job) {
    const { db, name } = await openTable(job.uri);
    const table = await db.openTable(name);
    return await table.countRows(job.filter || undefined);
  },
  async read(job) {
    const { db, name } = await openTable(job.uri);
    const table = await db.openTable(name);
    if (job.version !== undefined && job.version !== null) await table.checkout(job.version);
    let query = table.query();
    if (job.filter) query = query.where(job.filter);
    if (job.columns) query = query.select(job.columns);
    if (job.with_row_id) query = query.withRowId();
    const result = await query.toArrow();
    fs.writeFileSync(job.out, arrow.tableToIPC(result, "file"));
    return result.numRows;
  },
  async version(job) {
    const { db, name } = await openTable(job.uri);
    return await (await db.openTable(name)).version();
  },
  async versions(job) {
    const { db, name } = await openTable(job.uri);
    const list = await (await db.openTable(name)).listVersions();
    return list.map((v) => ({ version: v.version, metadata: v.metadata }));
  },
  async schema(job) {
    const { db, name } = await openTable(job.uri);
    const schema = await (await db.openTable(name)).schema();
    return schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable }));
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
      results.push({ ok: true, value: jsonSafe(await fn(job)) });
    } catch (e) {
      results.push({ ok: false, error: String((e && e.stack) || e) });
    }
  }
  fs.writeFileSync(resultsPath, JSON.stringify(results));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
