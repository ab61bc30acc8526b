#!/usr/bin/env bash
# t/fuzz/run.sh SECONDS [TARGET...]: builds the fuzz targets with libFuzzer on whatever Rust
# toolchain is installed (stable is enough: no cargo-fuzz, no nightly) and runs each target
# for SECONDS against its committed corpus in t/fuzz/corpus/TARGET/.
#
# The committed corpus is only read: new inputs go to a scratch directory that is removed
# afterwards, so a run never dirties the checkout. A crash leaves its reproducer in
# t/fuzz/artifacts/TARGET/ (gitignored) and makes the script exit non-zero.
#
# Environment:
#   CARGO_TARGET_DIR  build directory (default: t/fuzz/target, gitignored)
#   FUZZ_BUILD_ONLY   set to 1 to build and stop
#   FUZZ_ARGS         extra libFuzzer options, e.g. "-max_len=8192 -jobs=2"
#   FUZZ_KEEP_CORPUS  a directory: keep what the run found there (TARGET/ below it)
#
# For long runs, `cargo +nightly fuzz run TARGET corpus/TARGET` from t/fuzz/ also works
# (cargo-fuzz adds AddressSanitizer); see docs/reliability.md.
set -euo pipefail

usage() {
	echo "usage: $0 SECONDS [patch|replace|resolve|mcp_request ...]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
seconds=$1
shift
case $seconds in '' | *[!0-9]*) usage ;; esac

here=$(cd "$(dirname "$0")" && pwd)
all_targets=(patch replace resolve mcp_request)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
	case " ${all_targets[*]} " in *" $t "*) ;; *) echo "unknown target $t" >&2 && usage ;; esac
done

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
host=$(rustc -vV | sed -n 's/^host: //p')
# The instrumentation cargo-fuzz uses, minus its nightly-only sanitizer: SanitizerCoverage
# with inline 8-bit counters, a PC table and comparison tracing, and `--cfg fuzzing`.
# An explicit --target keeps these flags off build scripts and proc macros.
export RUSTFLAGS="${RUSTFLAGS:-} -Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 --cfg fuzzing"
bins=()
for t in "${targets[@]}"; do bins+=(--bin "$t"); done
(cd "$here" && cargo build --locked --release --target "$host" "${bins[@]}")
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0

scratch=$(mktemp -d "${TMPDIR:-/tmp}/fk-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failed=0
for t in "${targets[@]}"; do
	mkdir -p "$scratch/$t/corpus" "$scratch/$t/tmp" "$here/artifacts/$t"
	echo "# fuzzing $t for ${seconds}s"
	# The targets make their fixture trees under TMPDIR; the scratch dir removes them.
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
	if ! TMPDIR="$scratch/$t/tmp" "$CARGO_TARGET_DIR/$host/release/$t" \
		-max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$here/artifacts/$t/" \
		${FUZZ_ARGS:-} "$scratch/$t/corpus" "$here/corpus/$t" 2>"$scratch/$t/log"; then
		failed=1
		echo "not ok: $t crashed; reproducer in t/fuzz/artifacts/$t/"
		tail -n 60 "$scratch/$t/log" | sed 's/^/# /'
	else
		grep -E '^INFO: +[0-9]+ files found|^stat::(number_of_executed_units|peak_rss_mb|new_units_added)|^#[0-9]+.*DONE' \
			"$scratch/$t/log" | sed 's/^/# /' || true
		echo "ok: $t"
	fi
	if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
		mkdir -p "$FUZZ_KEEP_CORPUS/$t"
		cp -n "$scratch/$t/corpus/"* "$FUZZ_KEEP_CORPUS/$t/" 2>/dev/null || true
	fi
done
exit $failed
