#!/bin/sh
test_description='filekeeper-mcp driven by the official Python MCP SDK, as an agent host would

list_tools returns exactly the 25 tools of the specification, each with a description, an
object input schema and honest annotations (readOnlyHint exactly for the 11 read-only tools,
openWorldHint false everywhere, dry_run on every mutation). A realistic agent session -- read,
an edit guarded by the read'"'"'s content_hash, a stale-hash CONTENT_CONFLICT, a refused and then a
deliberately accepted sensitive write, a two-file patch, history with the server'"'"'s --actor and
--task-id, undo of the patch, undo_last -- behaves as the CLI does, and every change'"'"'s reply
shows its diff (the two-file patch'"'"'s diffs are the patch itself). dry_run changes nothing.
Every failure is a tool error whose structured content is exactly ok and error{code, message,
retryable, details} with the caller'"'"'s path in details.path, and no response carries a host path.
Every limit refuses with LIMIT_EXCEEDED instead of truncating. Concurrent requests through one
session are safe: guarded increments of one counter either win or get CONTENT_CONFLICT.'
. ./test-lib.sh

test_require_prereq MCP_SDK
OUT=$TRASH/transcript
mkdir -p "$OUT"

READ_ONLY="workspace_list workspace_info workspace_status file_read file_read_many directory_list file_info
file_find_up file_diff file_read_bytes
file_search content_search history_list history_get history_diff"
MUTATING="file_create file_write file_copy file_move file_delete directory_create
directory_delete file_replace_text file_replace_lines file_insert_lines file_delete_lines
file_apply_patch undo_operation undo_last"

# words LIST: the whitespace-separated words of LIST, one per line, sorted.
words () {
	printf "%s\n" $1 | LC_ALL=C sort
}

# step NAME: the agent session transcript file of step NAME.
step () {
	echo "$OUT"/agent/[0-9][0-9]-"$1".json
}

# calls ROOT OUTFILE [call.py options]: runs the requests on stdin (JSON lines) through one
# session serving ROOT; the responses (JSON lines) go to OUTFILE.
calls () {
	root=$1 outfile=$2
	shift 2
	timeout 60 "$PY" "$MCP/call.py" "$@" "$root" >"$outfile"
}

# req TOOL ARGUMENTS-JSON: one request line for call.py.
req () {
	jq -nc --arg tool "$1" --argjson arguments "$2" "{tool: \$tool, arguments: \$arguments}"
}

# nth N FILE: the structured content of response N (1-based) in FILE.
nth () {
	sed -n "$1p" "$2" | jq .structured
}

# tool_refused N CODE FILE: response N of FILE is a tool error with a CODE failure document
# (left in refused.json).
tool_refused () {
	sed -n "$1p" "$3" >refused.response &&
	json_get ".is_error == true" refused.response >/dev/null &&
	jq .structured refused.response >refused.json &&
	test_error_code "$2" refused.json
}

test_expect_success 'setup: the agent tree, its originals and a two-file patch' '
	mkdir -p "$TRASH/agent/src" "$TRASH/orig" &&
	printf "# Notes\n\n- alpha\n- beta\n" >"$TRASH/agent/notes.md" &&
	printf "def main():\n    return 1\n" >"$TRASH/agent/src/app.py" &&
	printf "def helper():\n    return 2\n" >"$TRASH/agent/src/util.py" &&
	cp "$TRASH/agent/notes.md" "$TRASH/agent/src/app.py" "$TRASH/agent/src/util.py" "$TRASH/orig/" &&
	printf "# Notes\n\n- alpha\n- gamma\n" >"$TRASH/orig/notes.edited" &&
	cat >"$TRASH/two-files.patch" <<-\EOF
	--- a/src/app.py
	+++ b/src/app.py
	@@ -1,2 +1,2 @@
	 def main():
	-    return 1
	+    return 10
	--- a/src/util.py
	+++ b/src/util.py
	@@ -1,2 +1,2 @@
	 def helper():
	-    return 2
	+    return 20
	EOF
'

# Tools

test_expect_success 'list_tools through the SDK' '
	timeout 60 "$PY" "$MCP/client_session.py" tools "$OUT/tools.json"
'

test_expect_success 'list_tools returns exactly the 29 tools: the 25 of the specification, three reads and workspace_status' '
	words "$READ_ONLY $MUTATING" >expect &&
	jq -r ".[].name" "$OUT/tools.json" | LC_ALL=C sort >actual &&
	test_cmp expect actual &&
	test_line_count = 29 actual
'

test_expect_success 'every tool has a description and an input schema of type object' '
	jq -e "all(.[]; (.description | type == \"string\" and length > 20) and
		.inputSchema.type == \"object\" and (.inputSchema.properties | type == \"object\") and
		((.inputSchema.required // []) - (.inputSchema.properties | keys) == []))" \
		"$OUT/tools.json"
'

test_expect_success 'readOnlyHint is true exactly for the 11 read-only tools' '
	words "$READ_ONLY" >expect &&
	jq -r ".[] | select(.annotations.readOnlyHint == true) | .name" "$OUT/tools.json" |
		LC_ALL=C sort >actual &&
	test_cmp expect actual &&
	jq -e "all(.[]; .annotations.readOnlyHint | type == \"boolean\")" "$OUT/tools.json"
'

test_expect_success 'openWorldHint is false for every tool' '
	jq -e "length == 29 and all(.[]; .annotations.openWorldHint == false)" "$OUT/tools.json"
'

test_expect_success 'read-only tools are not destructive; deleting, moving and overwriting tools are' '
	jq -e "all(.[] | select(.annotations.readOnlyHint); .annotations.destructiveHint == false)" \
		"$OUT/tools.json" &&
	for t in file_write file_move file_delete directory_delete file_create file_copy
	do
		jq -e --arg t $t ".[] | select(.name == \$t) | .annotations.destructiveHint == true" \
			"$OUT/tools.json" || exit 1
	done
'

test_expect_success 'every mutating tool takes dry_run; no read-only tool does' '
	for t in $MUTATING
	do
		jq -e --arg t $t ".[] | select(.name == \$t) | .inputSchema.properties.dry_run.type == \"boolean\"" \
			"$OUT/tools.json" || exit 1
	done &&
	jq -e "all(.[] | select(.annotations.readOnlyHint); .inputSchema.properties.dry_run == null)" \
		"$OUT/tools.json"
'

test_expect_success 'the write tools take i_accept_secret_write_risk, named as in the spec' '
	for t in file_create file_write file_copy file_move file_delete file_replace_text \
		file_replace_lines file_insert_lines file_delete_lines file_apply_patch
	do
		jq -e --arg t $t ".[] | select(.name == \$t) |
			.inputSchema.properties.i_accept_secret_write_risk.type == \"boolean\"" \
			"$OUT/tools.json" || exit 1
	done
'

# A realistic agent session

test_expect_success 'the agent session runs through the SDK' '
	timeout 60 "$PY" "$MCP/client_session.py" agent "$TRASH/agent" "$TRASH/two-files.patch" "$OUT/agent"
'

test_expect_success 'file_read returns the content and its content_hash' '
	f=$(step read) &&
	json_get ".is_error == false and .structured.ok == true" "$f" &&
	test "$(jq -r .structured.content "$f")" = "$(cat "$TRASH/orig/notes.md")" &&
	test "$(jq -r .structured.content_hash "$f")" = "$(sha "$TRASH/orig/notes.md")"
'

test_expect_success 'file_replace_text with expected_hash applies: ok, operation_id, undo_available' '
	f=$(step edit) &&
	json_get ".is_error == false and .structured.ok == true" "$f" &&
	json_get ".structured.operation_id | test(\"^op_[0-9a-f]{16}$\")" "$f" &&
	json_get ".structured.undo_available == true and .structured.match_stage == \"exact\"" "$f" &&
	test "$(jq -r .structured.before_hash "$f")" = "$(sha "$TRASH/orig/notes.md")" &&
	test "$(jq -r .structured.after_hash "$f")" = "$(sha "$TRASH/orig/notes.edited")"
'

test_expect_success 'the edit'"'"'s reply shows its diff, in the structured content and in the text' '
	f=$(step edit) &&
	printf "%s\n" "--- a/notes.md" "+++ b/notes.md" "@@ -1,4 +1,4 @@" " # Notes" " " " - alpha" \
		"-- beta" "+- gamma" >expect &&
	jq -j ".structured.diffs[0].diff" "$f" >actual &&
	test_cmp expect actual &&
	json_get ".structured.diffs | length == 1" "$f" &&
	json_get ".structured.diffs[0] | .path == \"notes.md\" and .diff_kind == \"text\" and
		.lines_added == 1 and .lines_removed == 1" "$f" &&
	json_get ".structured.diff_truncated == false" "$f" &&
	json_get ".structured.diffs[0].diff as \$d | .text | contains(\$d)" "$f"
'

test_expect_success 'a stale expected_hash is a tool error: CONTENT_CONFLICT, not retryable' '
	f=$(step stale) &&
	json_get ".is_error == true" "$f" &&
	jq .structured "$f" >stale.json &&
	test_error_code CONTENT_CONFLICT stale.json &&
	json_get ".error.retryable == false and .error.details.path == \"notes.md\"" stale.json &&
	test "$(jq -r .error.details.expected_hash stale.json)" = "$(sha "$TRASH/orig/notes.md")" &&
	test "$(jq -r .error.details.actual_hash stale.json)" = "$(sha "$TRASH/orig/notes.edited")"
'

test_expect_success 'the stale edit changed nothing: notes.md holds the guarded edit' '
	test_cmp "$TRASH/orig/notes.edited" "$TRASH/agent/notes.md"
'

test_expect_success 'a sensitive write is refused with a message naming i_accept_secret_write_risk, not the CLI flag' '
	f=$(step secret-refused) &&
	jq .structured "$f" >secret.json &&
	test_error_code SENSITIVE_PATH_REFUSED secret.json &&
	json_get ".error.details.path == \".env\" and .error.retryable == false" secret.json &&
	json_get ".error.message" secret.json >message &&
	grep -F i_accept_secret_write_risk message &&
	! grep -F -e "--i-accept" message &&
	! grep -F -e "allow_sensitive_write" message
'

test_expect_success 'the same write with i_accept_secret_write_risk true succeeds' '
	f=$(step secret-accepted) &&
	json_get ".is_error == false and .structured.ok == true" "$f" &&
	printf "TOKEN=abc\n" >env.expect &&
	test "$(jq -r .structured.after_hash "$f")" = "$(sha env.expect)" &&
	json_get ".structured.operation_id | test(\"^op_\")" "$f"
'

test_expect_success 'file_apply_patch applies a two-file patch as one operation' '
	f=$(step patch) &&
	json_get ".is_error == false and .structured.ok == true and .structured.undo_available == true" "$f" &&
	test "$(jq -r "[.structured.items[].path] | join(\" \")" "$f")" = "src/app.py src/util.py" &&
	json_get "[.structured.patch_files[].status] == [\"applies\", \"applies\"]" "$f"
'

test_expect_success 'the patch'"'"'s reply shows each file'"'"'s diff: together, the patch itself' '
	f=$(step patch) &&
	test "$(jq -r "[.structured.diffs[].path] | join(\" \")" "$f")" = "src/app.py src/util.py" &&
	jq -j "[.structured.diffs[].diff] | join(\"\")" "$f" >actual &&
	test_cmp "$TRASH/two-files.patch" actual
'

test_expect_success 'history_list shows the operations newest first with the server'"'"'s actor and task id' '
	f=$(step history) &&
	json_get ".structured.ok == true" "$f" &&
	test "$(jq -r "[.structured.operations[].kind] | join(\" \")" "$f")" = "apply_patch write replace_text" &&
	json_get "all(.structured.operations[]; .actor == \"agent-7\" and .task_id == \"T-42\")" "$f" &&
	test "$(jq -r ".structured.operations[0].id" "$f")" = "$(jq -r .structured.operation_id "$(step patch)")"
'

test_expect_success 'history_list filters by actor and task id' '
	test "$(jq ".structured.operations | length" "$(step history-filtered)")" = 3 &&
	test "$(jq ".structured.operations | length" "$(step history-other-task)")" = 0
'

test_expect_success 'undo_operation of the patch succeeds and restores both files' '
	f=$(step undo-patch) &&
	json_get ".is_error == false and .structured.ok == true" "$f" &&
	json_get ".structured.operation_id | test(\"^op_\")" "$f" &&
	test "$(jq -r .structured.content "$(step read-app)")" = "$(cat "$TRASH/orig/app.py")" &&
	test "$(jq -r .structured.content "$(step read-util)")" = "$(cat "$TRASH/orig/util.py")" &&
	test_cmp "$TRASH/orig/app.py" "$TRASH/agent/src/app.py" &&
	test_cmp "$TRASH/orig/util.py" "$TRASH/agent/src/util.py"
'

test_expect_success 'the undo'"'"'s reply shows the patch reversed' '
	f=$(step undo-patch) &&
	printf "%s\n" "--- a/src/app.py" "+++ b/src/app.py" "@@ -1,2 +1,2 @@" " def main():" \
		"-    return 10" "+    return 1" >expect &&
	jq -j ".structured.diffs[0].diff" "$f" >actual &&
	test_cmp expect actual &&
	json_get "[.structured.diffs[].diff_kind] == [\"text\", \"text\"]" "$f"
'

test_expect_success 'undo_last undoes the newest operation (the append)' '
	json_get ".structured.ok == true" "$(step append)" &&
	f=$(step undo-last) &&
	json_get ".is_error == false and .structured.ok == true" "$f" &&
	append_op=$(jq -r .structured.operation_id "$(step append)") &&
	json_get ".structured.summary" "$f" | grep -F "$append_op" &&
	test "$(jq -r .structured.after_hash "$f")" = "$(sha "$TRASH/orig/notes.edited")"
'

test_expect_success 'undo_last of the sensitive write is refused, naming i_accept_secret_write_risk' '
	f=$(step undo-last-secret-refused) &&
	jq .structured "$f" >undo-secret.json &&
	test_error_code SENSITIVE_PATH_REFUSED undo-secret.json &&
	json_get ".error.message" undo-secret.json | grep -F i_accept_secret_write_risk
'

test_expect_success 'undo_last takes the override its refusal names, and then removes .env' '
	f=$(step undo-last-secret-accepted) &&
	json_get ".is_error == false and .structured.ok == true" "$f" || {
		cat "$f"
		exit 1
	} &&
	test ! -e "$TRASH/agent/.env"
'

test_expect_success 'at the end notes.md holds the guarded edit and the sources their originals' '
	test_cmp "$TRASH/orig/notes.edited" "$TRASH/agent/notes.md" &&
	test_cmp "$TRASH/orig/app.py" "$TRASH/agent/src/app.py" &&
	test_cmp "$TRASH/orig/util.py" "$TRASH/agent/src/util.py"
'

# Failures, as an agent sees them

test_expect_success 'setup: a symlink leaving the workspace, and refused requests of every kind' '
	printf "secret\n" >"$OUTSIDE/secret.txt" &&
	ln -s "$OUTSIDE/secret.txt" "$TRASH/agent/escape.txt" &&
	{
		req file_read "{\"path\": \"missing.txt\"}" &&
		req file_read "{\"path\": \"../outside/secret.txt\"}" &&
		req file_read "{\"path\": \"/etc/passwd\"}" &&
		req file_read "{\"path\": \"escape.txt\"}" &&
		req file_info "{\"path\": \"src/nothing\"}" &&
		req file_write "{\"path\": \"keys/server.pem\", \"content\": \"k\"}" &&
		req file_write "{\"path\": \"notes.md\", \"content\": \"x\", \"expected_hash\": \"sha256:0000000000000000000000000000000000000000000000000000000000000000\"}" &&
		req file_replace_text "{\"path\": \"notes.md\", \"old\": \"no such text\", \"new\": \"x\", \"policy\": \"first\"}" &&
		req file_replace_lines "{\"path\": \"notes.md\", \"start\": 9, \"end\": 12, \"replacement\": \"x\"}" &&
		req file_delete_lines "{\"path\": \"src/app.py\", \"start\": 2, \"end\": 1}" &&
		req file_create "{\"path\": \"notes.md\", \"content\": \"x\"}" &&
		req file_copy "{\"source\": \"missing.txt\", \"destination\": \"copy.txt\"}" &&
		req file_delete "{\"path\": \"src\"}" &&
		req directory_list "{\"path\": \"notes.md\"}" &&
		req directory_delete "{\"path\": \"src\"}" &&
		req file_search "{\"path\": \".\", \"pattern\": \"[\"}" &&
		req content_search "{\"path\": \".\", \"query\": \"(\", \"regex\": true}" &&
		req file_write "{\"path\": \".filekeeper/journal.sqlite3\", \"content\": \"x\"}" &&
		req history_get "{\"operation_id\": \"op_0123456789abcdef\"}" &&
		req undo_operation "{\"operation_id\": \"op_0123456789abcdef\"}" &&
		req file_apply_patch "{\"patch\": \"this is not a patch\"}"
	} >failures.req &&
	calls "$TRASH/agent" "$OUT/failures.jsonl" <failures.req &&
	test_line_count = 21 "$OUT/failures.jsonl"
'

test_expect_success 'every refused request is a tool error with a failure document' '
	jq -c "select(.is_error != true or .structured.ok != false) | .arguments" "$OUT/failures.jsonl" >not-refused &&
	test_line_count = 0 not-refused
'

test_expect_success 'the refusals carry their stable codes' '
	cat >expect <<-\EOF &&
	PATH_NOT_FOUND
	PATH_OUTSIDE_WORKSPACE
	ABSOLUTE_PATH_OUTSIDE_WORKSPACE
	SYMLINK_ESCAPE_REFUSED
	PATH_NOT_FOUND
	SENSITIVE_PATH_REFUSED
	CONTENT_CONFLICT
	NO_MATCH
	INVALID_ARGUMENT
	INVALID_ARGUMENT
	ALREADY_EXISTS
	PATH_NOT_FOUND
	NOT_A_FILE
	NOT_A_DIRECTORY
	INVALID_ARGUMENT
	INVALID_PATTERN
	INVALID_PATTERN
	PATH_IS_STATE_PATH
	OPERATION_NOT_FOUND
	OPERATION_NOT_FOUND
	PATCH_FAILED
	EOF
	jq -r ".structured.error.code" "$OUT/failures.jsonl" >actual &&
	test_cmp expect actual
'

# Dry runs

test_expect_success 'setup: a tree for dry runs, with one recorded operation' '
	D=$TRASH/dry &&
	mkdir -p "$D/dir" "$D/empty" &&
	printf "one\ntwo\nthree\n" >"$D/a.txt" &&
	printf "x\n" >"$D/dir/b.txt" &&
	req file_write "{\"path\": \"a.txt\", \"content\": \"one\\ntwo\\nthree\\nfour\\n\"}" |
		calls "$D" dry-setup.jsonl &&
	nth 1 dry-setup.jsonl >setup.json &&
	json_get ".ok == true" setup.json &&
	json_get .operation_id setup.json >"$TRASH/dry.op"
'

test_expect_success 'dry_run on every mutating tool changes nothing and records nothing' '
	D=$TRASH/dry &&
	op=$(cat "$TRASH/dry.op") &&
	tree_state "$D" >before &&
	{
		req file_create "{\"path\": \"new.txt\", \"content\": \"n\\n\", \"dry_run\": true}" &&
		req file_write "{\"path\": \"a.txt\", \"content\": \"changed\\n\", \"dry_run\": true}" &&
		req file_copy "{\"source\": \"a.txt\", \"destination\": \"c.txt\", \"dry_run\": true}" &&
		req file_move "{\"source\": \"a.txt\", \"destination\": \"m.txt\", \"dry_run\": true}" &&
		req file_delete "{\"path\": \"a.txt\", \"dry_run\": true}" &&
		req directory_create "{\"path\": \"newdir\", \"dry_run\": true}" &&
		req directory_delete "{\"path\": \"dir\", \"recursive\": true, \"dry_run\": true}" &&
		req file_replace_text "{\"path\": \"a.txt\", \"old\": \"two\", \"new\": \"TWO\", \"policy\": \"all\", \"dry_run\": true}" &&
		req file_replace_lines "{\"path\": \"a.txt\", \"start\": 1, \"end\": 2, \"replacement\": \"r\\n\", \"dry_run\": true}" &&
		req file_insert_lines "{\"path\": \"a.txt\", \"position\": \"end\", \"content\": \"e\\n\", \"dry_run\": true}" &&
		req file_delete_lines "{\"path\": \"a.txt\", \"start\": 1, \"end\": 1, \"dry_run\": true}" &&
		jq -nc "{tool: \"file_apply_patch\", arguments: {patch: \"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+deux\n three\n\", dry_run: true}}" &&
		req undo_operation "{\"operation_id\": \"$op\", \"dry_run\": true}" &&
		req undo_last "{\"dry_run\": true}"
	} | calls "$D" "$OUT/dry-runs.jsonl" &&
	tree_state "$D" >after &&
	test_cmp before after &&
	test_line_count = 14 "$OUT/dry-runs.jsonl"
'

test_expect_success 'every dry run succeeds as a preview: dry_run true, changed false, no operation_id, no after_hash' '
	jq -c "select(.structured.ok != true or .structured.dry_run != true or
		.structured.changed != false or .structured.operation_id != null or
		.structured.after_hash != null or (.structured.would_change | type != \"boolean\")) |
		{tool, structured}" "$OUT/dry-runs.jsonl" >not-previews &&
	test_line_count = 0 not-previews
'

test_expect_success 'a dry run of a content edit predicts the hash and shows a diff' '
	sed -n 2p "$OUT/dry-runs.jsonl" >dry-write.json &&
	printf "changed\n" >changed.expect &&
	test "$(jq -r .structured.predicted_after_hash dry-write.json)" = "$(sha changed.expect)" &&
	json_get ".structured.preview_diff | test(\"[+]changed\")" dry-write.json
'

# Limits

test_expect_success 'setup: a tree with more files, lines and entries than any bound' '
	L=$TRASH/limits &&
	mkdir -p "$L/many" &&
	(cd "$L/many" && seq 1 1005 | sed "s/^/f/; s/$/.txt/" | xargs touch) &&
	seq 1 250 | sed "s/^/match line /" >"$L/lines.txt" &&
	printf "old\n" >"$L/target.txt" &&
	for i in $(seq 1 205)
	do
		printf "%s\n" "f$i.txt" || exit 1
	done >"$L/names" &&
	{
		printf -- "--- a/target.txt\n+++ b/target.txt\n@@ -1 +1 @@\n-old\n+" &&
		head -c 1048576 /dev/zero | tr "\\000" y &&
		printf "\n"
	} >"$TRASH/huge.patch" &&
	{
		printf -- "--- a/target.txt\n+++ b/target.txt\n@@ -1 +1 @@\n-old\n+" &&
		head -c 1000000 /dev/zero | tr "\\000" y &&
		printf "\n"
	} >"$TRASH/under.patch" &&
	test "$(wc -c <"$TRASH/huge.patch")" -gt 1048576 &&
	test "$(wc -c <"$TRASH/under.patch")" -lt 1048576 &&
	keeper --root "$L" file write target.txt --content "old
" >/dev/null
'

test_expect_success 'every limit refuses one above it with LIMIT_EXCEEDED' '
	L=$TRASH/limits &&
	tree_state "$L" >before &&
	{
		head -n 33 "$L/names" | sed "s|^|many/|" | jq -R . | jq -sc "{tool: \"file_read_many\", arguments: {paths: .}}" &&
		jq -nc --rawfile p "$TRASH/huge.patch" "{tool: \"file_apply_patch\", arguments: {patch: \$p}}" &&
		req content_search "{\"path\": \".\", \"query\": \"match\", \"max_results\": 201}" &&
		req file_search "{\"path\": \".\", \"pattern\": \"*.txt\", \"max_results\": 201}" &&
		req directory_list "{\"path\": \"many\", \"max_entries\": 1001}" &&
		req history_list "{\"limit\": 201}"
	} | calls "$L" "$OUT/limits.jsonl" &&
	tree_state "$L" >after &&
	test_cmp before after &&
	for n in 1 2 3 4 5 6
	do
		tool_refused $n LIMIT_EXCEEDED "$OUT/limits.jsonl" || exit 1
	done
'

test_expect_success 'the limit refusals say what the limit is' '
	jq -e -s "[.[].structured.error.details.limit] == [32, 1048576, 200, 200, 1000, 200]" \
		"$OUT/limits.jsonl"
'

test_expect_success 'a request exactly at each limit is served' '
	L=$TRASH/limits &&
	{
		head -n 32 "$L/names" | sed "s|^|many/|" | jq -R . | jq -sc "{tool: \"file_read_many\", arguments: {paths: .}}" &&
		jq -nc --rawfile p "$TRASH/under.patch" "{tool: \"file_apply_patch\", arguments: {patch: \$p, dry_run: true}}" &&
		req content_search "{\"path\": \".\", \"query\": \"match\", \"max_results\": 200}" &&
		req file_search "{\"path\": \".\", \"pattern\": \"*.txt\", \"max_results\": 200}" &&
		req directory_list "{\"path\": \"many\", \"max_entries\": 1000}" &&
		req history_list "{\"limit\": 200}"
	} | calls "$L" "$OUT/at-limits.jsonl" &&
	jq -c "select(.structured.ok != true) | {tool, error: .structured.error}" "$OUT/at-limits.jsonl" >not-served &&
	test_line_count = 0 not-served &&
	test "$(nth 1 "$OUT/at-limits.jsonl" | jq ".results | length")" = 32
'

test_expect_success 'more matches than max_results is reported as truncated, never silently cut' '
	nth 3 "$OUT/at-limits.jsonl" >grep.json &&
	json_get ".truncated == true and (.matches | length) == 200" grep.json &&
	nth 4 "$OUT/at-limits.jsonl" >search.json &&
	json_get ".truncated == true and (.entries | length) == 200" search.json &&
	nth 5 "$OUT/at-limits.jsonl" >list.json &&
	json_get ".truncated == true and (.entries | length) == 1000" list.json
'

# Concurrency

test_expect_success 'setup: a counter file' '
	mkdir "$TRASH/conc" &&
	printf "0\n" >"$TRASH/conc/counter.txt"
'

test_expect_success '20 concurrent guarded increments through one session' '
	timeout 60 "$PY" "$MCP/client_session.py" concurrent "$TRASH/conc" counter.txt 20 "$OUT/increments.json"
'

test_expect_success 'the counter equals the number of successful increments; the rest are CONTENT_CONFLICT' '
	f=$OUT/increments.json &&
	wins=$(jq "[.[] | select(.structured.ok == true)] | length" "$f") &&
	conflicts=$(jq "[.[] | select(.structured.error.code == \"CONTENT_CONFLICT\")] | length" "$f") &&
	test "$wins" -ge 1 &&
	test $((wins + conflicts)) -eq 20 &&
	test "$(cat "$TRASH/conc/counter.txt")" = "$wins"
'

test_expect_success 'the journal holds exactly the successful increments' '
	f=$OUT/increments.json &&
	jq -r "[.[] | select(.structured.ok == true) | .structured.operation_id] | sort | .[]" "$f" >expect &&
	keeper --json --root "$TRASH/conc" history list --limit 200 >history.json &&
	jq -r "[.operations[].id] | sort | .[]" history.json >actual &&
	test_cmp expect actual
'

test_expect_success '20 concurrent creates of distinct files all succeed and are all recorded' '
	timeout 60 "$PY" "$MCP/client_session.py" concurrent-create "$TRASH/conc" 20 "$OUT/creates.json" &&
	jq -e "length == 20 and all(.[]; .structured.ok == true)" "$OUT/creates.json" &&
	for i in $(seq -w 0 19)
	do
		test "$(cat "$TRASH/conc/new-$i.txt")" = "file $((1$i - 100))" || exit 1
	done &&
	keeper --json --root "$TRASH/conc" history list --limit 200 >history.json &&
	test "$(jq "[.operations[] | select(.kind == \"create\")] | length" history.json)" = 20 &&
	keeper --root "$TRASH/conc" fsck >/dev/null
'

# Every response of the script

# all_responses: every MCP response of this script (agent steps, refusals, dry runs, limits),
# one JSON object per line.
all_responses () {
	cat "$OUT"/agent/*.json "$OUT"/*.jsonl | jq -c .
}

test_expect_success 'every failure'"'"'s structured content is exactly ok and error{code,message,retryable,details}' '
	all_responses | jq -c "select(.is_error == true) | .structured" >failure-docs &&
	test "$(wc -l <failure-docs)" -ge 20 &&
	jq -e -s "all(.[];
		keys_unsorted == [\"ok\", \"error\"] and .ok == false and
		(.error | keys_unsorted == [\"code\", \"message\", \"retryable\", \"details\"]) and
		(.error.code | test(\"^[A-Z_]+$\")) and (.error.message | type == \"string\") and
		(.error.retryable | type == \"boolean\") and (.error.details | type == \"object\"))" failure-docs
'

test_expect_success 'isError is set exactly when the document says ok false' '
	all_responses | jq -e -s "all(.[] | select(.protocol_error == null);
		.is_error == (.structured.ok == false))"
'

test_expect_success 'every result'"'"'s text is written for a model: a refusal'"'"'s starts with its code and message' '
	all_responses | jq -e -s "all(.[] | select(.protocol_error == null);
		if .is_error then (.structured.error as \$e |
			.text | startswith(\"error \(\$e.code): \(\$e.message)\n\"))
		else (.text | length > 0) end)"
'

test_expect_success 'every refusal of a request naming a path carries that path in details.path' '
	all_responses |
	jq -c "select(.is_error == true and (.arguments.path | type == \"string\") and
		.structured.error.details.path != .arguments.path) | {tool, arguments, error: .structured.error}" \
		>missing-path &&
	test_line_count = 0 missing-path
'

test_expect_success 'refusals of source/destination requests name a path the caller gave' '
	all_responses |
	jq -c "select(.is_error == true and (.arguments.source | type == \"string\")) |
		select([.arguments.source, .arguments.destination] | index(.structured.error.details.path) | not)" \
		>missing-path &&
	test_line_count = 0 missing-path
'

test_expect_success 'a refused read through a symlink does not reveal where it points' '
	sed -n 4p "$OUT/failures.jsonl" >escape.json &&
	! grep -F "$OUTSIDE" escape.json &&
	! grep -F "secret.txt" escape.json
'

test_expect_success 'file_read then file_write of its content keeps a UTF-8 BOM; remove_bom drops it' '
	mkdir -p "$TRASH/bom" &&
	printf "\357\273\277hello\n" >"$TRASH/bom/b.txt" &&
	req file_read "{\"path\": \"b.txt\"}" >bom.req &&
	calls "$TRASH/bom" bom-read.jsonl <bom.req &&
	content=$(nth 1 bom-read.jsonl | jq -r .content) &&
	test "$(nth 1 bom-read.jsonl | jq -r .bom)" = true &&
	{
		req file_write "$(jq -nc --arg c "$content" "{path: \"b.txt\", content: \$c}")" &&
		req file_write "{\"path\": \"b.txt\", \"content\": \"plain\", \"remove_bom\": true}"
	} >bom.req &&
	calls "$TRASH/bom" bom.jsonl <bom.req &&
	test "$(nth 1 bom.jsonl | jq -r .bom_kept)" = true &&
	test "$(nth 2 bom.jsonl | jq -r "has(\"bom_kept\")")" = false &&
	printf "plain" >expect &&
	test_cmp expect "$TRASH/bom/b.txt"
'

test_expect_success 'file_write of file_read text on a file with two BOMs is refused, naming file_create' '
	printf "\357\273\277\357\273\277Q\nb\n" >"$TRASH/bom/two.txt" &&
	cp "$TRASH/bom/two.txt" two.before &&
	req file_read "{\"path\": \"two.txt\"}" >two.req &&
	calls "$TRASH/bom" two-read.jsonl <two.req &&
	content=$(nth 1 two-read.jsonl | jq -r .content) &&
	req file_write "$(jq -nc --arg c "$content" "{path: \"two.txt\", content: \$c}")" >two.req &&
	calls "$TRASH/bom" two.jsonl <two.req &&
	tool_refused 1 INVALID_ARGUMENT two.jsonl &&
	json_get ".error.details.reason == \"bom_ambiguous\"" refused.json &&
	jq -r .error.details.recovery refused.json >recovery &&
	grep -F "the file_create tool with allow_existing" recovery &&
	! grep -F -e "--allow-existing" recovery &&
	test_cmp two.before "$TRASH/bom/two.txt"
'

test_expect_success 'no response carries a host path' '
	all_responses >all.json &&
	test_no_host_path all.json &&
	test_no_host_path "$OUT/tools.json"
'

test_done
