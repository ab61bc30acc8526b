# `make test` is the one command that runs everything: lints, Rust tests, and the t/ scripts.

CARGO ?= cargo
PROVE ?= prove
# The test build arms the crash points the t/ crash tests use; an installed keeper has none.
TEST_FEATURES = --features filekeeper/crash-points

# The MCP client tests use the official Python SDK, installed into .venv.
PYTHON ?= python3
MCP_SDK = mcp==2.3.0

.PHONY: test lint build rust-tests shell-tests venv

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

shell-tests: build
	cd t && $(PROVE) --timer ./t[0-9]*.sh
