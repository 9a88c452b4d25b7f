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
const arrow = require("apache-arrow");
const { readIpc, runJobs, connectNamespace: connect, ns, namespaceOps } = require("./common.cjs");

const ops = {
  ...namespaceOps,
  async create_namespace(job) {
    const db = await connect(job);
    await db.createNamespace(job.namespace, { properties: job.properties || {} });
    return null;
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

runJobs(ops);
