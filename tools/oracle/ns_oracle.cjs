// SPDX-License-Identifier: Apache-2.0
// Real Lance 8.0.0's directory namespace, through @lancedb/lancedb's
// connectNamespace("dir", ...), as an oracle for tests/interop/test_namespace_node.py
// and test_namespace_s3.py.
//
//   node ns_oracle.cjs JOBS.json RESULTS.json
//
// Every job names its root: {root, manifest: bool, s3: bool, ...}. With `s3`, the root is
// an s3:// URI and the namespace gets the RGW's coordinates from the environment
// (LANCE_S3_*; never written to the jobs file) as `storage.*` properties, which are also
// the connection's storage options. Jobs, run in order in one process:
//   tables      {namespace?: [..]}              table names (tableNames)
//   namespaces  {namespace?: [..]}              child namespace names (listNamespaces)
//   describe_ns {namespace: [..]}               properties (describeNamespace)
//   read        {namespace?: [..], name}        {version, x: [...], s: [...]} sorted by x
//   create      {namespace?: [..], name, x: [...], s: [...], storage_version?: "2.0"}
//               createTable (x: int64, s: utf8); returns the version
//   add         {namespace?: [..], name, x, s}  appends; returns the version
// RESULTS.json receives one {ok: true, value} or {ok: false, error} per job; a failing
// job does not stop the batch. Errors are scrubbed of the secret key.
"use strict";
const lancedb = require("@lancedb/lancedb");
const {
  s3StorageOptions, runJobs, connectNamespace: connect, ns, namespaceOps, rowsTable, sortedRows,
} = require("./common.cjs");
// Real Lance's DirectoryNamespace returns no storage options from describe_table (the
// `storage.*` properties serve only its own I/O), so tables on S3 are opened with the
// options passed again.
function tableStorageOptions(job) {
  return job.s3 ? s3StorageOptions() : {};
}

const ops = {
  ...namespaceOps,
  async read(job) {
    const table = await (await connect(job)).openTable(
      job.name, ns(job), { storageOptions: tableStorageOptions(job) });
    const result = await table.query().toArrow();
    return { version: await table.version(), ...sortedRows(result) };
  },
  async create(job) {
    const db = await connect(job);
    const storageOptions = {
      ...tableStorageOptions(job),
      new_table_data_storage_version: job.storage_version || "2.0",
    };
    const table = await db.createTable(job.name, rowsTable(job), ns(job), { storageOptions });
    return await table.version();
  },
  async add(job) {
    const table = await (await connect(job)).openTable(
      job.name, ns(job), { storageOptions: tableStorageOptions(job) });
    await table.add(rowsTable(job));
    return await table.version();
  },
};

runJobs(ops);
