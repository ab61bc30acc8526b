# Two loops. `make check` is the fast one, for every change: formatting, lints, the Rust tests
# and the t/ scripts that are not EXPENSIVE, two at a time. `make test` is the long one that
# runs everything, EXPENSIVE scripts included; it is what .ci/run runs. t/README says which
# scripts are EXPENSIVE and why.

CARGO ?= cargo
PROVE ?= prove
# How many t/ scripts `make check` runs at once.
PROVE_JOBS ?= 2
# The test build arms the crash points the t/ crash tests use; an installed keeper has none.
TEST_FEATURES = --features filekeeper/crash-points

# The MCP client tests use the official Python SDK, installed into .venv.
PYTHON ?= python3
MCP_SDK = mcp==2.3.0

# Under CI=true a test skipped for a missing prerequisite fails the run instead: CI installs
# everything, so a skip there means a test silently stopped running.
ifeq ($(CI),true)
NO_SKIP = KEEPER_TEST_NO_SKIP=1
else
NO_SKIP =
endif

.PHONY: check test lint build rust-tests shell-tests quick-shell-tests venv

check: lint build venv rust-tests quick-shell-tests

test: lint build venv rust-tests shell-tests

venv: .venv/.installed

.venv/.installed:
	$(PYTHON) -m venv .venv
	.venv/bin/pip install --quiet '$(MCP_SDK)'
	touch $@

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy --workspace --all-targets $(TEST_FEATURES) -- -D warnings

build:
	$(CARGO) build --workspace $(TEST_FEATURES)

rust-tests:
	$(CARGO) test --workspace $(TEST_FEATURES)

# Every t/ script, one at a time: the storms and sweeps measure timing under load of their own.
shell-tests: build
	cd t && KEEPER_TEST_LONG=1 $(NO_SKIP) $(PROVE) --timer ./t[0-9]*.sh

# The t/ scripts without the EXPENSIVE ones (they report themselves skipped), in parallel.
quick-shell-tests: build
	cd t && KEEPER_TEST_LONG= $(PROVE) -j$(PROVE_JOBS) --timer ./t[0-9]*.sh
