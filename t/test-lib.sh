# test-lib.sh: the harness every t/tNNNN-*.sh script sources, in the spirit of git's.
#
# A script sets test_description, sources this file, then tells its story as a sequence of
# test_expect_success blocks, each asserting one behaviour, and ends with test_done. Output is
# TAP, so `prove t/t*.sh` runs them all.
#
# Every script runs in a fresh trash directory with its own HOME and FILEKEEPER_HOME, and with
# a registered default workspace "test" at $WS, which is also the current directory.
#
# Environment:
#   KEEPER_BUILD_DIR  where the keeper binary is (default: target/debug of this checkout)
#   KEEPER_TEST_KEEP  keep the trash directory after the script, for inspection

TEST_DIRECTORY=${TEST_DIRECTORY:-$(cd "$(dirname "$0")" && pwd)}
KEEPER_BUILD_DIR=${KEEPER_BUILD_DIR:-$TEST_DIRECTORY/../target/debug}
if ! test -x "$KEEPER_BUILD_DIR/keeper"; then
	echo "Bail out! no keeper binary in $KEEPER_BUILD_DIR; run 'make build' first"
	exit 1
fi
PATH=$KEEPER_BUILD_DIR:$PATH
export PATH

for tool in jq zstd sqlite3 sha256sum; do
	command -v "$tool" >/dev/null || { echo "Bail out! the tests need $tool"; exit 1; }
done

TRASH=$(mktemp -d "${TMPDIR:-/tmp}/keeper-test.XXXXXX")
test_cleanup () {
	cd /
	if test -z "${KEEPER_TEST_KEEP:-}"; then
		chmod -R u+w "$TRASH" 2>/dev/null
		rm -rf "$TRASH"
	else
		echo "# trash kept in $TRASH"
	fi
}
trap test_cleanup EXIT

HOME=$TRASH/userhome
FILEKEEPER_HOME=$TRASH/home
WS=$TRASH/ws
OUTSIDE=$TRASH/outside
export HOME FILEKEEPER_HOME
unset XDG_DATA_HOME NO_COLOR FILEKEEPER_TEST_CRASH_AT
# Crash tests abort keeper on purpose; no core files in the workspace.
ulimit -c 0 2>/dev/null
mkdir -p "$HOME" "$WS" "$OUTSIDE"
cd "$WS" || exit 1

keeper init >/dev/null &&
keeper workspace create test "$WS" >/dev/null &&
keeper workspace use test >/dev/null || {
	echo "Bail out! could not set up the test workspace"
	exit 1
}

# need_mcp_sdk: PY is a Python with the official MCP SDK (the .venv that `make venv` builds,
# or KEEPER_TEST_PYTHON) and MCP the folder of the t/mcp helpers; bails out without one.
need_mcp_sdk () {
	PY=${KEEPER_TEST_PYTHON:-$TEST_DIRECTORY/../.venv/bin/python}
	MCP=$TEST_DIRECTORY/mcp
	if ! test -x "$PY" || ! "$PY" -c "import mcp" 2>/dev/null; then
		echo "Bail out! no Python with the MCP SDK at $PY; run 'make venv' or set KEEPER_TEST_PYTHON"
		exit 1
	fi
}

test_count=0
test_failures=0

say_body () {
	printf '%s\n' "$1" | sed 's/^/#	/'
}

# test_expect_success DESCRIPTION BODY: runs BODY (shell code, && chained) in this shell.
test_expect_success () {
	test_count=$((test_count + 1))
	if (eval "$2") >"$TRASH/test-output" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failures=$((test_failures + 1))
		echo "not ok $test_count - $1"
		say_body "$2"
		sed 's/^/# > /' "$TRASH/test-output"
	fi
}

# test_expect_failure DESCRIPTION BODY: a known breakage, as in git: BODY asserts what the
# specification asks for and fails today. Reported as TAP TODO, so it fails no run, and says
# so when it starts passing (then it becomes a test_expect_success).
test_expect_failure () {
	test_count=$((test_count + 1))
	if (eval "$2") >"$TRASH/test-output" 2>&1; then
		echo "ok $test_count - $1 # TODO known breakage vanished"
	else
		echo "not ok $test_count - $1 # TODO known breakage"
		sed 's/^/# > /' "$TRASH/test-output"
	fi
}

# test_must_fail CMD...: CMD exits non-zero, and not by a signal or a crash.
test_must_fail () {
	"$@"
	code=$?
	if test $code -eq 0; then
		echo >&2 "test_must_fail: '$*' succeeded"
		return 1
	elif test $code -gt 128; then
		echo >&2 "test_must_fail: '$*' died of signal $((code - 128))"
		return 1
	fi
	return 0
}

# test_expect_code N CMD...: CMD exits with exactly N.
test_expect_code () {
	want=$1
	shift
	"$@"
	code=$?
	if test $code -ne "$want"; then
		echo >&2 "test_expect_code: '$*' exited $code, wanted $want"
		return 1
	fi
	return 0
}

# test_cmp EXPECTED ACTUAL: the two files are identical.
test_cmp () {
	diff -u "$1" "$2"
}

# json_get FILTER FILE: a jq filter's raw result, failing when the file is not one JSON object.
# (An empty file is refused first: jq -e accepts one in some versions.)
json_get () {
	test -s "$2" || { echo >&2 "json_get: $2 is empty"; return 1; }
	jq -e -r "$1" "$2"
}

# test_error_code CODE FILE: FILE is a failure document with exactly ok and error, error with
# exactly code, message, retryable and details, and the given code.
test_error_code () {
	test -s "$2" || { echo >&2 "not a $1 failure document: $2 is empty"; return 1; }
	jq -e --arg code "$1" '
		(keys_unsorted == ["ok", "error"]) and .ok == false and
		(.error | keys_unsorted == ["code", "message", "retryable", "details"]) and
		.error.code == $code and (.error.retryable | type == "boolean")
	' "$2" >/dev/null || { echo >&2 "not a $1 failure document:"; cat >&2 "$2"; return 1; }
}

# test_no_host_path FILE: FILE never mentions the trash directory (a host path).
test_no_host_path () {
	if grep -F "$TRASH" "$1"; then
		echo >&2 "host path leaked into output"
		return 1
	fi
}

# sha FILE: the content id keeper gives FILE's bytes, sha256:<hex>, computed by sha256sum.
sha () {
	printf "sha256:%s\n" "$(sha256sum <"$1" | cut -d" " -f1)"
}

# op_count: how many operations the workspace journal holds (0 before the first mutation).
op_count () {
	if test -f "$WS/.filekeeper/journal.sqlite3"
	then
		sqlite3 "$WS/.filekeeper/journal.sqlite3" "SELECT count(*) FROM operations"
	else
		echo 0
	fi
}

# save FILE: remembers FILE's bytes and the journal's operation count, for untouched.
save () {
	mkdir -p "$TRASH/saved" &&
	cp "$1" "$TRASH/saved/$1" &&
	op_count >"$TRASH/saved/$1.ops"
}

# untouched FILE: FILE holds exactly the bytes saved by `save FILE`, and the journal gained no
# operation since.
untouched () {
	cmp "$TRASH/saved/$1" "$1" &&
	test "$(op_count)" = "$(cat "$TRASH/saved/$1.ops")" || {
		echo >&2 "$1 or the journal changed"
		return 1
	}
}

# refused EXIT CODE ARGS...: `keeper --json file ARGS...` exits EXIT with a CODE failure
# document, left in refusal.json, that leaks no host path.
refused () {
	want_exit=$1 want_code=$2
	shift 2
	test_expect_code "$want_exit" keeper --json file "$@" >refusal.json &&
	test_error_code "$want_code" refusal.json &&
	test_no_host_path refusal.json
}

test_done () {
	echo "1..$test_count"
	if test $test_failures -gt 0; then
		echo "# failed $test_failures among $test_count test(s)"
		exit 1
	fi
	exit 0
}

# test_line_count OP N FILE: the number of lines in FILE compares to N with OP (=, -gt, ...).
# test_must_be_empty FILE: FILE is empty; otherwise the test fails and its first lines (one
# offending record or invocation each, as the sweeping tests write them) are shown.
test_must_be_empty () {
	if test -s "$1"
	then
		echo >&2 "$(wc -l <"$1") offending line(s) in $1:"
		head -n 40 "$1" >&2
		return 1
	fi
}

test_line_count () {
	actual=$(wc -l <"$3")
	test "$actual" "$1" "$2" || { echo >&2 "test_line_count: $3 has $actual lines"; cat >&2 "$3"; return 1; }
}
