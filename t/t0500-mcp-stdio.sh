#!/bin/sh
test_description='filekeeper-mcp over stdio, spoken to in raw JSON-RPC lines

The server is started with --root (or --workspace) and fed newline-delimited JSON-RPC on stdin;
no SDK is involved. initialize answers with the server'"'"'s name and a tools capability; stdout
carries only JSON-RPC messages (logs go to stderr, even at --log-level debug), one response per
request id. Malformed JSON is a parse error, an unknown method is method-not-found, an unknown
tool is an error, and wrong argument types, unknown arguments and huge arguments are tool errors
(isError with an INVALID_ARGUMENT or LIMIT_EXCEEDED document) -- and after each of them the
server keeps answering the next request. --workspace and --root together, or neither, is a usage
error; an unknown --workspace fails at start-up with WORKSPACE_NOT_FOUND on stderr. Installing
keeper never compiles the MCP SDK: the filekeeper package depends on neither rmcp nor tokio.'

# cargo (for cargo tree) finds its toolchain and registry through the real home, which
# test-lib.sh replaces; pin them first.
RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
export RUSTUP_HOME CARGO_HOME
. ./test-lib.sh

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t0500","version":"1"}}}'
INITIALIZED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# mcp_raw OUT SERVER-ARGS... <REQUESTS: sends the initialize handshake and then the request
# lines on stdin to filekeeper-mcp SERVER-ARGS; its stdout goes to OUT and its stderr to
# OUT.err. Succeeds when the server exits 0 after its stdin closes.
mcp_raw () {
	out=$1
	shift
	{ printf "%s\n" "$INIT" "$INITIALIZED" && cat; } |
	timeout 60 filekeeper-mcp "$@" >"$out" 2>"$out.err"
}

# call_req ID TOOL ARGUMENTS-JSON: one tools/call request line.
call_req () {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' \
		"$1" "$2" "$3"
}

# response ID FILE: the response to request ID (exactly one), as one JSON line.
response () {
	jq -c --argjson id "$1" 'select(.id == $id)' "$2" >response.tmp &&
	test "$(wc -l <response.tmp)" -eq 1 || {
		echo >&2 "not exactly one response with id $1 in $2:"
		cut -c1-400 "$2" >&2
		return 1
	}
	cat response.tmp
}

# tool_error ID CODE FILE: the response to ID is a tool result marked isError whose structured
# content is a CODE failure document, and whose text content starts with that code and its
# message, for a model.
tool_error () {
	response "$1" "$3" >tool_error.json &&
	jq ".result.structuredContent" tool_error.json >tool_error.doc &&
	test_error_code "$2" tool_error.doc &&
	json_get ".result.isError == true" tool_error.json >/dev/null &&
	jq -r ".result.structuredContent.error | \"error \(.code): \(.message)\"" tool_error.json >tool_error.expect &&
	jq -r ".result.content[0].text" tool_error.json | head -n 1 >tool_error.text &&
	test_cmp tool_error.expect tool_error.text
}

# answers_read ID FILE: the response to ID is a successful file_read of note.txt.
answers_read () {
	response "$1" "$2" >answers.json &&
	json_get ".result.isError == false and .result.structuredContent.ok == true and
		.result.structuredContent.content == \"hello\\n\"" answers.json >/dev/null
}

# only_jsonrpc FILE: every line of FILE parses as one JSON object with jsonrpc "2.0".
only_jsonrpc () {
	test -s "$1" &&
	n=0 &&
	while IFS= read -r line
	do
		n=$((n + 1))
		printf "%s\n" "$line" | jq -e "type == \"object\" and .jsonrpc == \"2.0\"" >/dev/null || {
			echo >&2 "line $n of $1 is not a JSON-RPC message:"
			printf "%s\n" "$line" | cut -c1-400 >&2
			return 1
		}
	done <"$1"
}

test_expect_success 'setup: a file to read' '
	printf "hello\n" >note.txt
'

test_expect_success 'initialize answers with the server name, a protocol version and tools' '
	mcp_raw init.out --root "$WS" </dev/null &&
	response 0 init.out >init.json &&
	json_get ".result.serverInfo.name == \"filekeeper-mcp\"" init.json &&
	json_get ".result.protocolVersion | type == \"string\" and length > 0" init.json &&
	json_get ".result.capabilities.tools | type == \"object\"" init.json
'

test_expect_success 'the instructions tell an agent that a reply shows its diff' '
	json_get ".result.instructions" init.json | grep -F "reply shows what it changed in diffs"
'

test_expect_success 'tools/list answers with the 29 tools' '
	printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}" |
	mcp_raw list.out --root "$WS" &&
	response 1 list.out >list.json &&
	test "$(jq ".result.tools | length" list.json)" = 29
'

test_expect_success 'a mixed session: stdout carries only JSON-RPC messages, even at --log-level debug' '
	{
		call_req 1 file_read "{\"path\":\"note.txt\"}" &&
		call_req 2 file_read "{\"path\":\"missing.txt\"}" &&
		call_req 3 file_read "{\"path\":\"../escape\"}" &&
		printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"no/such/method\"}" &&
		call_req 5 file_write "{\"path\":\".env\",\"content\":\"x\"}" &&
		call_req 6 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw mixed.out --root "$WS" --log-level debug &&
	only_jsonrpc mixed.out &&
	for id in 0 1 2 3 4 5 6
	do
		response $id mixed.out >/dev/null || exit 1
	done &&
	test "$(wc -l <mixed.out)" -eq 7
'

test_expect_success 'the mixed session leaks no host path to stdout' '
	test_no_host_path mixed.out
'

test_expect_success 'at --log-level debug, stderr names each request'"'"'s method and each tool call'"'"'s tool and outcome' '
	grep -F "debug: request initialize" mixed.out.err &&
	grep -F "debug: request tools/call file_read" mixed.out.err &&
	grep -F "debug: request no/such/method" mixed.out.err &&
	grep -E "debug: tool file_read -> ok in [0-9]+ ms" mixed.out.err &&
	grep -E "debug: tool file_read -> PATH_NOT_FOUND in [0-9]+ ms" mixed.out.err &&
	grep -E "debug: tool file_write -> SENSITIVE_PATH_REFUSED in [0-9]+ ms" mixed.out.err
'

test_expect_success 'the debug log names no content, argument value or host path' '
	! grep -e note.txt -e missing.txt -e escape -e hello mixed.out.err &&
	test_no_host_path mixed.out.err
'

test_expect_success 'at the default log level, stderr stays quiet for the same session' '
	{
		call_req 1 file_read "{\"path\":\"note.txt\"}" &&
		call_req 2 file_read "{\"path\":\"missing.txt\"}"
	} | mcp_raw quiet.out --root "$WS" &&
	test_must_be_empty quiet.out.err
'

test_expect_success 'a line answered before the protocol handler is logged with its code at debug' '
	printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":[]}" |
	mcp_raw early.out --root "$WS" --log-level debug &&
	grep -F "cannot take -> -32602" early.out.err
'

test_expect_success '--help says where the home is, XDG_DATA_HOME included' '
	filekeeper-mcp --help >help &&
	grep -F "FILEKEEPER_HOME" help &&
	grep -F "XDG_DATA_HOME" help
'

test_expect_success 'malformed JSON gets a parse error (-32700, id null) and the server answers the next request' '
	{
		printf "%s\n" "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": " &&
		printf "%s\n" "this is not json" &&
		call_req 2 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw malformed.out --root "$WS" &&
	only_jsonrpc malformed.out &&
	answers_read 2 malformed.out &&
	jq -c "select(.id == null and .error.code == -32700)" malformed.out >parse-errors &&
	test_line_count = 2 parse-errors
'

test_expect_success 'a message that is not a request gets an invalid-request error and the server goes on' '
	{
		printf "%s\n" "{\"hello\": 1}" &&
		call_req 2 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw invalid.out --root "$WS" &&
	only_jsonrpc invalid.out &&
	jq -c "select(.error.code == -32600)" invalid.out >invalid-errors &&
	test_line_count = 1 invalid-errors &&
	answers_read 2 invalid.out
'

test_expect_success 'an unknown method is method-not-found (-32601) and the server answers the next request' '
	{
		printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"files/teleport\",\"params\":{}}" &&
		call_req 2 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw method.out --root "$WS" &&
	response 1 method.out >method.json &&
	json_get ".error.code == -32601" method.json &&
	answers_read 2 method.out
'

test_expect_success 'an unknown tool is an error naming it and the server answers the next request' '
	{
		call_req 1 file_teleport "{\"path\":\"note.txt\"}" &&
		call_req 2 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw tool.out --root "$WS" &&
	response 1 tool.out >tool.json &&
	json_get "(.error.code | type == \"number\") or .result.isError == true" tool.json &&
	grep -F file_teleport tool.json &&
	answers_read 2 tool.out
'

test_expect_success 'wrong argument types are INVALID_ARGUMENT tool errors naming the argument' '
	{
		call_req 1 file_read "{\"path\":5}" &&
		call_req 2 file_read_many "{\"paths\":\"note.txt\"}" &&
		call_req 3 file_write "{\"path\":\"note.txt\",\"content\":\"x\",\"dry_run\":\"yes\"}" &&
		call_req 4 file_read "{\"path\":\"note.txt\",\"from_line\":-1}" &&
		call_req 5 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw types.out --root "$WS" &&
	tool_error 1 INVALID_ARGUMENT types.out &&
	json_get ".error.details.argument == \"path\"" tool_error.doc &&
	tool_error 2 INVALID_ARGUMENT types.out &&
	json_get ".error.details.argument == \"paths\"" tool_error.doc &&
	tool_error 3 INVALID_ARGUMENT types.out &&
	json_get ".error.details.argument == \"dry_run\"" tool_error.doc &&
	tool_error 4 INVALID_ARGUMENT types.out &&
	json_get ".error.details.argument == \"from_line\"" tool_error.doc &&
	answers_read 5 types.out &&
	test "$(cat note.txt)" = hello
'

test_expect_success 'an unknown argument is refused, not ignored, and nothing is written' '
	{
		call_req 1 file_write "{\"path\":\"note.txt\",\"content\":\"x\",\"root\":\"/\"}" &&
		call_req 2 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw unknown-arg.out --root "$WS" &&
	tool_error 1 INVALID_ARGUMENT unknown-arg.out &&
	json_get ".error.details.argument == \"root\"" tool_error.doc &&
	answers_read 2 unknown-arg.out &&
	test "$(cat note.txt)" = hello
'

test_expect_success 'an argument given twice is invalid params, never read as the last, and nothing is written' '
	{
		call_req 1 file_delete "{\"path\":\"note.txt\",\"dry_run\":true,\"dry_run\":false}" &&
		call_req 2 file_write "{\"path\":\"note.txt\",\"content\":\"x\",\"expected_hash\":\"sha256:$(printf %064d 0)\",\"expected_hash\":null}" &&
		call_req 3 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw twice.out --root "$WS" &&
	for id in 1 2
	do
		response $id twice.out >twice.json &&
		json_get ".error.code == -32602" twice.json >/dev/null &&
		json_get ".error.message" twice.json | grep "names \"[a-z_]*\" twice" || return 1
	done &&
	answers_read 3 twice.out &&
	test "$(cat note.txt)" = hello
'

test_expect_success 'setup: 5 MB arguments' '
	head -c 5242880 /dev/zero | tr "\\000" x >big.content &&
	test "$(wc -c <big.content)" -eq 5242880 &&
	jq -nc --rawfile c big.content \
		"{jsonrpc: \"2.0\", id: 1, method: \"tools/call\",
		  params: {name: \"file_write\", arguments: {path: \"big.txt\", content: \$c}}}" >big-write.req &&
	jq -nc --rawfile c big.content \
		"{jsonrpc: \"2.0\", id: 2, method: \"tools/call\",
		  params: {name: \"file_apply_patch\",
		           arguments: {patch: (\"--- a/note.txt\n+++ b/note.txt\n@@ -1 +1 @@\n-hello\n+\" + \$c + \"\n\")}}}" >big-patch.req &&
	jq -nc --rawfile c big.content \
		"{jsonrpc: \"2.0\", id: 3, method: \"tools/call\",
		  params: {name: \"file_read\", arguments: {path: \$c}}}" >big-path.req
'

test_expect_success 'a 5 MB content string is written whole (under the 20 MiB write limit) and the server goes on' '
	{
		cat big-write.req &&
		call_req 9 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw big-write.out --root "$WS" &&
	response 1 big-write.out >big-write.json &&
	json_get ".result.structuredContent.ok == true" big-write.json &&
	cmp big.content big.txt &&
	test "$(jq -r .result.structuredContent.after_hash big-write.json)" = \
		"sha256:$(sha256sum <big.content | cut -d" " -f1)" &&
	answers_read 9 big-write.out
'

test_expect_success 'a 5 MB patch is LIMIT_EXCEEDED, nothing changes, and the server goes on' '
	{
		cat big-patch.req &&
		call_req 9 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw big-patch.out --root "$WS" &&
	tool_error 2 LIMIT_EXCEEDED big-patch.out &&
	answers_read 9 big-patch.out
'

test_expect_success 'a 5 MB path is a tool error, not a crash, and the server goes on' '
	{
		cat big-path.req &&
		call_req 9 file_read "{\"path\":\"note.txt\"}"
	} | mcp_raw big-path.out --root "$WS" &&
	response 3 big-path.out >big-path.json &&
	json_get ".result.isError == true and .result.structuredContent.ok == false" big-path.json &&
	answers_read 9 big-path.out &&
	test_no_host_path big-path.out
'

# The write waits for the workspace lock, held by another process, and stdin ends. The lock
# is released only once the server has said (on stderr, at --log-level debug) that input has
# ended: the write must still be made and answered before the server exits. (rmcp alone waits
# five seconds for such answers and then drops them.)
test_expect_success 'a call still waiting when stdin ends is answered before the server exits' '
	test -f "$WS/.filekeeper/lock" &&
	mkfifo held release late.fifo &&
	{ ( exec 9>"$WS/.filekeeper/lock" && flock 9 && echo >held && read -r _ <release ) & } &&
	holder=$! &&
	read -r _ <held &&
	{
		{
			printf "%s\n" "$INIT" "$INITIALIZED" &&
			call_req 1 file_write "{\"path\":\"late.txt\",\"content\":\"late\\n\"}"
		} | timeout 60 filekeeper-mcp --root "$WS" --log-level debug >late.out 2>late.fifo &
	} &&
	server=$! &&
	{
		while IFS= read -r line
		do
			printf "%s\n" "$line" >>late.err &&
			case $line in *"end of input"*) break ;; esac
		done &&
		echo >release &&
		cat >>late.err
	} <late.fifo &&
	wait $holder &&
	wait $server &&
	grep "end of input; waiting for" late.err &&
	response 1 late.out >late.json &&
	json_get ".result.structuredContent.ok == true" late.json &&
	echo late >expect &&
	test_cmp expect late.txt
'

test_expect_success 'the session ends when the client stops reading stdout, though stdin stays open' '
	PING="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}" &&
	{ printf "%s\n" "$INIT" "$INITIALIZED" && yes "$PING"; } |
	timeout 60 filekeeper-mcp --root "$WS" 2>gone.err | true &&
	grep -F "writing to stdout failed" gone.err
'

test_expect_success 'the server serves a registered workspace by --workspace' '
	call_req 1 workspace_list "{}" | mcp_raw named.out --workspace test &&
	response 1 named.out >named.json &&
	json_get ".result.structuredContent.workspaces == [{\"name\": \"test\", \"served\": true}]" named.json
'

test_expect_success 'a root renamed and made again under the server is refused, not split from its journal' '
	mkdir served && printf "a\n" >served/a.txt &&
	cat >renamed.py <<-\EOF &&
	import json, os, subprocess, sys
	server = subprocess.Popen(["filekeeper-mcp", "--root", "served"], stdin=subprocess.PIPE,
	                          stdout=subprocess.PIPE, text=True)
	def send(message):
	    server.stdin.write(json.dumps(message) + "\n")
	    server.stdin.flush()
	    if "id" in message:
	        return json.loads(server.stdout.readline())
	def write(n, content):
	    return send({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
	        "name": "file_write", "arguments": {"path": "a.txt", "content": content}}})
	send(json.loads(sys.argv[1]))
	send(json.loads(sys.argv[2]))
	first = write(1, "one\n")
	os.rename("served", "moved")
	os.mkdir("served")
	second = write(2, "two\n")
	server.stdin.close()
	server.wait()
	print(json.dumps({"first": first["result"]["structuredContent"],
	                  "second": second["result"]["structuredContent"]}))
	EOF
	python3 renamed.py "$INIT" "$INITIALIZED" >renamed.json &&
	json_get ".first.ok" renamed.json &&
	test "$(jq -r .second.error.code renamed.json)" = WORKSPACE_NOT_FOUND &&
	printf "one\n" >expect &&
	test_cmp expect moved/a.txt &&
	test ! -e served/.filekeeper &&
	test ! -e served/a.txt
'

test_expect_success '--workspace and --root together is a usage error, before any protocol traffic' '
	test_expect_code 2 filekeeper-mcp --workspace test --root "$WS" </dev/null >both.out 2>both.err &&
	test ! -s both.out &&
	grep -e "--workspace" both.err &&
	grep -e "--root" both.err
'

test_expect_success 'neither --workspace nor --root is a usage error naming both' '
	test_expect_code 2 filekeeper-mcp </dev/null >neither.out 2>neither.err &&
	test ! -s neither.out &&
	grep -e "not provided" -A1 neither.err >missing &&
	grep -e "--workspace" missing &&
	grep -e "--root" missing
'

test_expect_success 'an unknown --workspace fails at start-up with WORKSPACE_NOT_FOUND on stderr' '
	test_must_fail filekeeper-mcp --workspace no-such-ws </dev/null >nows.out 2>nows.err &&
	test ! -s nows.out &&
	grep -F "WORKSPACE_NOT_FOUND" nows.err &&
	grep -F "no-such-ws" nows.err &&
	# Said to whoever configured the server: the command that lists what --workspace takes.
	grep -F "keeper workspace list" nows.err
'

test_expect_success 'a --root that does not exist fails at start-up, nothing on stdout' '
	test_must_fail filekeeper-mcp --root "$TRASH/no/such/dir" </dev/null >noroot.out 2>noroot.err &&
	test ! -s noroot.out &&
	test -s noroot.err
'

test_expect_success 'the keeper package (filekeeper) depends on neither rmcp nor tokio' '
	(cd "$TEST_DIRECTORY/.." && cargo tree -p filekeeper -e normal) >tree-keeper 2>tree-keeper.err || {
		cat tree-keeper.err
		false
	} &&
	grep -F "filekeeper-plumbing" tree-keeper &&
	! grep -E "(^|[^a-z_-])(rmcp|tokio)( |$)" tree-keeper
'

test_expect_success 'the filekeeper-mcp package depends on both rmcp and tokio' '
	(cd "$TEST_DIRECTORY/.." && cargo tree -p filekeeper-mcp) >tree-mcp 2>tree-mcp.err || {
		cat tree-mcp.err
		false
	} &&
	grep -E "(^|[^a-z_-])rmcp v" tree-mcp &&
	grep -E "(^|[^a-z_-])tokio v" tree-mcp
'

test_done
