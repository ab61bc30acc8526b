#!/bin/sh
test_description='every message and recovery hint is worded for its surface

The library keeps a message or hint that names an argument or an operation as words, and each
surface spells them its own way: the CLI names its flags and commands, filekeeper-mcp its tool
arguments and tools. Neither names the other'"'"'s.

Over MCP, t/mcp/surface_words.py takes every tool and argument from tools/list and calls each
tool with one argument at a time set to values that provoke refusals (a directory, a missing
parent, an existing destination, a range past the end, a bound of 0 or above the ceiling, a
credential-shaped name, a Latin-1 file, ...), plus the refusals that need two arguments. No
failure may name a CLI flag (--x) or a keeper command. Over the CLI, the same refusals are
provoked with keeper --json, and no failure may name an MCP argument (any argument of the
tools/list schemas whose name has an underscore; one-word names like path are plain words).'
. ./test-lib.sh

F=$TRASH/fixture

test_expect_success 'setup: a file, a directory, a second file and a Latin-1 file' '
	mkdir -p "$F/d" &&
	printf "one\ntwo\nthree\n" >"$F/f.txt" &&
	echo e >"$F/d/e.txt" &&
	echo g >"$F/g.txt" &&
	printf "caf\351\n" >"$F/l.txt"
'

test_expect_success 'MCP: every tool is driven through its refusals' '
	python3 "$TEST_DIRECTORY/mcp/surface_words.py" "$F" >mcp.jsonl &&
	head -n 1 mcp.jsonl | jq -r ".tools[] | .inputSchema.properties | keys[]" |
		grep _ | sort -u >mcp-arguments &&
	test_line_count -ge 10 mcp-arguments &&
	tail -n +2 mcp.jsonl >failures.jsonl &&
	test "$(jq -r .tool failures.jsonl | sort -u | wc -l)" -ge 20 &&
	test "$(wc -l <failures.jsonl)" -ge 300
'

# A CLI flag (--word, not --- of a diff) or a keeper command, quoted or not.
cat >cli-words.jq <<'JQ'
select([.message, .recovery // ""] | any(
	test("(^|[^-\\w])--[a-z]") or test("`keeper|(^|[^A-Za-z])keeper [a-z]")))
JQ

test_expect_success 'MCP: no message or recovery names a CLI flag or a keeper command' '
	jq -c -f cli-words.jq failures.jsonl >offenders &&
	test_must_be_empty offenders
'

test_expect_success 'MCP: no description in tools/list names a CLI flag or a CLI command, output schemas included' '
	head -n 1 mcp.jsonl |
		jq -r "[.tools[] | .. | objects | .description? | strings] | unique[]" >descriptions &&
	test_line_count -ge 100 descriptions &&
	! grep -E -e "(^|[^-[:alnum:]])--[a-z]|(^|[^[:alpha:]])keeper [a-z]|read-many|apply-patch|hash-object|journal-(begin|commit|show)|undo-last|history (undo|list|show|diff)([^a-z]|$)" descriptions
'

# mcp_hint TOOL CODE TEXT: some failure of TOOL with CODE has TEXT in its message or recovery.
mcp_hint () {
	jq -e -s --arg t "$1" --arg c "$2" --arg w "$3" \
		"any(.[]; .tool == \$t and .code == \$c and
			([.message, .recovery // \"\"] | any(contains(\$w))))" failures.jsonl >/dev/null || {
		echo >&2 "no $2 from $1 says: $3"
		return 1
	}
}

test_expect_success 'MCP: the refusals the audit found name the tool arguments and tools' '
	mcp_hint file_create ALREADY_EXISTS "allow_existing: true" &&
	mcp_hint file_create ALREADY_EXISTS "file_write" &&
	mcp_hint file_copy ALREADY_EXISTS "expected_destination_hash" &&
	mcp_hint file_move ALREADY_EXISTS "overwrite: true" &&
	mcp_hint file_move NOT_A_FILE "file_move" &&
	mcp_hint directory_create PATH_NOT_FOUND "parents: true" &&
	mcp_hint directory_delete INVALID_ARGUMENT "recursive: true" &&
	mcp_hint file_delete NOT_A_FILE "directory_delete" &&
	mcp_hint file_insert_lines INVALID_ARGUMENT "position end takes no line" &&
	mcp_hint file_read INVALID_ARGUMENT "to_line is before from_line" &&
	mcp_hint file_read LIMIT_EXCEEDED "max_bytes" &&
	mcp_hint file_read_many INVALID_ARGUMENT "max_bytes_per_file must be at least 1" &&
	mcp_hint file_read_many LIMIT_EXCEEDED "max_bytes_per_file" &&
	mcp_hint file_read BINARY_CONTENT_REFUSED "the encoding argument" &&
	mcp_hint file_write SENSITIVE_PATH_REFUSED "i_accept_secret_write_risk"
'

# cli NAME ARGS...: keeper --json ARGS... on the fixture, expected to fail; its error object
# goes to NAME.cli.
cli () {
	name=$1 &&
	shift &&
	test_expect_code_any keeper --json --root "$F" "$@" >"$name.cli" 2>/dev/null &&
	jq -e ".ok == false" "$name.cli" >/dev/null
}

# test_expect_code_any CMD...: CMD fails (any non-zero exit).
test_expect_code_any () {
	! "$@"
}

test_expect_success 'CLI: the same refusals through keeper' '
	cli create file create f.txt --content x &&
	cli copy file copy f.txt g.txt &&
	cli move file move f.txt g.txt &&
	cli movedir file move d d2 &&
	cli mkdir dir create missing/x &&
	cli rmdir dir delete d &&
	cli rmfile file delete d &&
	cli insert-end file insert-lines f.txt --position end --line 1 --content x &&
	cli insert-before file insert-lines f.txt --position before --content x &&
	cli read-order file read f.txt --from-line 3 --to-line 2 &&
	cli read-to file read f.txt --to-line 99 &&
	cli read-from file read f.txt --from-line 99 &&
	cli read-zero file read f.txt --max-bytes 0 &&
	cli read-huge file read f.txt --max-bytes 999999999999 &&
	cli read-many-zero file read-many f.txt g.txt --max-lines-per-file 0 &&
	cli read-line file read f.txt --max-bytes 1 &&
	cli read-latin1 file read l.txt &&
	cli list-zero file list --max-entries 0 &&
	cli list-huge file list --max-entries 999999999999 &&
	cli search-zero file search . "*.txt" --max-results 0 &&
	cli grep-huge file grep . one --max-results 999999999999 &&
	cli history-zero history list --limit 0 &&
	cli secret file write .env --content x &&
	for f in *.cli
	do
		jq -c "{message: .error.message, recovery: .error.details.recovery}" "$f" || exit 1
	done >cli-failures.jsonl &&
	test_line_count = 23 cli-failures.jsonl
'

test_expect_success 'CLI: no message or recovery names an MCP argument or tool' '
	jq -r "[.message, .recovery // empty] | .[]" cli-failures.jsonl >cli-words &&
	! grep -w -F -f mcp-arguments cli-words &&
	! grep -E "[a-z]+_[a-z_]+ tool|: true" cli-words
'

# cli_says NAME TEXT: the failure in NAME.cli has TEXT in its message or recovery.
cli_says () {
	jq -r "[.error.message, .error.details.recovery // empty] | .[]" "$1.cli" >says &&
	grep -F -e "$2" says || {
		echo >&2 "$1 does not say $2:"
		cat >&2 says
		return 1
	}
}

test_expect_success 'CLI: the same refusals name the flags and commands' '
	cli_says create "--allow-existing" &&
	cli_says create "keeper file write" &&
	cli_says copy "--expected-destination-hash" &&
	cli_says move "--overwrite" &&
	cli_says movedir "keeper dir move" &&
	cli_says mkdir "--parents" &&
	cli_says rmdir "--recursive --confirm-recursive" &&
	cli_says rmfile "keeper dir delete" &&
	cli_says insert-end "--position end takes no --line" &&
	cli_says insert-before "--line" &&
	cli_says read-order "--to-line is before --from-line" &&
	cli_says read-to "--to-line 99" &&
	cli_says read-from "--from-line 99" &&
	cli_says read-zero "--max-bytes must be at least 1" &&
	cli_says read-huge "--max-bytes" &&
	cli_says read-many-zero "--max-lines-per-file must be at least 1" &&
	cli_says read-line "--max-bytes" &&
	cli_says read-latin1 "--encoding" &&
	cli_says list-zero "--max-entries" &&
	cli_says list-huge "--max-entries" &&
	cli_says search-zero "--max-results" &&
	cli_says grep-huge "--max-results" &&
	cli_says history-zero "--limit" &&
	cli_says secret "--i-accept-secret-write-risk"
'

test_done
