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

# The second MCP client test (t/t0513) uses the official TypeScript SDK, pinned in
# t/mcp/ts-client/package-lock.json and installed with npm ci into its node_modules.
TS_CLIENT = t/mcp/ts-client

# Under CI=true a test skipped for a missing prerequisite fails the run instead: CI installs
# everything, so a skip there means a test silently stopped running.
ifeq ($(CI),true)
NO_SKIP = KEEPER_TEST_NO_SKIP=1
else
NO_SKIP =
endif

.PHONY: check test lint build rust-tests shell-tests quick-shell-tests venv ts-client release release-keeper release-mcp install wheels python-tests

check: lint build venv ts-client rust-tests quick-shell-tests

test: lint build venv ts-client rust-tests shell-tests python-tests

venv: .venv/.installed

.venv/bin/python:
	$(PYTHON) -m venv .venv

.venv/.installed: .venv/bin/python
	.venv/bin/pip install --quiet '$(MCP_SDK)'
	touch $@

ts-client: $(TS_CLIENT)/node_modules/.installed

# npm ci installs exactly the lock file's versions (it empties node_modules first, the stamp
# with it), and runs again only when the lock file changes.
$(TS_CLIENT)/node_modules/.installed: $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# keeper and filekeeper-mcp as a user runs them: the release profile, with the C library linked
# in statically (a static PIE, so address randomisation stays) where the C toolchain can link
# one: Linux with the C library's static archive (Debian's libc6-dev has it; Fedora needs
# glibc-static). Elsewhere they are linked dynamically and behave the same. Loading glibc and
# resolving its symbols was about a fifth of a small command's time (docs/decisions.md). Only
# the two binaries get the flag: `cargo rustc` passes it to the final crate alone, and a
# proc-macro crate cannot be built with it. A later plain `cargo build --release` links them
# dynamically again. `:=` probes the toolchain once per make run, not once per binary.
STATIC_LINK := $(shell printf 'int main(void){return 0;}' | $(CC) -x c -static-pie -o /dev/null - >/dev/null 2>&1 && echo '-C target-feature=+crt-static')
# Where `make install` puts them: cargo's own bin directory, as `cargo install` does.
BINDIR ?= $(or $(CARGO_HOME),$(HOME)/.cargo)/bin

release: release-keeper release-mcp

release-keeper:
	$(CARGO) rustc --locked --release -p filekeeper-cli --bin keeper -- $(STATIC_LINK)

release-mcp:
	$(CARGO) rustc --locked --release -p filekeeper-mcp --bin filekeeper-mcp -- $(STATIC_LINK)

install: release
	install -d '$(BINDIR)'
	install -m 755 target/release/keeper target/release/filekeeper-mcp '$(BINDIR)'

# The tools that build and check the Python distributions, pinned: maturin builds the wheels,
# uv is what the README's `uv tool install` uses, pytest, mypy and ruff check the Python
# surface.
PYTHON_TOOLS = maturin==1.16.0 uv==0.13.9 pytest==9.2.0 mypy==2.4.1 ruff==0.17.6
WHEELS = target/wheels

.venv/.tools: .venv/bin/python
	.venv/bin/pip install --quiet $(PYTHON_TOOLS)
	touch $@

# The two wheels, as a release would build them: filekeeper-cli (the filekeeper package, and the
# keeper binary as its command) and filekeeper-mcp (the server binary). maturin builds the
# server itself, so only keeper is built beforehand.
wheels: .venv/.tools release-keeper
	rm -rf $(WHEELS) porcelain/python/data
	mkdir -p porcelain/python/data/scripts
	cp target/release/keeper porcelain/python/data/scripts/keeper
	.venv/bin/maturin build --quiet -m porcelain/python/Cargo.toml -o $(WHEELS)
	.venv/bin/maturin build --quiet -m mcp/Cargo.toml -o $(WHEELS)

# The Python surface, from the wheels installed in fresh virtual environments
# (porcelain/python/tests/), then mypy --strict and ruff over the Python files.
python-tests: wheels
	rm -rf target/wheel-venv
	$(PYTHON) -m venv target/wheel-venv
	target/wheel-venv/bin/pip install --quiet --no-index --find-links $(WHEELS) filekeeper-mcp
	target/wheel-venv/bin/pip install --quiet $(PYTHON_TOOLS)
	cd porcelain/python && FILEKEEPER_WHEELS=$(CURDIR)/$(WHEELS) \
		../../target/wheel-venv/bin/pytest -q tests
	cd porcelain/python && ../../target/wheel-venv/bin/mypy
	cd porcelain/python && ../../target/wheel-venv/bin/ruff check . && ../../target/wheel-venv/bin/ruff format --check .

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy --workspace --all-targets $(TEST_FEATURES) -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --quiet

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
