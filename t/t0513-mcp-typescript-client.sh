#!/bin/sh
test_description='filekeeper-mcp driven by the official TypeScript MCP SDK, the client most hosts use

A second real client besides the Python SDK of t0510: t/mcp/ts-client/client.mjs, on
@modelcontextprotocol/sdk (pinned in t/mcp/ts-client/package.json, installed by `make ts-client`)
with its StdioClientTransport. It initializes (server info, capabilities), lists the tools and
checks every input and output schema with the Ajv the SDK validates with (and against the JSON
Schema 2020-12 meta-schema), and runs a read, write, undo round trip through Client.callTool,
which validates each structuredContent against the tool'"'"'s advertised outputSchema: the write
lands, a stale expected_hash is refused with CONTENT_CONFLICT, the undo restores the old
content, and the journal shows the write and its undo.'
. ./test-lib.sh

test_require_prereq TS_SDK
OUT=$TRASH/transcript
mkdir -p "$OUT"

# ts COMMAND ARGS... -- SERVER-ARGS...: runs client.mjs COMMAND with filekeeper-mcp as the server.
ts () {
	cmd=$1
	shift
	timeout 60 node "$MCP/ts-client/client.mjs" "$cmd" "$@"
}

# step NAME: the session transcript file of step NAME.
step () {
	echo "$OUT"/session/[0-9][0-9]-"$1".json
}

# The tools of the specification; the server may serve more.
SPEC_TOOLS="workspace_list workspace_info file_read file_read_many directory_list file_info
file_search content_search history_list history_get history_diff file_create file_write
file_copy file_move file_delete directory_create directory_delete file_replace_text
file_replace_lines file_insert_lines file_delete_lines file_apply_patch undo_operation undo_last"

test_expect_success 'setup: a file in the registered workspace' '
	printf "first\n" >"$WS/notes.txt" &&
	cp "$WS/notes.txt" "$TRASH/notes.orig" &&
	printf "second\n" >"$TRASH/notes.new"
'

# Initialize

test_expect_success 'initialize through the TypeScript SDK' '
	ts init "$OUT/init.json" -- filekeeper-mcp --workspace test
'

test_expect_success 'the server names itself filekeeper-mcp, with the version and commit it prints' '
	json_get ".serverInfo.name == \"filekeeper-mcp\"" "$OUT/init.json" &&
	filekeeper-mcp --version >printed &&
	release=$(cut -d" " -f2 printed) &&
	commit=$(sed -n "s/.*; commit \([0-9a-z]*\))$/\1/p" printed) &&
	test "$(jq -r .serverInfo.version "$OUT/init.json")" = "$release+$commit"
'

test_expect_success 'the server advertises tools, and no prompts or resources it does not serve' '
	json_get ".capabilities.tools | type == \"object\"" "$OUT/init.json" &&
	json_get ".capabilities.prompts == null and .capabilities.resources == null" "$OUT/init.json"
'

test_expect_success 'the protocol version is a dated one, and the server gives instructions' '
	json_get ".protocolVersion | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}$\")" "$OUT/init.json" &&
	json_get ".instructions | type == \"string\" and length > 20" "$OUT/init.json"
'

# Tools and their schemas

test_expect_success 'listTools through the TypeScript SDK (a --root server)' '
	mkdir "$TRASH/rooted" &&
	ts tools "$OUT/tools.json" -- filekeeper-mcp --root "$TRASH/rooted"
'

test_expect_success 'the tools include every tool of the specification, each named once' '
	printf "%s\n" $SPEC_TOOLS | LC_ALL=C sort >expect &&
	jq -r ".tools[].name" "$OUT/tools.json" | LC_ALL=C sort >names &&
	LC_ALL=C sort -u names >unique &&
	test_cmp names unique &&
	LC_ALL=C comm -23 expect names >missing &&
	test_line_count = 0 missing
'

test_expect_success 'every input schema compiles with the SDK'"'"'s Ajv' '
	jq -c ".schemas[] | select(.input.compiles != true) | {name, error: .input.compile_error}" \
		"$OUT/tools.json" >bad &&
	test_line_count = 0 bad
'

test_expect_success 'every input schema is a valid JSON Schema 2020-12 document' '
	jq -c ".schemas[] | select(.input.meta_valid != true) | {name, errors: .input.meta_errors}" \
		"$OUT/tools.json" >bad &&
	test_line_count = 0 bad
'

test_expect_success 'every tool advertises an outputSchema of type object' '
	jq -r ".tools[] | select(.outputSchema.type != \"object\") | .name" "$OUT/tools.json" >bad &&
	test_line_count = 0 bad
'

test_expect_success 'every output schema compiles with the SDK'"'"'s Ajv and is valid JSON Schema 2020-12' '
	jq -c ".schemas[] | select(.output != null) |
		select(.output.compiles != true or .output.meta_valid != true) |
		{name, output}" "$OUT/tools.json" >bad &&
	test_line_count = 0 bad
'

# A read, write, undo round trip through callTool

test_expect_success 'the round trip runs through the SDK'"'"'s callTool' '
	ts session notes.txt "$(cat "$TRASH/notes.new")
" "$OUT/session" -- filekeeper-mcp --workspace test
'

test_expect_success 'no callTool threw: every result, refusals included, passed the SDK'"'"'s checks' '
	jq -c "select(has(\"thrown\")) | {tool, thrown}" "$OUT"/session/*.json >threw &&
	test_line_count = 0 threw
'

test_expect_success 'the SDK validated every result against its tool'"'"'s outputSchema, and that schema rejects a tampered result' '
	jq -c "select(.validated != true or .tampered_rejected != true) | {tool, validated, tampered_rejected}" \
		"$OUT"/session/*.json >unchecked &&
	test_line_count = 0 unchecked
'

test_expect_success 'file_read returns the old content and its hash' '
	f=$(step read-before) &&
	json_get ".result.isError != true and .result.structuredContent.ok == true" "$f" &&
	test "$(jq -r .result.structuredContent.content "$f")" = "$(cat "$TRASH/notes.orig")" &&
	test "$(jq -r .result.structuredContent.content_hash "$f")" = "$(sha "$TRASH/notes.orig")"
'

test_expect_success 'file_write guarded by that hash lands: an operation id, the new content on disk' '
	f=$(step write) &&
	json_get ".result.isError != true and .result.structuredContent.ok == true" "$f" &&
	json_get ".result.structuredContent.operation_id | test(\"^op_[0-9a-f]{16}$\")" "$f" &&
	test "$(jq -r .result.structuredContent.after_hash "$f")" = "$(sha "$TRASH/notes.new")"
'

test_expect_success 'file_read after the write returns the new content' '
	f=$(step read-written) &&
	test "$(jq -r .result.structuredContent.content "$f")" = "$(cat "$TRASH/notes.new")" &&
	test "$(jq -r .result.structuredContent.content_hash "$f")" = "$(sha "$TRASH/notes.new")"
'

test_expect_success 'a write with the stale hash is a tool error: CONTENT_CONFLICT, not retryable' '
	f=$(step stale-write) &&
	json_get ".result.isError == true" "$f" &&
	jq .result.structuredContent "$f" >stale.json &&
	test_error_code CONTENT_CONFLICT stale.json &&
	json_get ".error.retryable == false and .error.details.path == \"notes.txt\"" stale.json &&
	test "$(jq -r .error.details.expected_hash stale.json)" = "$(sha "$TRASH/notes.orig")" &&
	test "$(jq -r .error.details.actual_hash stale.json)" = "$(sha "$TRASH/notes.new")"
'

test_expect_success 'undo_operation of the write succeeds' '
	f=$(step undo) &&
	json_get ".result.isError != true and .result.structuredContent.ok == true" "$f" &&
	test "$(jq -r .result.structuredContent.before_hash "$f")" = "$(sha "$TRASH/notes.new")" &&
	test "$(jq -r .result.structuredContent.after_hash "$f")" = "$(sha "$TRASH/notes.orig")"
'

test_expect_success 'file_read after the undo returns the old content; the file on disk holds it' '
	f=$(step read-undone) &&
	test "$(jq -r .result.structuredContent.content "$f")" = "$(cat "$TRASH/notes.orig")" &&
	test "$(jq -r .result.structuredContent.content_hash "$f")" = "$(sha "$TRASH/notes.orig")" &&
	test_cmp "$TRASH/notes.orig" "$WS/notes.txt"
'

test_expect_success 'history_list shows the undo and the write it undid, and nothing of the refusal' '
	f=$(step history) &&
	write=$(jq -r .result.structuredContent.operation_id "$(step write)") &&
	undo=$(jq -r .result.structuredContent.operation_id "$(step undo)") &&
	jq -c "[.result.structuredContent.operations[] | {id, kind, undoes, undone_by}]" "$f" >actual &&
	jq -nc --arg w "$write" --arg u "$undo" \
		"[{id: \$u, kind: \"undo\", undoes: \$w, undone_by: null},
		  {id: \$w, kind: \"write\", undoes: null, undone_by: \$u}]" >expect &&
	test_cmp expect actual
'

test_expect_success 'the journal, read by the CLI, holds the same two operations' '
	keeper --json history list >history.json &&
	jq -c "[.operations[] | {id, kind}]" history.json >actual &&
	jq -c "[.result.structuredContent.operations[] | {id, kind}]" "$(step history)" >expect &&
	test_cmp expect actual
'

test_expect_success 'no response carries a host path' '
	cat "$OUT"/session/*.json "$OUT/init.json" >all.json &&
	test_no_host_path all.json &&
	jq .tools "$OUT/tools.json" >tools-only.json &&
	test_no_host_path tools-only.json
'

test_done
