// SPDX-License-Identifier: Apache-2.0
// Real Lance 8.0.0 (through @lancedb/lancedb) on S3, as an oracle for tests/interop/test_s3.py.
//
//   node s3_oracle.cjs JOBS.json RESULTS.json
//
// Like interop_oracle.cjs, but every dataset lives on S3: a job's `uri` is
// "s3://bucket/prefix/name.lance" and LanceDB connects to "s3://bucket/prefix" with
// Lance's storage options. Those come from the environment the tests run in (LANCE_S3_*:
// endpoint, region, key pair; never written to the jobs file), plus a job's own
// `storage_options`, which win. Jobs, run in order in one process:
//   create   {ipc: [file, ...], v2_names: bool, storage_version: "2.0"}  first file
//            creates the table, each further file is added as another fragment
//   add      {ipc: file}
//   delete   {predicate}
//   count    {filter?}
//   read     {out, filter?, columns?, with_row_id?, version?}  writes an Arrow IPC file
//   version  {}
//   versions {}
// RESULTS.json receives one {ok: true, value} or {ok: false, error} per job; a failing
// job does not stop the batch. Errors are scrubbed of the secret key before they are
// written.
"use strict";
const fs = require("fs");
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");
const {
  s3StorageOptions, readIpc, runJobs, cachedConnection, createStorageOptions, queryTable,
  listVersions,
} = require("./common.cjs");

// "s3://bucket/a/b/name.lance" -> {dir: "s3://bucket/a/b", name: "name"}
function splitUri(uri) {
  const m = /^(s3:\/\/[^/]+(?:\/.*)?)\/([^/]+?)(?:\.lance)?\/?$/.exec(uri);
  if (!m) throw new Error(`not an s3:// dataset URI: ${uri}`);
  return { dir: m[1], name: m[2] };
}

async function openDb(job) {
  const { dir, name } = splitUri(job.uri);
  const storageOptions = { ...s3StorageOptions(), ...(job.storage_options || {}) };
  const key = dir + "\n" + JSON.stringify(storageOptions);
  const db = await cachedConnection(key, () => lancedb.connect(dir, { storageOptions }));
  return { db, name };
}

async function openTable(job) {
  const { db, name } = await openDb(job);
  return await db.openTable(name);
}

const ops = {
  async create(job) {
    const { db, name } = await openDb(job);
    // Table-level options are merged with the connection's (credentials stay there).
    const storageOptions = createStorageOptions(job);
    const table = await db.createTable(name, readIpc(job.ipc[0]), { storageOptions });
    for (const file of job.ipc.slice(1)) await table.add(readIpc(file));
    return await table.version();
  },
  async add(job) {
    const table = await openTable(job);
    await table.add(readIpc(job.ipc));
    return await table.version();
  },
  async delete(job) {
    const table = await openTable(job);
    await table.delete(job.predicate);
    return await table.version();
  },
  async count(job) {
    return await (await openTable(job)).countRows(job.filter || undefined);
  },
  async read(job) {
    const table = await openTable(job);
    const result = await queryTable(table, job);
    fs.writeFileSync(job.out, arrow.tableToIPC(result, "file"));
    return result.numRows;
  },
  async version(job) {
    return await (await openTable(job)).version();
  },
  async versions(job) {
    const list = await (await openTable(job)).listVersions();
    return listVersions(list);
  },
};

runJobs(ops);
