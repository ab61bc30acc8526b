# `make test` is the one command that runs everything: lints, Rust tests, and the t/ scripts.

CARGO ?= cargo
PROVE ?= prove

.PHONY: test lint build rust-tests shell-tests

test: lint build rust-tests shell-tests

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

build:
	$(CARGO) build --workspace

rust-tests:
	$(CARGO) test --workspace

shell-tests: build
	cd t && $(PROVE) --timer ./t[0-9]*.sh
