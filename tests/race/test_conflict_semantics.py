# SPDX-License-Identifier: Apache-2.0
"""Differential checks of commit-conflict semantics against pylance: the same two
writers on one version, in the same order, with lance-cpp (the build's lance_cpp
package) and with pylance; both engines must give the same outcome (version, rows,
config) or the same kind of conflict. (Fragment ids of an Overwrite differ on purpose:
lance-cpp numbers them 0.. as Lance's build_manifest, pylance 14 above the high-water
mark; both keep max_fragment_id as the mark.) Mixed-engine races too (one engine
commits first, the other second)."""
import shutil
from pathlib import Path
from typing import Any, Callable, List, Tuple

import lance
import lance_cpp
import pyarrow as pa
import pytest

ENGINES = {"cpp": lance_cpp, "py": lance}
SCHEMA = pa.schema([pa.field("id", pa.int64())])


def rows(a: int, b: int) -> pa.Table:
    return pa.table({"id": pa.array(range(a, b), pa.int64())}, schema=SCHEMA)


def conflict_kind(engine: str, exc: BaseException) -> str:
    text = str(exc)
    if engine == "cpp":
        assert getattr(exc, "code", "") == "Conflict", text
        return "retryable" if exc.retryable else "incompatible"
    if "Retryable commit conflict" in text:
        return "retryable"
    assert "Incompatible transaction" in text or "Commit conflict" in text, text
    return "incompatible"


def outcome(ds: Any) -> Tuple[int, List[int], int]:
    return (ds.version, sorted(ds.to_table()["id"].to_pylist()),
            len(ds.get_fragments()))


def fresh(tmp_path: Path, name: str) -> str:
    uri = str(tmp_path / f"{name}.lance")
    shutil.rmtree(uri, ignore_errors=True)
    lance.write_dataset(rows(0, 10), uri, max_rows_per_file=5)  # v1: fragments 0, 1
    return uri


def late_overwrite(eng: Any, uri: str, read_version: int = 1) -> Any:
    frags = eng.fragment.write_fragments(rows(500, 503), uri)
    return eng.LanceDataset.commit(uri, eng.LanceOperation.Overwrite(SCHEMA, frags),
                                   read_version=read_version)


# What commits first (at version 2), by the first engine.
FIRST: List[Tuple[str, Callable[[Any, str], None]]] = [
    ("append", lambda eng, uri: eng.write_dataset(rows(100, 102), uri, mode="append")),
    ("two-appends", lambda eng, uri: [eng.write_dataset(rows(100 + i, 101 + i), uri,
                                                        mode="append") for i in (0, 5)]),
    ("delete", lambda eng, uri: eng.dataset(uri).delete("id < 3")),
    ("delete-fragment", lambda eng, uri: eng.dataset(uri).delete("id < 5")),
]


@pytest.mark.parametrize("first", [name for name, _ in FIRST])
@pytest.mark.parametrize("engines", ["cpp/cpp", "py/py", "py/cpp", "cpp/py"])
def test_late_overwrite_wins_like_pylance(tmp_path: Path, first: str, engines: str) -> None:
    """Two writers read version 1; the other commits first, then the Overwrite planned on
    version 1 commits on top and wins: same version, rows, fragments as pylance alone."""
    act = dict(FIRST)[first]
    ref_uri = fresh(tmp_path, "ref")
    act(lance, ref_uri)
    expected = outcome(late_overwrite(lance, ref_uri))
    first_engine, second_engine = engines.split("/")
    uri = fresh(tmp_path, "got")
    act(ENGINES[first_engine], uri)
    got = late_overwrite(ENGINES[second_engine], uri)
    assert outcome(got) == expected
    # Both engines read the result the same way.
    assert outcome(lance.dataset(uri)) == expected
    assert outcome(lance_cpp.dataset(uri)) == expected
    assert type(lance.dataset(uri).read_transaction(expected[0]).operation).__name__ == \
        "Overwrite"


@pytest.mark.parametrize("engine", ["cpp", "py"])
def test_overwrite_keeps_the_latest_config(tmp_path: Path, engine: str) -> None:
    uri = fresh(tmp_path, "cfg")
    lance.dataset(uri).update_config({"race.key": "1"})
    late_overwrite(ENGINES[engine], uri)
    assert lance.dataset(uri).config() == {"race.key": "1"}
    assert outcome(lance_cpp.dataset(uri))[:2] == (3, [500, 501, 502])


@pytest.mark.parametrize("engines", ["cpp/cpp", "py/py", "py/cpp", "cpp/py"])
def test_losers_get_the_conflict_pylance_reports(tmp_path: Path, engines: str) -> None:
    """Overwrite after Overwrite: retryable; Append or Delete after Overwrite:
    incompatible; nothing is committed by the loser."""
    first_engine, second_engine = engines.split("/")
    eng1, eng2 = ENGINES[first_engine], ENGINES[second_engine]
    cases = {
        "overwrite": ("retryable", lambda uri: late_overwrite(eng2, uri)),
        "append": ("incompatible", lambda uri: eng2.LanceDataset.commit(
            uri, eng2.LanceOperation.Append(eng2.fragment.write_fragments(rows(100, 102),
                                                                          uri)),
            read_version=1)),
    }
    for name, (kind, commit) in cases.items():
        uri = fresh(tmp_path, f"lose-{name}")
        eng1.write_dataset(rows(200, 202), uri, mode="overwrite")
        with pytest.raises(Exception) as info:
            commit(uri)
        assert conflict_kind(second_engine, info.value) == kind, str(info.value)
        assert outcome(lance.dataset(uri))[:2] == (2, [200, 201])
    # A Delete planned on version 1 (the object still at 1) loses to the Overwrite too.
    uri = fresh(tmp_path, "lose-delete")
    stale = eng2.dataset(uri)
    eng1.write_dataset(rows(200, 202), uri, mode="overwrite")
    with pytest.raises(Exception) as info:
        stale.delete("id < 3")
    assert conflict_kind(second_engine, info.value) == "incompatible", str(info.value)
    assert outcome(lance.dataset(uri))[:2] == (2, [200, 201])


@pytest.mark.parametrize("engine", ["cpp", "py"])
def test_delete_replans_over_a_delete_of_the_same_fragment(tmp_path: Path,
                                                          engine: str) -> None:
    uri = fresh(tmp_path, "dd")
    stale = ENGINES[engine].dataset(uri)
    lance.dataset(uri).delete("id = 1")
    stale.delete("id = 2")
    assert outcome(lance.dataset(uri))[:2] == (3, [0, 3, 4, 5, 6, 7, 8, 9])


# Operations only pylance commits here; the late Overwrite of either engine wins over each.
PYLANCE_FIRST: List[Tuple[str, Callable[[str], None]]] = [
    ("restore", lambda uri: lance.dataset(uri).checkout_version(1).restore()),
    ("compaction", lambda uri: lance.dataset(uri).optimize.compact_files()),
    ("update", lambda uri: lance.dataset(uri).update({"id": "id + 1000"}, "id < 3")),
    ("add_columns", lambda uri: lance.dataset(uri).add_columns({"y": "id * 2"})),
    ("drop_columns", lambda uri: [lance.dataset(uri).add_columns({"y": "id * 2"}),
                                  lance.dataset(uri).drop_columns(["y"])]),
]


@pytest.mark.parametrize("first", [name for name, _ in PYLANCE_FIRST])
@pytest.mark.parametrize("engine", ["cpp", "py"])
def test_late_overwrite_wins_over_maintenance_like_pylance(tmp_path: Path, first: str,
                                                           engine: str) -> None:
    act = dict(PYLANCE_FIRST)[first]
    results = []
    for who in ("py", engine):
        uri = fresh(tmp_path, f"{first}-{who}")
        lance.write_dataset(rows(10, 20), uri, mode="append", max_rows_per_file=5)  # v2
        act(uri)
        results.append(outcome(late_overwrite(ENGINES[who], uri, read_version=2)))
        assert outcome(lance.dataset(uri)) == results[-1]
    assert results[1] == results[0]
    assert results[0][1] == [500, 501, 502]
