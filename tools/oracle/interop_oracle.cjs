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
const arrow = require("apache-arrow");
const {
  readIpc, runJobs, connectLocal, createStorageOptions, queryTable, listVersions,
} = require("./common.cjs");

const ops = {
  async create(job) {
    const { db, name } = await connectLocal(job.uri);
    const files = job.ipc;
    const storageOptions = createStorageOptions(job);
    const table = await db.createTable(name, readIpc(files[0]), { storageOptions });
    for (const file of files.slice(1)) await table.add(readIpc(file));
    return await table.version();
  },
  async add(job) {
    const { db, name } = await connectLocal(job.uri);
    const table = await db.openTable(name);
    await table.add(readIpc(job.ipc));
    return await table.version();
  },
  async delete(job) {
    const { db, name } = await connectLocal(job.uri);
    const table = await db.openTable(name);
    await table.delete(job.predicate);
    return await table.version();
  },
  async count(job) {
    const { db, name } = await connectLocal(job.uri);
    const table = await db.openTable(name);
    return await table.countRows(job.filter || undefined);
  },
  async read(job) {
    const { db, name } = await connectLocal(job.uri);
    const table = await db.openTable(name);
    const result = await queryTable(table, job);
    fs.writeFileSync(job.out, arrow.tableToIPC(result, "file"));
    return result.numRows;
  },
  async version(job) {
    const { db, name } = await connectLocal(job.uri);
    return await (await db.openTable(name)).version();
  },
  async versions(job) {
    const { db, name } = await connectLocal(job.uri);
    const list = await (await db.openTable(name)).listVersions();
    return listVersions(list);
  },
  async schema(job) {
    const { db, name } = await connectLocal(job.uri);
    const schema = await (await db.openTable(name)).schema();
    return schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable }));
  },
};

runJobs(ops);
