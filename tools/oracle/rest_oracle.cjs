// SPDX-License-Identifier: Apache-2.0
// Real Lance 8.0.0's REST namespace client, through @lancedb/lancedb's
// connectNamespace("rest", {uri, headers}), as an oracle for
// tests/interop/test_rest_server_interop.py (a `lance-cpp serve` server).
//
//   node rest_oracle.cjs JOBS.json RESULTS.json
//
// Every job names its server: {uri, headers?: {...}, properties?: {...}}. Jobs, run in order in one process:
//   create_ns   {namespace: [..]}               createNamespace
//   namespaces  {namespace?: [..]}              child namespace names (listNamespaces)
//   tables      {namespace?: [..]}              table names (tableNames)
//   create      {namespace?: [..], name, x: [...], s: [...]}  createTable (x: int64,
//               s: utf8); returns the version
//   add         {namespace?: [..], name, x, s}  appends; returns the version
//   read        {namespace?: [..], name, filter?}  {version, count, x, s} sorted by x
//   drop        {namespace?: [..], name}        dropTable
//   drop_ns     {namespace: [..]}               dropNamespace
// RESULTS.json receives one {ok: true, value} or {ok: false, error} per job.
"use strict";
const lancedb = require("@lancedb/lancedb");
const { runJobs, cachedConnection, ns, rowsTable, sortedRows } = require("./common.cjs");

async function connect(job) {
  const headers = job.headers || {};
  // Further client properties, e.g. {"tls.ssl_ca_cert": PATH} for an HTTPS server.
  const properties = job.properties || {};
  const key = `rest\n${job.uri}\n${JSON.stringify(headers)}\n${JSON.stringify(properties)}`;
  return await cachedConnection(key, () =>
    lancedb.connectNamespace("rest", { uri: job.uri, headers, ...properties }));
}

const ops = {
  async create_ns(job) {
    await (await connect(job)).createNamespace(ns(job));
    return true;
  },
  async namespaces(job) {
    return (await (await connect(job)).listNamespaces(ns(job))).namespaces;
  },
  async tables(job) {
    return await (await connect(job)).tableNames(ns(job));
  },
  async create(job) {
    const table = await (await connect(job)).createTable(job.name, rowsTable(job), ns(job), {
      storageOptions: { new_table_data_storage_version: "2.0" },
    });
    return await table.version();
  },
  async add(job) {
    const table = await (await connect(job)).openTable(job.name, ns(job));
    await table.add(rowsTable(job));
    return await table.version();
  },
  async read(job) {
    const table = await (await connect(job)).openTable(job.name, ns(job));
    let query = table.query();
    if (job.filter) query = query.where(job.filter);
    const result = await query.toArrow();
    return {
      version: await table.version(),
      count: await table.countRows(),
      ...sortedRows(result),
    };
  },
  async drop(job) {
    await (await connect(job)).dropTable(job.name, ns(job));
    return true;
  },
  async drop_ns(job) {
    await (await connect(job)).dropNamespace(ns(job));
    return true;
  },
};

runJobs(ops);
