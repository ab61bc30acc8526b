#!/bin/sh
test_description='an agent recovers from its editing mistakes in one call, and is never told ok wrongly

t/mcp/agent_mistakes.py makes fifteen kinds of mistake agents make when they edit (a stale
view before a whole-file write, a replace and a line edit; old text there twice, meant at the
later one; lost indentation; trailing whitespace; line numbers copied from a numbered read; a
misremembered line; a range off by one under a content guard; a patch with a wrong context
line, wrong @@ numbers or a miscounted header; LF text for a CRLF file; a mistyped path; a file
moved since the read) on real files of this repository, through filekeeper-mcp. Each case
knows the bytes the agent meant. The first call may be refused, but an ok must leave exactly
those bytes; a scripted agent that uses only the first refusal (no new read) must reach them
with its second call in at least 90% of the cases. docs/mcp.md reports the figures.'
. ./test-lib.sh

test_require_prereq MCP_SDK
ROOT_DIR=$TEST_DIRECTORY/..

test_expect_success 'the corpus runs: at least 40 cases in at least 10 families' '
	timeout 600 "$PY" "$MCP/agent_mistakes.py" "$TRASH/cases" \
		"$ROOT_DIR/porcelain/src/edit/merge.rs" \
		"$ROOT_DIR/porcelain/python/tests/test_api.py" \
		"$ROOT_DIR/docs/python.md" \
		"$ROOT_DIR/t/test-lib.sh" >"$TRASH/results.jsonl" &&
	test "$(wc -l <"$TRASH/results.jsonl")" -ge 40 &&
	test "$(jq -s "map(.family) | unique | length" "$TRASH/results.jsonl")" -ge 10
'

test_expect_success 'no first or second call answers ok with a file other than the intended one' '
	jq -c "select(.silent_wrong)" "$TRASH/results.jsonl" >wrong &&
	test_must_be_empty wrong
'

test_expect_success 'at least 90% of the cases reach the intended file within two calls' '
	jq -s "(map(select(.reached)) | length) * 100 / length" "$TRASH/results.jsonl" >rate &&
	jq -c "select(.reached | not)" "$TRASH/results.jsonl" >&2 &&
	echo >&2 "reached: $(cat rate)%" &&
	test "$(jq "floor" rate)" -ge 90
'

test_expect_success 'the figures by family (for docs/mcp.md)' '
	jq -rs "group_by(.family)[] | [.[0].family, length, (map(select(.first == \"ok\")) | length),
		(map(select(.reached)) | length)] | @tsv" "$TRASH/results.jsonl" >&2
'

test_done
