#!/bin/sh
test_description='a short fuzzing run of every fuzz target, with its committed corpus

t/fuzz/ holds libFuzzer targets for the unified-diff and Codex-patch parsers and appliers
(patch), the staged text matcher of replace-text (replace), the confined path resolver
(resolve) and the MCP server'"'"'s request decoding and tool argument parsing (mcp_request). Each checks invariants,
not only the absence of panics: a diff from A to B applied to A gives B, a replacement changes
nothing outside its match, a resolved path never leaves the root, a dry run changes no file.
t/fuzz/run.sh builds them with SanitizerCoverage on the installed toolchain (stable is enough)
and runs each one against its committed corpus, which replays every earlier finding first;
then it keeps mutating for FUZZ_SECONDS (15 by default). Longer runs: docs/reliability.md.'
# test-lib.sh gives every script its own HOME: keep finding the real toolchain and registry.
RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
export RUSTUP_HOME CARGO_HOME
. ./test-lib.sh

FUZZ_SECONDS=${FUZZ_SECONDS:-15}
FUZZ=$TEST_DIRECTORY/fuzz
# The fuzz build has its own target directory (gitignored), apart from the workspace build.
CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$FUZZ/target}
export CARGO_TARGET_DIR
unset FUZZ_KEEP_CORPUS FUZZ_BUILD_ONLY
# A fixed seed and a fixed number of inputs: what CI runs is the same on every machine, so a
# red run means a change broke something, not that this run happened to find an old bug.
# FUZZ_SECONDS only caps the time. Finding new bugs is the long runs' job.
FUZZ_ARGS=${FUZZ_ARGS:-"-seed=1 -runs=20000"}
export FUZZ_ARGS

# FUZZ_TOOLCHAIN: the fuzz build's tools; the build takes minutes, so this is EXPENSIVE too.
test_lazy_prereq FUZZ_TOOLCHAIN 'cargo --version && rustc --version && c++ --version'
test_require_prereq EXPENSIVE,FUZZ_TOOLCHAIN

test_expect_success 'the fuzz targets build with libFuzzer on the installed toolchain' '
	FUZZ_BUILD_ONLY=1 "$FUZZ/run.sh" 1
'

for target in patch replace resolve mcp_request; do
	test_expect_success "$target: the whole corpus replays and 20,000 seeded inputs find nothing" '
		"$FUZZ/run.sh" "$FUZZ_SECONDS" '"$target"' >run.out 2>&1 || { cat run.out; false; } &&
		# Not a vacuous pass: every committed corpus file was loaded and more inputs ran.
		committed=$(ls "$FUZZ/corpus/'"$target"'" | wc -l) &&
		test "$committed" -gt 0 &&
		grep -q "^# INFO: *$committed files found in .*/corpus/'"$target"'\$" run.out &&
		executed=$(sed -n "s/^# stat::number_of_executed_units: *//p" run.out) &&
		test "$executed" -gt "$committed"
	'
done

test_done
