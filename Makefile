# SPDX-License-Identifier: Apache-2.0
# The two commands: `make demo` and `make test`. Both do all set-up first.
SHELL := /bin/bash
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
TSAN_DIR ?= build-tsan
FUZZ_DIR ?= build-fuzz
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# ccache keeps its default cache (~/.cache/ccache), shared by every clone on the machine.
export CCACHE_MAXSIZE ?= 5G

.PHONY: all setup build build-asan build-tsan build-fuzz demo test unit-asan bench fuzz soak stress \
  format format-check tidy clean

all: build

setup:
	@scripts/setup.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt | setup
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

# Also the Java bindings: liblance_cpp_jni.so and the jar (Maven), in $(BUILD_DIR)/java.
build: setup $(BUILD_DIR)/build.ninja
	ninja -C $(BUILD_DIR) -j$(JOBS)

# The sanitizer builds compile at -O1 with line tables only (-g1): what the sanitizers'
# docs recommend for readable reports, and far quicker to build than -O2 -g; on a fresh
# 2-core machine the ASan build was the longest step of make test (34 min at -O2 -g).
SAN_CMAKE_FLAGS ?= "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"

# One sanitizer build: $(1) build dir, $(2) sanitizer (ASAN / TSAN: -DLANCE_ENABLE_$(2)=ON),
# $(3) whether the CLI is built (ON / OFF), $(4) the ninja target.
define san_build
cmake -S . -B $(1) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLANCE_ENABLE_$(2)=ON \
	  $(SAN_CMAKE_FLAGS) \
	  -DLANCE_BUILD_BENCHMARKS=OFF -DLANCE_BUILD_CLI=$(3) -DLANCE_BUILD_PYTHON=OFF \
	  -DLANCE_BUILD_JAVA=OFF $(CMAKE_FLAGS) >/dev/null
	ninja -C $(1) -j$(JOBS) $(4)
endef

# AddressSanitizer + UndefinedBehaviorSanitizer: the unit tests, the CLI (its parsers' unit
# tests, and the lance-cpp / tool binaries its shell tests run) and the S3 suite (label asan).
build-asan: setup
	$(call san_build,$(ASAN_DIR),ASAN,ON,asan_tests)

# The demo's own throw-away RGW (ports apart from `make test`'s and a dev RGW's).
DEMO_RGW_PORT ?= 7488
DEMO_MON_PORT ?= 6788
# ... and its throw-away Azurite (apart from make test's 10000 and 10001).
DEMO_AZURITE_PORT ?= 10008

demo: build
	$(BUILD_DIR)/examples/lance-demo $(BUILD_DIR)/demo
	@echo
	@echo "== 5. real Lance (pylance) reads what lance-cpp wrote"
	.venv/bin/python -c "import lance; ds = lance.dataset('$(BUILD_DIR)/demo/people.lance'); \
	  print('versions:', [v['version'] for v in ds.versions()], 'rows:', ds.count_rows()); \
	  print(ds.to_table().to_pandas())"
	@echo
	@echo "== 6. vended, expiring credentials on a real RGW (started now, stopped at the end)"
	@set -euo pipefail; D="$(abspath $(BUILD_DIR))/demo-rgw"; \
	  export RGW_PORT=$(DEMO_RGW_PORT) MON_PORT=$(DEMO_MON_PORT); \
	  trap 'scripts/rgw.sh stop "$$D" >/dev/null 2>&1 || true; rm -f "$$D.env"' EXIT; \
	  echo "starting RGW on 127.0.0.1:$$RGW_PORT (log: $$D.log) ..."; \
	  if ! scripts/rgw.sh start "$$D" >"$$D.env" 2>"$$D.log"; then tail -n 20 "$$D.log"; exit 1; fi; \
	  source "$$D.env"; \
	  $(BUILD_DIR)/examples/lance-demo --s3; \
	  echo; echo "== 7. a served REST namespace vending credentials scoped to each table"; \
	  $(BUILD_DIR)/examples/lance-demo --rest; \
	  echo "stopping RGW"
	@echo
	@echo "== 8. a namespace on Azure Blob Storage vending SAS tokens (a throw-away Azurite, started now, stopped at the end)"
	@set -euo pipefail; D="$(abspath $(BUILD_DIR))/demo-azurite"; \
	  export AZURITE_PORT=$(DEMO_AZURITE_PORT) AZURITE_IN_MEMORY=1; \
	  trap 'scripts/azurite.sh stop "$$D" >/dev/null 2>&1 || true; rm -f "$$D.env"' EXIT; \
	  echo "starting Azurite on 127.0.0.1:$$AZURITE_PORT (log: $$D.log) ..."; \
	  if ! scripts/azurite.sh start "$$D" >"$$D.env" 2>"$$D.log"; then tail -n 20 "$$D.log"; exit 1; fi; \
	  source "$$D.env"; \
	  $(BUILD_DIR)/examples/lance-demo --azure; \
	  echo "stopping Azurite"

# The sanitizer unit tests alone (no RGW needed).
unit-asan: build-asan
	scripts/run_tests.sh --asan-only $(ASAN_DIR)

# ThreadSanitizer build of the io, refresh, namespace and scan tests (label tsan).
build-tsan: setup
	$(call san_build,$(TSAN_DIR),TSAN,OFF,tsan_tests)

# The libFuzzer targets (clang, tests/fuzz/), built apart from the gcc builds.
build-fuzz: setup
	scripts/fuzz.sh build $(FUZZ_DIR)

# All builds first, then one run: RGW is started (RGW_PORT / MON_PORT, default 7480 / 6789),
# every test of the main build, the sanitizer builds' tests and a short run of every fuzz
# target happen against it, the logs are scanned for the run's secrets, RGW is stopped.
test: build build-asan build-tsan build-fuzz
	TSAN_DIR=$(TSAN_DIR) FUZZ_DIR=$(FUZZ_DIR) scripts/run_tests.sh $(BUILD_DIR) $(ASAN_DIR)

# Long modes, each on its own: crash-kill soak (thousands of kill points), long fuzzing
# (plus the bad-input corpus at 20x), and the whole suite three times under stress-ng.
soak: build
	scripts/soak.sh $(BUILD_DIR)

fuzz: build-fuzz build-asan
	scripts/fuzz.sh run --long $(FUZZ_DIR) $(ASAN_DIR)

stress: build build-asan build-tsan build-fuzz
	scripts/stress.sh

# One run at one commit (scripts/run_bench.sh): all parts -> bench/results/latest.json, and
# docs/benchmarks.md regenerated from it (bench/report.py --markdown). ~25 min on 2 cores.
bench: build
	scripts/run_bench.sh $(BUILD_DIR)

# Formatting and clang-tidy apply to the files changed since LANCE_LINT_BASE (default: the
# commit issue 11 started from; scripts/changed_files.sh), so that files nobody touched since
# do not fail. `make format` rewrites those files; `make format-check` fails if any of them
# is not formatted; `make tidy` runs clang-tidy (.clang-tidy, warnings as errors) on the
# changed src/ sources, against the compile commands of $(BUILD_DIR).
LINT_FILES = scripts/changed_files.sh '*.h' '*.cc'

format:
	@files=$$($(LINT_FILES)) || exit 1; [ -z "$$files" ] || clang-format -i $$files

format-check:
	@files=$$($(LINT_FILES)) || exit 1; n=$$(echo "$$files" | grep -c . || true); \
	  echo "clang-format: $$n changed file(s)"; \
	  [ -z "$$files" ] || clang-format --dry-run -Werror $$files \
	  || { echo "format-check: run 'make format'"; exit 1; }

# Clean results are remembered by content (scripts/tidy.py: clang-tidy version, .clang-tidy,
# flags and the preprocessed source) in ~/.cache/lance-cpp/tidy, shared by every clone.
tidy: build
	@files=$$(scripts/changed_files.sh 'src/*.cc') || exit 1; n=$$(echo "$$files" | grep -c . || true); \
	  echo "clang-tidy: $$n changed source(s) of src/"; \
	  [ -z "$$files" ] || scripts/tidy.py $(BUILD_DIR) -j $(JOBS) $$files

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR) build-wheel
