# SPDX-License-Identifier: Apache-2.0
"""Exception mapping: lance_cpp raises classes that are subclasses of LanceError *and* of
the builtin exception pylance raises for the same failure, so code written against pylance
keeps catching them. Each case runs against both implementations."""

import os
import uuid

import pyarrow as pa
import pytest

S3_VARS = ("LANCE_S3_ENDPOINT", "LANCE_S3_REGION", "LANCE_S3_ACCESS_KEY",
           "LANCE_S3_SECRET_KEY", "LANCE_S3_BUCKET")


def test_hierarchy(lance_cpp):
    expected = {
        "LanceNotFoundError": (FileNotFoundError, ValueError, OSError),
        "LanceAlreadyExistsError": (FileExistsError, OSError),
        "LancePermissionError": (PermissionError, OSError),
        "LanceInvalidInputError": (ValueError,),
        "LanceNotImplementedError": (NotImplementedError,),
        "LanceIOError": (OSError,),
    }
    assert issubclass(lance_cpp.LanceError, Exception)
    for name, bases in expected.items():
        cls = getattr(lance_cpp, name)
        assert issubclass(cls, lance_cpp.LanceError), name
        for base in bases:
            assert issubclass(cls, base), (name, base)
    assert not issubclass(lance_cpp.LanceInvalidInputError, OSError)


def test_missing_dataset(impl, tmp_path):
    with pytest.raises(ValueError) as info:  # pylance: ValueError
        impl.mod.dataset(str(tmp_path / "nope.lance"))
    if impl.name == "lance_cpp":
        assert isinstance(info.value, FileNotFoundError)
        assert isinstance(info.value, impl.mod.LanceError)
        assert "nope.lance" in str(info.value)


def test_missing_version(impl, tmp_path):
    uri = str(tmp_path / "t.lance")
    ds = impl.write({"a": [1]}, uri)
    with pytest.raises(ValueError):  # pylance: ValueError when opening
        impl.mod.dataset(uri, version=99)
    with pytest.raises(OSError):  # pylance: OSError when checking out
        ds.checkout_version(99)


def test_create_twice(impl, tmp_path):
    uri = str(tmp_path / "t.lance")
    impl.write({"a": [1]}, uri)
    with pytest.raises(OSError) as info:  # pylance: OSError ("Dataset already exists")
        impl.write({"a": [2]}, uri)
    if impl.name == "lance_cpp":
        assert isinstance(info.value, FileExistsError)
        assert isinstance(info.value, impl.mod.LanceError)
    assert impl.mod.dataset(uri).count_rows() == 1


@pytest.mark.parametrize("bad", [42, 3.5, object()])
def test_unknown_data(impl, tmp_path, bad):
    with pytest.raises(TypeError, match="Unknown data type"):
        impl.write(bad, str(tmp_path / "t.lance"))


def test_invalid_inputs_are_value_errors(impl, tmp_path):
    uri = str(tmp_path / "t.lance")
    ds = impl.write({"a": [1, 2]}, uri)
    with pytest.raises(ValueError):
        ds.to_table(columns=["nope"])
    with pytest.raises(ValueError):
        ds.to_table(filter="a >>> 1")
    with pytest.raises(ValueError):
        impl.write({"a": [3]}, uri, mode="bogus")
    with pytest.raises(ValueError):
        impl.write([], str(tmp_path / "empty.lance"))
    with pytest.raises(ValueError):
        impl.mod.LanceDataset.commit(uri, impl.mod.LanceOperation.Append([]))
    with pytest.raises(TypeError):
        impl.mod.write_dataset({"a": [1]}, uri, mode="append", no_such_argument=1)


def test_schema_mismatch_on_append(impl, tmp_path):
    # pylance raises OSError here; lance_cpp's mapping makes invalid input a ValueError
    # (the mapping), so code catching pylance's OSError must also catch
    # ValueError. Both refuse the append and leave the dataset unchanged.
    uri = str(tmp_path / "t.lance")
    impl.write({"a": [1]}, uri)
    expected = OSError if impl.name == "pylance" else ValueError
    with pytest.raises(expected):
        impl.write({"b": ["x"]}, uri, mode="append")
    with pytest.raises(expected):
        impl.write({"a": ["x"]}, uri, mode="append")
    assert impl.mod.dataset(uri).count_rows() == 1


def test_bad_filter_column(impl, tmp_path):
    ds = impl.write({"a": [1, 2]}, str(tmp_path / "t.lance"))
    # pylance: OSError for count_rows/delete; lance_cpp: ValueError (invalid input).
    expected = OSError if impl.name == "pylance" else ValueError
    with pytest.raises(expected):
        ds.count_rows("nope = 1")
    with pytest.raises(expected):
        ds.delete("nope = 1")
    assert ds.version == 1


@pytest.mark.parametrize("asked,written", [(None, "2.2"), ("stable", "2.2"), ("STABLE", "2.2"),
                                           ("2.0", "2.0"), ("2.1", "2.1"), ("2.2", "2.2")])
def test_storage_versions(both, tmp_path, asked, written):
    for name, impl in both.items():
        ds = impl.mod.write_dataset({"a": [1]}, str(tmp_path / f"{name}.lance"),
                                    data_storage_version=asked)
        assert ds.data_storage_version == written, name


@pytest.mark.parametrize("asked", ["2.9", "bogus"])
def test_unknown_storage_version_is_a_value_error(both, tmp_path, asked):
    # pylance: ValueError "Invalid user input: Unknown Lance storage version: 2.9" -- for
    # appends too, though an append keeps the dataset's version.
    for name, impl in both.items():
        with pytest.raises(ValueError, match=f"Unknown Lance storage version: {asked}"):
            impl.mod.write_dataset({"a": [1]}, str(tmp_path / f"{name}.lance"),
                                   data_storage_version=asked)
        assert not (tmp_path / f"{name}.lance" / "_versions").exists()
        uri = str(tmp_path / f"{name}-append.lance")
        impl.mod.write_dataset({"a": [1]}, uri)
        with pytest.raises(ValueError, match="Unknown Lance storage version"):
            impl.mod.write_dataset({"a": [2]}, uri, mode="append", data_storage_version=asked)
        assert impl.mod.dataset(uri).version == 1


@pytest.mark.parametrize("asked", ["next", "2.3", "legacy", "0.1"])
def test_unwritable_storage_versions_are_refused(lance_cpp, tmp_path, asked):
    # pylance writes these (2.3 is unstable, 0.1 the legacy format lance_cpp only reads).
    with pytest.raises(NotImplementedError, match=asked) as info:
        lance_cpp.write_dataset({"a": [1]}, str(tmp_path / "x.lance"),
                                data_storage_version=asked)
    assert isinstance(info.value, lance_cpp.LanceError)
    assert not (tmp_path / "x.lance").exists()
    with pytest.raises(NotImplementedError, match="legacy"):
        lance_cpp.write_dataset({"a": [1]}, str(tmp_path / "y.lance"), use_legacy_format=True)


# -- S3 (the RGW that scripts/run_tests.sh starts) -------------------------------------

def s3_env():
    missing = [k for k in S3_VARS if not os.environ.get(k)]
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: these tests need the RGW that "
                    "scripts/run_tests.sh starts (make test), or source its env by hand")
    return {k: os.environ[k] for k in S3_VARS}


def s3_options(env, secret=None):
    return {"aws_endpoint": env["LANCE_S3_ENDPOINT"], "aws_region": env["LANCE_S3_REGION"],
            "aws_access_key_id": env["LANCE_S3_ACCESS_KEY"],
            "aws_secret_access_key": secret or env["LANCE_S3_SECRET_KEY"],
            "allow_http": "true"}


def s3_uri(env, name):
    return f"s3://{env['LANCE_S3_BUCKET']}/python-test-{uuid.uuid4().hex[:12]}/{name}.lance"


def test_s3_round_trip_both(both):
    env = s3_env()
    for writer, reader in (("pylance", "lance_cpp"), ("lance_cpp", "pylance")):
        uri = s3_uri(env, writer)
        both[writer].write(pa.table({"a": [1, 2, 3]}), uri, storage_options=s3_options(env))
        ds = both[reader].mod.dataset(uri, storage_options=s3_options(env))
        assert ds.to_table(filter="a > 1")["a"].to_pylist() == [2, 3]


def test_s3_wrong_secret_is_permission_error(impl):
    env = s3_env()
    uri = s3_uri(env, "denied")
    impl.write({"a": [1]}, uri, storage_options=s3_options(env))
    bad = s3_options(env, secret="0" * 40)
    # pylance 14 raises ValueError ("LanceError(IO): ... 403 Forbidden") when opening;
    # lance_cpp raises PermissionError, as the mapping asks for 401/403.
    expected = ValueError if impl.name == "pylance" else PermissionError
    with pytest.raises(expected) as info:
        impl.mod.dataset(uri, storage_options=bad).to_table()
    assert "403" in str(info.value) or "Forbidden" in str(info.value) or \
        "denied" in str(info.value).lower()
    if impl.name == "lance_cpp":
        assert isinstance(info.value, PermissionError)
        assert isinstance(info.value, impl.mod.LanceError)
        assert "0" * 40 not in str(info.value)  # the secret never appears


def test_s3_storage_options_provider(lance_cpp):
    """A Python provider (pylance's interface) supplies the credentials."""
    env = s3_env()
    calls = []

    class Provider(lance_cpp.io.StorageOptionsProvider):
        def fetch_storage_options(self):
            calls.append(1)
            return s3_options(env)

        def provider_id(self):
            return "python-test-provider"

    static = {k: v for k, v in s3_options(env).items()
              if k not in ("aws_access_key_id", "aws_secret_access_key")}
    uri = s3_uri(env, "provider")
    ds = lance_cpp.write_dataset({"a": [1, 2]}, uri, storage_options=static,
                                 storage_options_provider=Provider())
    assert ds.count_rows() == 2
    again = lance_cpp.dataset(uri, storage_options=static, storage_options_provider=Provider())
    assert again.to_table()["a"].to_pylist() == [1, 2]
    # One fetch: the write's (no credentials in the options). The second provider has the
    # same provider id, so the open reuses the live store and its credentials.
    assert len(calls) == 1
