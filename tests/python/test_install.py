# SPDX-License-Identifier: Apache-2.0
"""`pip install .` works: a wheel is built from the source tree (scikit-build-core, the
top-level CMake project, only the `_lance_cpp` target, in the persistent build directory
build-wheel with ccache) and installed into a throw-away venv, where `import lance_cpp`
writes and reads a dataset. The venv sees the project venv's packages (pyarrow,
lance-namespace) through --system-site-packages-like .pth, so nothing is downloaded.

Label `python_install` (ctest): the first run configures build-wheel and takes the core's
objects from ccache (filled by `make build`: same flags, same directory depth); later
runs only relink, if anything."""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

SOURCE = Path(os.environ.get("LANCE_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, (
        f"{' '.join(map(str, cmd))} failed ({result.returncode}):\n"
        f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result


def test_pip_install(tmp_path):
    wheels = tmp_path / "wheels"
    # --no-build-isolation: the build requirements (scikit-build-core, pybind11) are pinned
    # in requirements.txt and installed in the project venv; no network needed.
    run([sys.executable, "-m", "pip", "wheel", str(SOURCE), "--no-build-isolation",
         "--no-deps", "-w", str(wheels), "-q"], cwd=SOURCE)
    built = sorted(wheels.glob("lance_cpp-*.whl"))
    assert len(built) == 1, list(wheels.iterdir())

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    py = venv / "bin" / "python"
    # Make the project venv's packages (pyarrow, lance-namespace, ...) visible underneath.
    site = Path(run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
                .stdout.strip())
    (site / "project-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(built[0])])

    check = (
        "import lance_cpp, pyarrow as pa, sys\n"
        "assert '/site-packages/lance_cpp/' in lance_cpp.__file__, lance_cpp.__file__\n"
        f"ds = lance_cpp.write_dataset({{'a': [1, 2, 3]}}, {str(tmp_path / 't.lance')!r})\n"
        "assert lance_cpp.dataset(ds.uri).to_table(filter='a > 1')['a'].to_pylist() == [2, 3]\n"
        "import lance_cpp.file, lance_cpp.namespace, lance_cpp.io, lance_cpp.fragment\n"
        "print('ok')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = run([str(py), "-c", check], cwd=tmp_path, env=env)
    assert out.stdout.strip().endswith("ok")
