#!/bin/sh
test_description='parity: the same request through keeper --json and through filekeeper-mcp

A table of requests -- reads, searches, history, mutations, dry runs, and refusals of every kind
(a missing path, .., an absolute path outside, a symlink escape, a sensitive write, a stale hash,
NO_MATCH, an out-of-range line edit, bad patches, a bad glob, an unknown operation id, every
limit) -- is run once through `keeper --json --root DIR COMMAND` and once through the MCP tool
with the same arguments. A request that changes the tree runs in its own fresh, identical copy
of a template tree for each surface; a read-only one runs on the template itself. For each
request the two surfaces agree: the same ok; for a failure the same error.code, error.retryable
and error.details; for a success the same result fields, operation ids and timestamps aside.
Only the message and details.recovery differ, and then only where they name the surface'"'"'s
own arguments and commands or tools (both surfaces give a recovery, or neither).'
. ./test-lib.sh

test_require_prereq MCP_SDK
TPL=$TRASH/tpl
ROWS=$TRASH/rows.jsonl
ZERO_HASH=sha256:0000000000000000000000000000000000000000000000000000000000000000

# row MODE EXPECT NAME TOOL ARGUMENTS-JSON CLI-ARG...: one request of the table. MODE is ro (run
# on the template) or rw (run on fresh copies); EXPECT is ok or the error code both surfaces
# must give; CLI-ARG... is the keeper command after `keeper --json --root DIR`.
row () {
	mode=$1 expect=$2 name=$3 tool=$4 arguments=$5
	shift 5
	# Arguments too large for a command line come from a file, named as @FILE.
	case $arguments in
	@*) argfile=${arguments#@} ;;
	*) argfile=$TRASH/row-arguments.json && printf "%s\n" "$arguments" >"$argfile" ;;
	esac &&
	# The CLI arguments travel on stdin, each ended by a unit separator (\037), so newlines
	# and leading dashes stay as they are.
	printf "%s\037" "$@" |
	jq -Rsc --arg mode "$mode" --arg expect "$expect" --arg name "$name" --arg tool "$tool" \
		--slurpfile arguments "$argfile" \
		'{mode: $mode, expect: $expect, name: $name, tool: $tool, arguments: $arguments[0],
		  cli: (split("\u001f") | .[:-1])}' >>"$ROWS"
}

# patch_args FILE [EXTRA-JSON]: file_apply_patch arguments carrying FILE's text (plus EXTRA),
# written to a file of their own; prints @ and that file's name, for row.
patch_args () {
	extra=${2:-'{}'}
	argfile=$1.$(printf "%s" "$extra" | sha256sum | cut -c1-12).json
	jq -nc --rawfile p "$1" --argjson extra "$extra" '{patch: $p} + $extra' >"$argfile" &&
	echo "@$argfile"
}

define_rows () {
	op_write=$(cat "$TRASH/op.write") &&
	op_secret=$(cat "$TRASH/op.secret") &&
	notes_hash=$(keeper --json --root "$TPL" file hash notes.txt | jq -r .hash) &&
	: >"$ROWS" &&

	# reads and searches
	# The server snapshots reads by default where there is history; the CLI only with
	# --snapshot. The rows ask both for the same thing.
	row ro ok "read a file" file_read '{"path": "notes.txt", "snapshot": false}' \
		file read notes.txt &&
	row ro ok "read a line range" file_read '{"path": "notes.txt", "from_line": 2, "to_line": 3, "snapshot": false}' \
		file read notes.txt --from-line 2 --to-line 3 &&
	row rw ok "read with a snapshot" file_read '{"path": "notes.txt", "snapshot": true}' \
		file read notes.txt --snapshot &&
	row ro ok "read by an absolute path inside" file_read "{\"path\": \"$TPL/notes.txt\", \"snapshot\": false}" \
		file read "$TPL/notes.txt" &&
	row ro ok "read many, one missing" file_read_many '{"paths": ["notes.txt", "missing.txt", "../x"]}' \
		file read-many notes.txt missing.txt ../x &&
	row ro ok "read many in an encoding" file_read_many '{"paths": ["notes.txt"], "encoding": "latin1"}' \
		file read-many notes.txt --encoding latin1 &&
	row ro ok "file info" file_info '{"path": "src/main.rs"}' \
		file info src/main.rs &&
	row ro ok "list recursively with a glob" directory_list '{"path": ".", "recursive": true, "glob": "*.md"}' \
		file list . --recursive --glob '*.md' &&
	row ro ok "search paths by glob" file_search '{"path": ".", "pattern": "*.rs"}' \
		file search . '*.rs' &&
	row ro ok "search content" content_search '{"path": ".", "query": "BETA", "ignore_case": true}' \
		file grep . BETA --ignore-case &&
	row ro ok "history list" history_list '{"limit": 5}' \
		history list --limit 5 &&
	row ro ok "history list by actor" history_list '{"actor": "tpl-agent"}' \
		history list --actor tpl-agent &&
	row ro ok "history list by task id and path" history_list '{"task_id": "T-1", "path": "log.txt"}' \
		history list --task-id T-1 --path log.txt &&
	row ro ok "workspace status" workspace_status '{}' \
		status &&
	row ro ok "history get" history_get "{\"operation_id\": \"$op_write\"}" \
		history show "$op_write" &&
	row ro ok "history diff" history_diff "{\"operation_id\": \"$op_write\"}" \
		history diff "$op_write" &&
	row ro ok "find up a file" file_find_up '{"path": "src/main.rs", "name": "notes.txt"}' \
		file find-up src/main.rs notes.txt &&
	row ro ok "find up, nothing found" file_find_up '{"path": "src", "name": "absent.cfg"}' \
		file find-up src absent.cfg &&
	row ro ok "diff two files" file_diff '{"path": "notes.txt", "other": "docs/readme.md"}' \
		file diff notes.txt docs/readme.md &&
	row ro ok "diff identical files" file_diff '{"path": "notes.txt", "other": "inside-link.txt"}' \
		file diff notes.txt inside-link.txt &&
	row ro ok "diff cut at max_bytes" file_diff '{"path": "notes.txt", "other": "docs/readme.md", "max_bytes": 40}' \
		file diff notes.txt docs/readme.md --max-bytes 40 &&
	row ro ok "read bytes of a binary file" file_read_bytes '{"path": "blob.bin", "offset": 1, "length": 4}' \
		file read-bytes blob.bin --offset 1 --length 4 &&
	row ro ok "read bytes at the end of a file" file_read_bytes '{"path": "blob.bin", "offset": 10}' \
		file read-bytes blob.bin --offset 10 &&

	# cursors: a page's next_cursor is the same token from either surface, and a cursor one
	# surface issued continues on the other.
	c_list=$(keeper --json --root "$TPL" file list . --recursive --max-entries 2 | jq -r .next_cursor) &&
	c_search=$(keeper --json --root "$TPL" file search . "*" --max-results 2 | jq -r .next_cursor) &&
	c_grep=$(keeper --json --root "$TPL" file grep . a --max-results 2 | jq -r .next_cursor) &&
	c_history=$(keeper --json --root "$TPL" history list --limit 1 | jq -r .next_cursor) &&
	row ro ok "a truncated list gives its cursor" directory_list '{"path": ".", "recursive": true, "max_entries": 2}' \
		file list . --recursive --max-entries 2 &&
	row ro ok "list, the next page" directory_list "{\"path\": \".\", \"recursive\": true, \"max_entries\": 2, \"cursor\": \"$c_list\"}" \
		file list . --recursive --max-entries 2 --cursor "$c_list" &&
	row ro ok "search, the next page" file_search "{\"path\": \".\", \"pattern\": \"*\", \"max_results\": 2, \"cursor\": \"$c_search\"}" \
		file search . "*" --max-results 2 --cursor "$c_search" &&
	row ro ok "grep, the next page" content_search "{\"path\": \".\", \"query\": \"a\", \"max_results\": 2, \"cursor\": \"$c_grep\"}" \
		file grep . a --max-results 2 --cursor "$c_grep" &&
	row ro ok "history list, the next page" history_list "{\"limit\": 1, \"cursor\": \"$c_history\"}" \
		history list --limit 1 --cursor "$c_history" &&
	row ro INVALID_CURSOR "a list cursor given to a search" file_search "{\"path\": \".\", \"pattern\": \"*\", \"cursor\": \"$c_list\"}" \
		file search . "*" --cursor "$c_list" &&
	row ro INVALID_CURSOR "a garbled cursor" history_list '{"cursor": "not-a-cursor"}' \
		history list --cursor not-a-cursor &&

	# read refusals
	row ro PATH_NOT_FOUND "a missing path" file_read '{"path": "missing.txt"}' \
		file read missing.txt &&
	row ro PATH_OUTSIDE_WORKSPACE "a path with .." file_read '{"path": "src/../../outside/secret.txt"}' \
		file read src/../../outside/secret.txt &&
	row ro ABSOLUTE_PATH_OUTSIDE_WORKSPACE "an absolute path outside" file_read "{\"path\": \"$OUTSIDE/secret.txt\"}" \
		file read "$OUTSIDE/secret.txt" &&
	row ro SYMLINK_ESCAPE_REFUSED "a symlink escape" file_read '{"path": "escape.txt"}' \
		file read escape.txt &&
	row ro BINARY_CONTENT_REFUSED "a binary file" file_read '{"path": "blob.bin"}' \
		file read blob.bin &&
	row ro INVALID_ARGUMENT "a read range beyond the end" file_read '{"path": "notes.txt", "from_line": 2, "to_line": 9}' \
		file read notes.txt --from-line 2 --to-line 9 &&
	row ro NOT_A_DIRECTORY "listing a file" directory_list '{"path": "notes.txt"}' \
		file list notes.txt &&
	row ro INVALID_PATTERN "a bad glob" file_search '{"path": ".", "pattern": "[z"}' \
		file search . '[z' &&
	row ro ok "search content in a named encoding" content_search '{"path": ".", "query": "beta", "encoding": "latin1"}' \
		file grep . beta --encoding latin1 &&
	row ro INVALID_PATTERN "a bad regex" content_search '{"path": ".", "query": "(", "regex": true}' \
		file grep . '(' --regex &&
	row ro SYMLINK_ESCAPE_REFUSED "find up a link leading out" file_find_up '{"path": "src", "name": "escape.txt"}' \
		file find-up src escape.txt &&
	row ro INVALID_ARGUMENT "find up a name with a /" file_find_up '{"path": "src", "name": "a/b"}' \
		file find-up src a/b &&
	row ro PATH_IS_STATE_PATH "find up .filekeeper" file_find_up '{"path": "src", "name": ".filekeeper"}' \
		file find-up src .filekeeper &&
	row ro BINARY_CONTENT_REFUSED "diff a binary file" file_diff '{"path": "notes.txt", "other": "blob.bin"}' \
		file diff notes.txt blob.bin &&
	row ro NOT_A_FILE "diff a directory" file_diff '{"path": "docs", "other": "notes.txt"}' \
		file diff docs notes.txt &&
	row ro INVALID_ARGUMENT "read bytes beyond the end" file_read_bytes '{"path": "blob.bin", "offset": 11}' \
		file read-bytes blob.bin --offset 11 &&
	row ro NOT_A_FILE "read bytes of a directory" file_read_bytes '{"path": "docs"}' \
		file read-bytes docs &&
	row ro SYMLINK_ESCAPE_REFUSED "read bytes through a link leading out" file_read_bytes '{"path": "escape.txt"}' \
		file read-bytes escape.txt &&
	row ro OPERATION_NOT_FOUND "an unknown operation id" history_get '{"operation_id": "op_0123456789abcdef"}' \
		history show op_0123456789abcdef &&

	# limits
	row ro LIMIT_EXCEEDED "33 paths to read many" file_read_many "$(jq -nc '{paths: [range(33) | "notes.txt"]}')" \
		file read-many $(seq 1 33 | sed "s/.*/notes.txt/") &&
	row ro LIMIT_EXCEEDED "201 search results" file_search '{"path": ".", "pattern": "*", "max_results": 201}' \
		file search . '*' --max-results 201 &&
	row ro LIMIT_EXCEEDED "201 grep results" content_search '{"path": ".", "query": "a", "max_results": 201}' \
		file grep . a --max-results 201 &&
	row ro LIMIT_EXCEEDED "1001 directory entries" directory_list '{"path": ".", "max_entries": 1001}' \
		file list . --max-entries 1001 &&
	row ro LIMIT_EXCEEDED "read bytes above max_read_bytes" file_read_bytes '{"path": "blob.bin", "length": 5242881}' \
		file read-bytes blob.bin --length 5242881 &&
	row ro LIMIT_EXCEEDED "a diff bound above max_read_bytes" file_diff '{"path": "notes.txt", "other": "blob.bin", "max_bytes": 5242881}' \
		file diff notes.txt blob.bin --max-bytes 5242881 &&
	row ro LIMIT_EXCEEDED "201 history entries" history_list '{"limit": 201}' \
		history list --limit 201 &&
	row rw LIMIT_EXCEEDED "a patch over 1 MiB" file_apply_patch "$(patch_args "$TRASH/huge.patch")" \
		file apply-patch "$TRASH/huge.patch" &&

	# mutations
	row rw ok "create a file" file_create '{"path": "new.txt", "content": "new\n"}' \
		file create new.txt --content "new
" &&
	row rw ok "write with the current hash" file_write "{\"path\": \"notes.txt\", \"content\": \"v2\\n\", \"expected_hash\": \"$notes_hash\"}" \
		file write notes.txt --content "v2
" --expected-hash "$notes_hash" &&
	row rw ok "copy a file" file_copy '{"source": "notes.txt", "destination": "docs/copy.txt"}' \
		file copy notes.txt docs/copy.txt &&
	row rw ok "move a file" file_move '{"source": "docs/readme.md", "destination": "README.md"}' \
		file move docs/readme.md README.md &&
	row rw ok "delete a file" file_delete '{"path": "src/main.rs"}' \
		file delete src/main.rs &&
	row rw ok "create directories with parents" directory_create '{"path": "a/b/c", "parents": true}' \
		dir create a/b/c --parents &&
	row rw ok "replace text, all" file_replace_text '{"path": "notes.txt", "old": "a", "new": "A", "policy": "all"}' \
		file replace-text notes.txt --old a --new A --all &&
	row rw ok "replace lines" file_replace_lines '{"path": "notes.txt", "start": 2, "end": 3, "replacement": "two\n"}' \
		file replace-lines notes.txt --start 2 --end 3 --replacement "two
" &&
	row rw ok "insert lines at the end" file_insert_lines '{"path": "notes.txt", "position": "end", "content": "delta\n"}' \
		file insert-lines notes.txt --position end --content "delta
" &&
	row rw ok "delete lines" file_delete_lines '{"path": "notes.txt", "start": 1, "end": 1}' \
		file delete-lines notes.txt --start 1 --end 1 &&
	row rw ok "apply a patch" file_apply_patch "$(patch_args "$TRASH/good.patch")" \
		file apply-patch "$TRASH/good.patch" &&
	row rw ok "undo an operation" undo_operation "{\"operation_id\": \"$op_write\"}" \
		history undo "$op_write" &&

	# dry runs
	row rw ok "dry run of a write" file_write '{"path": "notes.txt", "content": "dry\n", "dry_run": true}' \
		file write notes.txt --content "dry
" --dry-run &&
	row rw ok "dry run of a line delete" file_delete_lines '{"path": "notes.txt", "start": 2, "end": 2, "dry_run": true}' \
		file delete-lines notes.txt --start 2 --end 2 --dry-run &&
	row rw ok "dry run of a patch" file_apply_patch "$(patch_args "$TRASH/good.patch" '{"dry_run": true}')" \
		file apply-patch "$TRASH/good.patch" --dry-run &&
	row rw ok "dry run of a recursive directory delete" directory_delete '{"path": "docs", "recursive": true, "dry_run": true}' \
		dir delete docs --recursive --confirm-recursive --dry-run &&

	# mutation refusals
	row rw SENSITIVE_PATH_REFUSED "a sensitive write" file_write '{"path": ".ssh/id_rsa", "content": "k"}' \
		file write .ssh/id_rsa --content k &&
	row rw CONTENT_CONFLICT "a stale hash" file_write "{\"path\": \"notes.txt\", \"content\": \"x\", \"expected_hash\": \"$ZERO_HASH\"}" \
		file write notes.txt --content x --expected-hash "$ZERO_HASH" &&
	row rw CONTENT_CONFLICT "a stale expected_content" file_replace_lines '{"path": "notes.txt", "start": 1, "end": 1, "replacement": "x\n", "expected_content": "not there\n"}' \
		file replace-lines notes.txt --start 1 --end 1 --replacement "x
" --expected-content "not there
" &&
	row rw NO_MATCH "a replace with no match" file_replace_text '{"path": "notes.txt", "old": "zeta", "new": "x", "policy": "first"}' \
		file replace-text notes.txt --old zeta --new x --first &&
	row rw MATCH_COUNT_MISMATCH "replace first of several" file_replace_text '{"path": "notes.txt", "old": "a", "new": "x", "policy": "first"}' \
		file replace-text notes.txt --old a --new x --first &&
	row rw NO_MATCH "a normalised replace that could keep either of two lines" file_replace_text '{"path": "src/twice.py", "old": "log()\nreturn\nreturn", "new": "return", "policy": "first"}' \
		file replace-text src/twice.py --old "log()
return
return" --new return --first &&
	row rw NO_MATCH "a normalised replace whose new text alone ends its line" file_replace_text '{"path": "src/end.txt", "old": "x()\n\ny()", "new": "x()\n", "policy": "first"}' \
		file replace-text src/end.txt --old "x()

y()" --new "x()
" --first &&
	row rw INVALID_ARGUMENT "an out-of-range line edit" file_replace_lines '{"path": "notes.txt", "start": 3, "end": 7, "replacement": "x\n"}' \
		file replace-lines notes.txt --start 3 --end 7 --replacement "x
" &&
	row rw INVALID_ARGUMENT "an insert before a missing line" file_insert_lines '{"path": "notes.txt", "position": "before", "line": 99, "content": "x\n"}' \
		file insert-lines notes.txt --position before --line 99 --content "x
" &&
	row rw ALREADY_EXISTS "create an existing file" file_create '{"path": "notes.txt", "content": "x"}' \
		file create notes.txt --content x &&
	row rw PATH_IS_STATE_PATH "write into .filekeeper" file_write '{"path": ".filekeeper/x", "content": "x"}' \
		file write .filekeeper/x --content x &&
	row rw NOT_A_FILE "file delete of a directory" file_delete '{"path": "docs"}' \
		file delete docs &&
	row rw SYMLINK_WRITE_REFUSED "write through a symlink" file_write '{"path": "inside-link.txt", "content": "x"}' \
		file write inside-link.txt --content x &&
	row rw PATCH_FAILED "a patch whose context does not match" file_apply_patch "$(patch_args "$TRASH/bad.patch")" \
		file apply-patch "$TRASH/bad.patch" &&
	row rw PATCH_FAILED "a patch cut short" file_apply_patch "$(patch_args "$TRASH/short.patch")" \
		file apply-patch "$TRASH/short.patch" &&
	row rw OPERATION_NOT_FOUND "undo of an unknown operation" undo_operation '{"operation_id": "op_0123456789abcdef"}' \
		history undo op_0123456789abcdef &&
	row rw SENSITIVE_PATH_REFUSED "undo last, a sensitive write, no override" undo_last '{}' \
		history undo-last &&
	row rw ok "undo a sensitive write with the override" undo_operation "{\"operation_id\": \"$op_secret\", \"i_accept_secret_write_risk\": true}" \
		history undo "$op_secret" --i-accept-secret-write-risk
}

test_expect_success 'setup: the template tree, with history, a symlink escape and patches' '
	mkdir -p "$TPL/src" "$TPL/docs" &&
	printf "alpha\nbeta\ngamma\n" >"$TPL/notes.txt" &&
	printf "fn main() {\n    println!(\"hi\");\n}\n" >"$TPL/src/main.rs" &&
	printf "# Read me\n" >"$TPL/docs/readme.md" &&
	printf "def f():\n    if x:\n        log()\n        return\n    return\n" >"$TPL/src/twice.py" &&
	printf "a:\n    x()\n\n    y()\nz()\n" >"$TPL/src/end.txt" &&
	printf "\000\001\002binary\n" >"$TPL/blob.bin" &&
	printf "secret\n" >"$OUTSIDE/secret.txt" &&
	ln -s "$OUTSIDE/secret.txt" "$TPL/escape.txt" &&
	ln -s notes.txt "$TPL/inside-link.txt" &&
	keeper --json --root "$TPL" --actor tpl-agent --task-id T-1 file write log.txt --content "v1
" | jq -r .operation_id >"$TRASH/op.write" &&
	keeper --json --root "$TPL" file write .env --content "K=1
" --i-accept-secret-write-risk | jq -r .operation_id >"$TRASH/op.secret" &&
	grep "^op_" "$TRASH/op.write" &&
	grep "^op_" "$TRASH/op.secret" &&
	cat >"$TRASH/good.patch" <<-\EOF &&
	--- a/notes.txt
	+++ b/notes.txt
	@@ -1,3 +1,3 @@
	 alpha
	-beta
	+BETA
	 gamma
	EOF
	cat >"$TRASH/bad.patch" <<-\EOF &&
	--- a/notes.txt
	+++ b/notes.txt
	@@ -1,3 +1,3 @@
	 alpha
	-not what is there
	+BETA
	 gamma
	EOF
	cat >"$TRASH/short.patch" <<-\EOF &&
	--- a/notes.txt
	+++ b/notes.txt
	@@ -1,3 +1,3 @@
	 alpha
	-beta
	EOF
	{
		printf -- "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-alpha\n+" &&
		head -c 1048576 /dev/zero | tr "\\000" y &&
		printf "\n"
	} >"$TRASH/huge.patch"
'

test_expect_success 'setup: the table of requests' '
	define_rows &&
	test "$(wc -l <"$ROWS")" -ge 20 &&
	jq -e -s "all(.[]; (.cli | length) > 0)" "$ROWS"
'

test_expect_success 'every request runs through keeper --json (each mutation in its own copy)' '
	jq -r ".mode" "$ROWS" >modes &&
	i=0 &&
	while read -r mode
	do
		i=$((i + 1)) &&
		root=$TPL &&
		if test "$mode" = rw
		then
			cp -a "$TPL" "$TRASH/cli-$i" &&
			cp -a "$TPL" "$TRASH/mcp-$i" &&
			root=$TRASH/cli-$i
		fi &&
		sed -n "${i}p" "$ROWS" | jq -j ".cli[] + \"\\u0000\"" >argv &&
		{ xargs -0 keeper --json --root "$root" <argv >"$TRASH/cli-$i.json"; code=$?; } &&
		if test $code -ge 124
		then
			echo >&2 "keeper died on request $i: $(sed -n "${i}p" "$ROWS")"
			exit 1
		fi &&
		cat "$TRASH/cli-$i.json" >>"$TRASH/cli.jsonl" ||
		exit 1
	done <modes &&
	jq -s -e "length == $i and all(.[]; type == \"object\" and (.ok | type == \"boolean\"))" \
		"$TRASH/cli.jsonl" >/dev/null
'

test_expect_success 'every request runs through the MCP server (each mutation in its own copy)' '
	jq -c -s --arg trash "$TRASH" --arg tpl "$TPL" "to_entries[] | .key as \$k | .value |
		{tool, arguments, root: (if .mode == \"rw\" then \"\(\$trash)/mcp-\(\$k + 1)\" else \$tpl end)}" \
		"$ROWS" >"$TRASH/mcp.req" &&
	timeout 120 "$PY" "$MCP/call.py" "$TPL" <"$TRASH/mcp.req" >"$TRASH/mcp.jsonl" &&
	test "$(wc -l <"$TRASH/mcp.jsonl")" -eq "$(wc -l <"$ROWS")" &&
	jq -c .structured "$TRASH/mcp.jsonl" >"$TRASH/mcp-docs.jsonl" &&
	jq -s -e "all(.[]; type == \"object\" and (.ok | type == \"boolean\"))" "$TRASH/mcp-docs.jsonl"
'

# JQ_COMPARE: jq definitions for comparing the two surfaces' documents. norm sets operation ids
# (new per copy) and timestamps aside; core is what must agree: for a success every result
# field, for a failure ok, code, retryable and details (of the recovery hint, each surface words
# its own; only whether there is one must agree).
JQ_COMPARE='
def norm: walk(if type == "object" then del(.operation_id, .created_at, .updated_at) else . end) |
	walk(if type == "string" then gsub("op_[0-9a-f]{16}"; "op_ID") else . end);
def outcome: if .ok == true then "ok" elif .ok == false then .error.code else "(no document)" end;
def core: if .ok == true then norm
	else {ok, code: .error.code, retryable: .error.retryable,
		details: (.error.details | if has("recovery") then .recovery = "(worded per surface)" else . end)} |
		norm end;
def pairs: [$rows, $cli, $mcp] | transpose | to_entries[] |
	{i: (.key + 1), row: .value[0], cli: .value[1], mcp: .value[2]};
'

# compare_all JQ-FILTER: runs JQ-FILTER over every request as {i, row, cli, mcp}.
compare_all () {
	jq -n -r --slurpfile rows "$ROWS" --slurpfile cli "$TRASH/cli.jsonl" \
		--slurpfile mcp "$TRASH/mcp-docs.jsonl" "$JQ_COMPARE $1"
}

test_expect_success 'the parity table: both surfaces agree on every request' '
	compare_all "pairs |
		(.cli | outcome) as \$c | (.mcp | outcome) as \$m |
		(if \$c != \$m then \"outcome differs\"
		 elif (.cli | core) != (.mcp | core) then
			(if \$c == \"ok\" then \"result fields differ\" else \"error details differ\" end)
		 elif \$c != .row.expect then \"expected \(.row.expect)\"
		 else \"same\" end) as \$verdict |
		[.row.name, \$c, \$m, \$verdict] | @tsv" >"$TRASH/table" &&
	test "$(wc -l <"$TRASH/table")" -eq "$(wc -l <"$ROWS")" &&
	awk -F "\t" "\$4 != \"same\"" "$TRASH/table" >differences &&
	test_line_count = 0 differences
'

test_expect_success 'the normalised stage refuses for the same reason on both surfaces' '
	compare_all "pairs | select(.row.name | startswith(\"a normalised replace\")) |
		\"\(.cli.error.details.reason) \(.mcp.error.details.reason)\"" >reasons &&
	printf "pairing_ambiguous pairing_ambiguous\nfinal_line_end final_line_end\n" >expect &&
	test_cmp expect reasons
'

{
	printf "# %-46s %-32s %-32s %s\n" "request" "keeper --json" "filekeeper-mcp" "verdict"
	while IFS="	" read -r name c m verdict
	do
		printf "# %-46s %-32s %-32s %s\n" "$name" "$c" "$m" "$verdict"
	done <"$TRASH/table"
} 2>/dev/null

# show_differences KIND: for every request whose two documents are both KIND (true for
# successes, false for failures) but whose cores differ, the request and a diff of the cores.
show_differences () {
	compare_all "pairs | select(.cli.ok == $1 and .mcp.ok == $1 and (.cli | core) != (.mcp | core)) | .i" >differing &&
	while read -r i
	do
		sed -n "${i}p" "$ROWS" | jq -c "{name, tool, arguments, cli}" &&
		compare_all "pairs | select(.i == $i) | .cli | core" >cli.core &&
		compare_all "pairs | select(.i == $i) | .mcp | core" >mcp.core &&
		{ diff -u cli.core mcp.core || true; }
	done <differing
}

test_expect_success 'successes agree on every result field, operation ids and timestamps aside' '
	show_differences true >differences &&
	test_line_count = 0 differences
'

test_expect_success 'failures agree on code, retryable and details' '
	show_differences false >differences &&
	test_line_count = 0 differences
'

test_expect_success 'every failure through either surface is exactly the failure envelope' '
	cat "$TRASH/cli.jsonl" "$TRASH/mcp-docs.jsonl" |
	jq -c "select(.ok == false) | select(
		(keys_unsorted == [\"ok\", \"error\"]) and
		(.error | keys_unsorted == [\"code\", \"message\", \"retryable\", \"details\"]) and
		(.error.retryable | type == \"boolean\") and (.error.details | type == \"object\") | not)" \
		>not-envelopes &&
	test_line_count = 0 not-envelopes
'

test_expect_success 'the MCP tool error flag matches ok for every request' '
	jq -e -s "all(.[]; .is_error == (.structured.ok == false))" "$TRASH/mcp.jsonl"
'

test_expect_success 'mutations left the two copies of each request identical' '
	n=$(wc -l <"$ROWS") &&
	for i in $(seq 1 $n)
	do
		if test -d "$TRASH/cli-$i"
		then
			diff -r --no-dereference -x .filekeeper "$TRASH/cli-$i" "$TRASH/mcp-$i" || exit 1
		fi
	done
'

test_expect_success 'the sensitive-write refusal names each surface'"'"'s own override' '
	i=$(jq -s "map(.name) | index(\"a sensitive write\") + 1" "$ROWS") &&
	json_get .error.message "$TRASH/cli-$i.json" >cli.msg &&
	sed -n "${i}p" "$TRASH/mcp-docs.jsonl" | jq -r .error.message >mcp.msg &&
	grep -F -e "--i-accept-secret-write-risk" cli.msg &&
	! grep -F i_accept_secret_write_risk cli.msg &&
	grep -F i_accept_secret_write_risk mcp.msg &&
	! grep -F -e "--i-accept" mcp.msg
'

test_expect_success 'a refusal with a recovery hint names each surface'"'"'s own command or tool' '
	i=$(jq -s "map(.name) | index(\"create an existing file\") + 1" "$ROWS") &&
	json_get .error.details.recovery "$TRASH/cli-$i.json" >cli.hint &&
	sed -n "${i}p" "$TRASH/mcp-docs.jsonl" | jq -r .error.details.recovery >mcp.hint &&
	grep -F -e "--allow-existing" cli.hint &&
	grep -F "keeper file write" cli.hint &&
	grep -F "allow_existing" mcp.hint &&
	grep -F "file_write" mcp.hint &&
	! grep -F -e "--" -e "keeper " mcp.hint
'

test_expect_success 'no MCP response carries a host path beyond the absolute path the caller gave' '
	jq -c "select([.arguments | .. | strings | select(startswith(\"/\"))] | length == 0)" \
		"$TRASH/mcp.jsonl" >relative-responses &&
	test "$(wc -l <relative-responses)" -ge 20 &&
	test_no_host_path relative-responses
'

test_done
