#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tests of scripts/check_layers.py on small fixture trees in a temp folder: one tree with
one violation of each rule (the check must name each, file:line and rule, and fail), one
clean tree that uses the sanctioned exceptions (it must pass), and stale exceptions.

Usage: check_layers_test.py [-v]   (stdlib unittest; ctest `boundary_check_selftest`)
"""

import contextlib
import importlib.util
import io
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_layers.py"
spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
check_layers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_layers)

# The files every fixture tree has: public and private headers of a few areas, a
# generated-header source, and the headers the sanctioned exceptions name.
BASE = {
    "include/lance/status.h": "#pragma once\n#include <string>\n",
    "include/lance/core/array.h": '#pragma once\n#include "lance/status.h"\n',
    "include/lance/io/object_store.h": '#pragma once\n#include "lance/core/array.h"\n',
    "include/lance/dataset/dataset.h": '#pragma once\n#include "lance/io/object_store.h"\n',
    "src/io/internal.h": "#pragma once\n",
    "src/io/s3/s3_client.h": '#pragma once\n#include "io/internal.h"\n',
    "src/format/schema_proto.h": '#pragma once\n#include "format/proto/file.pb.h"\n',
    "src/format/proto/file.proto": 'syntax = "proto3";\n',
    "src/table/commit.h": '#pragma once\n#include "lance/io/object_store.h"\n',
    "src/dataset/dataset_internal.h": '#pragma once\n#include "lance/dataset/dataset.h"\n',
    # The dataset layer may use the table format's private headers and format's schema
    # converter (both sanctioned exceptions).
    "src/dataset/dataset.cc": ('#include "dataset/dataset_internal.h"\n'
                               '#include "format/schema_proto.h"\n'
                               '#include "table/commit.h"\n'),
    "bench/s3_benchmark.cc": '#include "io/s3/s3_client.h"\n#include <vector>\n',
    "cli/lib/json.h": "#pragma once\n",
    "cli/main.cc": '#include "lib/json.h"\n#include "lance/dataset/dataset.h"\n',
    # Tests may include anything.
    "tests/table/commit_test.cc": '#include "table/commit.h"\n#include "io/internal.h"\n',
}

# One violation of each kind, at a known line: file -> (text, [(line, rule), ...]).
VIOLATIONS = {
    # A lower layer's private code includes a higher layer's public header.
    "src/core/array.cc": ('#include "lance/core/array.h"\n#include "lance/io/object_store.h"\n',
                          [(2, "layer-up")]),
    # A public header of a lower layer includes a higher layer's public header.
    "include/lance/io/uri.h": ('#pragma once\n\n#include "lance/dataset/dataset.h"\n',
                               [(3, "layer-up")]),
    # The table format below the dataset layer includes the Dataset.
    "src/table/manifest.cc": ('#include "table/commit.h"\n#include "lance/dataset/dataset.h"\n',
                              [(2, "layer-up")]),
    # The table exception is the dataset layer's only: namespace uses the Dataset's public
    # API, never its internals.
    "src/namespace/ops.cc": ('#include "dataset/dataset_internal.h"\n', [(1, "private-area")]),
    # Another area's private header, by its src/-relative name ...
    "src/namespace/dir.cc": ('#include "lance/dataset/dataset.h"\n#include "table/commit.h"\n',
                             [(2, "private-area")]),
    # ... by a relative path ...
    "src/namespace/other.cc": ('#include "../table/commit.h"\n', [(1, "private-area")]),
    # ... and a generated one (built from src/format/proto/file.proto).
    "src/table/manifest.cc": ('  #  include "format/proto/file.pb.h"\n', [(1, "private-area")]),
    # A lower layer including a higher area's private header breaks two rules at once.
    "src/io/bad.cc": ('#include "table/commit.h"\n', [(1, "layer-up"), (1, "private-area")]),
    # Programs on the public API.
    "examples/demo.cc": ('#include "lance/dataset/dataset.h"\n#include "io/internal.h"\n',
                         [(2, "outside-src")]),
    "tools/interop/main.cc": ("#include <table/commit.h>\n", [(1, "outside-src")]),
    "python/src/bindings.cc": ('#include "format/schema_proto.h"\n', [(1, "outside-src")]),
    # The bench exception is for s3_benchmark.cc only.
    "bench/other_benchmark.cc": ('#include "io/s3/s3_client.h"\n', [(1, "outside-src")]),
    # A public header including a private one.
    "include/lance/format/file_reader.h": ('#pragma once\n#include "format/schema_proto.h"\n',
                                           [(2, "public-private")]),
}


def write_tree(root, files):
    for rel, text in files.items():
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run_main(root):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = check_layers.main(["check_layers.py", str(root)])
    return rc, out.getvalue()


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="check_layers_")
        self.root = Path(self._tmp.name)
        # The real tree's allowances name files the fixture trees do not have.
        self._saved = (check_layers.LONG_FILES, check_layers.LONG_FUNCTIONS)
        check_layers.LONG_FILES, check_layers.LONG_FUNCTIONS = {}, {}

    def tearDown(self):
        check_layers.LONG_FILES, check_layers.LONG_FUNCTIONS = self._saved
        self._tmp.cleanup()

    def test_clean_tree_passes(self):
        write_tree(self.root, BASE)
        found, unused = check_layers.check(self.root)
        self.assertEqual(found, [])
        self.assertEqual(unused, [])
        rc, out = run_main(self.root)
        self.assertEqual(rc, 0, out)
        self.assertIn("no boundary violations", out)

    def test_each_violation_is_named_with_file_line_and_rule(self):
        write_tree(self.root, BASE)
        write_tree(self.root, {rel: text for rel, (text, _) in VIOLATIONS.items()})
        found, unused = check_layers.check(self.root)
        got = sorted((where, rule) for where, rule, _ in found)
        want = sorted((f"{rel}:{line}", rule)
                      for rel, (_, hits) in VIOLATIONS.items() for line, rule in hits)
        self.assertEqual(got, want)
        self.assertEqual(unused, [])
        # Every rule is exercised by the fixture.
        self.assertEqual({rule for _, rule in got},
                         {"layer-up", "private-area", "outside-src", "public-private"})
        rc, out = run_main(self.root)
        self.assertEqual(rc, 1)
        self.assertIn("src/namespace/dir.cc:2: [private-area] src/namespace includes a "
                      "private header of table (src/table/commit.h)", out)
        self.assertIn("examples/demo.cc:2: [outside-src]", out)
        self.assertIn("include/lance/format/file_reader.h:2: [public-private]", out)
        self.assertIn(f"check_layers: {len(want)} problem(s)", out)

    def test_one_violation_alone_fails(self):
        # Each violation on its own makes the check fail (no rule hides behind another).
        for rel, (text, hits) in VIOLATIONS.items():
            with self.subTest(file=rel):
                with tempfile.TemporaryDirectory(prefix="check_layers_one_") as tmp:
                    write_tree(tmp, BASE)
                    write_tree(tmp, {rel: text})
                    rc, out = run_main(tmp)
                    self.assertEqual(rc, 1, out)
                    for line, rule in hits:
                        self.assertIn(f"{rel}:{line}: [{rule}]", out)

    def test_stale_exception_fails(self):
        files = dict(BASE)
        files["bench/s3_benchmark.cc"] = '#include "lance/io/object_store.h"\n'
        write_tree(self.root, files)
        found, unused = check_layers.check(self.root)
        self.assertEqual(found, [])
        self.assertEqual([(who, rule) for who, _, rule, _ in unused],
                         [("bench/s3_benchmark.cc", "outside-src")])
        rc, out = run_main(self.root)
        self.assertEqual(rc, 1)
        self.assertIn("bench/s3_benchmark.cc: [stale-exception]", out)

    def test_every_exception_has_a_reason(self):
        for who, what, rule, reason in check_layers.EXCEPTIONS:
            self.assertIn(rule, {"layer-up", "private-area", "outside-src", "public-private"})
            self.assertGreater(len(reason), 40, (who, what))

    def test_third_party_header_in_public_header_fails(self):
        write_tree(self.root, BASE)
        write_tree(self.root, {
            "include/lance/io/json.h": "#pragma once\n#include <map>\n"
                                       "#include <nlohmann/json.hpp>\n",
            # Private code may use third-party headers.
            "src/io/json.cc": "#include <nlohmann/json.hpp>\n",
        })
        found, _ = check_layers.check(self.root)
        self.assertEqual([(w, r) for w, r, _ in found],
                         [("include/lance/io/json.h:3", "third-party")])

    def test_header_cycle_within_an_area_fails(self):
        write_tree(self.root, BASE)
        write_tree(self.root, {
            "src/io/a.h": '#pragma once\n#include "io/b.h"\n',
            "src/io/b.h": '#pragma once\n#include "io/c.h"\n',
            "src/io/c.h": '#pragma once\n#include "io/a.h"\n',
            # A .cc including its own header and another is no cycle.
            "src/io/a.cc": '#include "io/a.h"\n#include "io/internal.h"\n',
        })
        found, _ = check_layers.check(self.root)
        self.assertEqual(len(found), 1, found)
        where, rule, text = found[0]
        self.assertEqual(rule, "area-cycle")
        self.assertIn("src/io/a.h -> src/io/b.h -> src/io/c.h", text)

    def test_long_file_needs_a_named_reason(self):
        write_tree(self.root, BASE)
        long_text = "// x\n" * (check_layers.MAX_FILE_LINES + 1)
        write_tree(self.root, {"src/io/big.cc": long_text, "tests/io/big_test.cc": long_text})
        found, _ = check_layers.check(self.root)
        self.assertEqual([(w, r) for w, r, _ in found], [("src/io/big.cc", "long-file")])
        check_layers.LONG_FILES = {"src/io/big.cc": "a reason"}
        found, unused = check_layers.check(self.root)
        self.assertEqual((found, unused), ([], []))
        write_tree(self.root, {"src/io/big.cc": "// short\n"})
        _, unused = check_layers.check(self.root)
        self.assertEqual([(who, rule) for who, _, rule, _ in unused],
                         [("src/io/big.cc", "long-file")])

    def test_long_function_needs_a_named_reason(self):
        write_tree(self.root, BASE)
        body = "  x += 1;\n" * check_layers.MAX_FUNCTION_LINES
        text = ("namespace lance {\n\nint Short(int x) { return x; }\n\n"
                "int Long(int x,\n         int y) {\n" + body + "  return x;\n}\n\n"
                "int Fine(int x) {\n  return x;\n}\n\n}  // namespace lance\n")
        write_tree(self.root, {"src/io/f.cc": text})
        self.assertEqual(check_layers.long_functions(self.root),
                         [("src/io/f.cc", "Long", check_layers.MAX_FUNCTION_LINES + 4)])
        found, _ = check_layers.check(self.root)
        self.assertEqual([(w, r) for w, r, _ in found], [("src/io/f.cc", "long-function")])
        check_layers.LONG_FUNCTIONS = {"src/io/f.cc:Long": "a reason"}
        self.assertEqual(check_layers.check(self.root), ([], []))
        # No more than MAX_LONG_FUNCTIONS may be allowed.
        check_layers.LONG_FUNCTIONS = {f"src/io/f.cc:Long{i}": "a reason" for i in
                                       range(check_layers.MAX_LONG_FUNCTIONS + 1)}
        found, _ = check_layers.check(self.root)
        self.assertIn("long-function", {r for _, r, _ in found})

    def test_every_allowance_has_a_reason(self):
        for name, reason in {**self._saved[0], **self._saved[1]}.items():
            self.assertGreater(len(reason), 40, name)
        self.assertLessEqual(len(self._saved[1]), check_layers.MAX_LONG_FUNCTIONS)

    def test_system_and_local_headers_are_not_project_headers(self):
        write_tree(self.root, BASE)
        write_tree(self.root, {
            # A program's own headers shadow nothing in src/ (cli/lib/json.h, not src/...).
            "cli/commands/scan.cc": '#include "lib/json.h"\n#include <string>\n',
            "src/io/local.cc": '#include "internal.h"\n#include "io/internal.h"\n',
        })
        found, _ = check_layers.check(self.root)
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
