# SPDX-License-Identifier: Apache-2.0
"""Batches of jobs for the LanceDB-node oracles of tools/oracle (interop_oracle.cjs,
ns_oracle.cjs, s3_oracle.cjs, nsmatrix.cjs, writematrix.cjs): one node process per
batch, since LanceDB's start-up dominates. The job loop itself is tools/oracle/common.cjs:
RESULTS.json holds one {ok, value} or {ok, error} per job."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, Dict, List


def require_node(oracle_dir: Path) -> None:
    """Fails the test (never skips) when node or the oracles' node_modules are missing."""
    import pytest

    if shutil.which("node") is None:
        pytest.fail("node not found (scripts/setup.sh installs it)")
    if not (oracle_dir / "node_modules" / "@lancedb" / "lancedb").exists():
        pytest.fail(f"{oracle_dir}/node_modules lacks @lancedb/lancedb (run scripts/setup.sh)")


def stringify_paths(jobs: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The jobs with Path values (also inside an `ipc` list) as strings, for JSON."""
    out = []
    for job in jobs:
        job = {k: (str(v) if isinstance(v, Path) else v) for k, v in job.items()}
        if isinstance(job.get("ipc"), list):
            job["ipc"] = [str(p) for p in job["ipc"]]
        out.append(job)
    return out


def describe_uri_job(job: Dict[str, Any]) -> str:
    return f"{job['op']} {job.get('uri')}"


def describe_ns_job(job: Dict[str, Any]) -> str:
    return f"{job['op']} {job.get('namespace', [])} {job.get('name', '')}"


class NodeJobs:
    """Runs batches of jobs through one oracle script; batch files go to `scratch` as
    <prefix>-jobs-N.json / <prefix>-results-N.json. `scrub` cleans any text that may hold
    a secret before it goes into an assertion message."""

    def __init__(self, script: Path, scratch: Path, prefix: str,
                 describe: Callable[[Dict[str, Any]], str] = describe_uri_job,
                 scrub: Callable[[str], str] = lambda text: text,
                 error_limit: int = 800):
        self.script = Path(script)
        self.scratch = Path(scratch)
        self.prefix = prefix
        self.describe = describe
        self.scrub = scrub
        self.error_limit = error_limit
        self._n = 0

    def run(self, jobs: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        """The raw results ({ok, value} / {ok, error}) of one batch."""
        self.scratch.mkdir(parents=True, exist_ok=True)
        # Numbered after the batches already there, so one-off runners never overwrite.
        self._n = max(self._n, len(list(self.scratch.glob(f"{self.prefix}-jobs-*.json")))) + 1
        jobs_path = self.scratch / f"{self.prefix}-jobs-{self._n}.json"
        results_path = self.scratch / f"{self.prefix}-results-{self._n}.json"
        jobs_path.write_text(json.dumps(stringify_paths(jobs)))
        proc = subprocess.run(["node", str(self.script), str(jobs_path), str(results_path)],
                              cwd=self.script.parent, capture_output=True, text=True,
                              timeout=600)
        if proc.returncode != 0 or not results_path.exists():
            raise AssertionError(f"{self.script.name} failed ({proc.returncode}):\n"
                                 f"{self.scrub(proc.stderr[-3000:])}")
        return json.loads(results_path.read_text())

    def run_ok(self, jobs: List[Dict[str, Any]]) -> List[Any]:
        """Runs the jobs and returns their values; raises naming every failed job."""
        results = self.run(jobs)
        failed = [f"{self.describe(j)}: {self.scrub(r['error'][:self.error_limit])}"
                  for j, r in zip(jobs, results) if not r["ok"]]
        if failed:
            raise AssertionError(f"{self.script.name} jobs failed:\n" + "\n".join(failed))
        return [r["value"] for r in results]
