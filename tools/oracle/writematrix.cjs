// SPDX-License-Identifier: Apache-2.0
// Real Lance 8.0.0 (through @lancedb/lancedb 0.31.0) writing and reading the file format
// 2.1 matrix of tests/interop (matrix_gen.py, test_v2x_*.py).
//
//   node writematrix.cjs JOBS.json RESULTS.json
//
// JOBS.json is an array of jobs run in order in one process. Every job names a dataset
// folder `uri` (".../name.lance") and an `op`:
//   create  {ipc: [file, ...], storage_version?}  the first file creates the table, each
//           further file is one more fragment (table.add). Without storage_version the
//           table gets LanceDB's default file version (2.1 in 0.31.0); returns the version
//   delete  {predicate}                          returns the new version
//   read    {out, columns?, filter?, version?}   the rows as an Arrow IPC stream at `out`;
//           returns the number of rows
//   count   {filter?}                            countRows
//   schema  {}                                   [{name, type, nullable}] as JS sees them
// RESULTS.json receives one {ok: true, value} or {ok: false, error} per job; a failing job
// does not stop the batch. Data crosses to Python as Arrow IPC (files in, streams out).
"use strict";
const fs = require("fs");
const arrow = require("apache-arrow");
const { readIpc, runJobs, connectLocal, queryTable } = require("./common.cjs");

async function open(uri) {
  const { db, name } = await connectLocal(uri);
  return await db.openTable(name);
}

const ops = {
  async create(job) {
    const { db, name } = await connectLocal(job.uri);
    const options = {};
    if (job.storage_version) {
      options.storageOptions = { new_table_data_storage_version: job.storage_version };
    }
    const first = readIpc(job.ipc[0]);
    // An empty first file: create from its schema alone.
    const table = first.numRows === 0
      ? await db.createEmptyTable(name, first.schema, options)
      : await db.createTable(name, first, options);
    for (const file of job.ipc.slice(1)) await table.add(readIpc(file));
    return await table.version();
  },
  async delete(job) {
    const table = await open(job.uri);
    await table.delete(job.predicate);
    return await table.version();
  },
  async read(job) {
    const table = await open(job.uri);
    let result = await queryTable(table, job);
    if (result.numRows === 0) {
      // No batches, no schema: send the table's (projected) schema.
      const schema = await table.schema();
      result = new arrow.Table(job.columns ? schema.select(job.columns) : schema);
    }
    // The stream format: unlike the file format, it carries a dictionary that changes from
    // batch to batch (apache-arrow refuses "replacement dictionaries" in files).
    fs.writeFileSync(job.out, arrow.tableToIPC(result, "stream"));
    return result.numRows;
  },
  async count(job) {
    return await (await open(job.uri)).countRows(job.filter || undefined);
  },
  async schema(job) {
    const schema = await (await open(job.uri)).schema();
    return schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable }));
  },
};

runJobs(ops);
