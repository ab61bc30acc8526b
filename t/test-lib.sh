# test-lib.sh: the harness every t/tNNNN-*.sh script sources, in the spirit of git's.
#
# A script sets test_description, sources this file, then tells its story as a sequence of
# test_expect_success blocks, each asserting one behaviour, and ends with test_done. Output is
# TAP, so `prove t/t*.sh` runs them all. t/README says how to write, run and debug a script.
#
# Every script runs in a fresh trash directory with its own HOME and FILEKEEPER_HOME, and with
# a registered default workspace "test" at $WS, which is also the current directory. The trash
# directory is removed when every test passed, and kept (and named on stderr) otherwise.
#
# A test that needs something the machine may lack names a prerequisite before its
# description (test_expect_success MCP_SDK 'desc' 'body'); without it the test is reported as
# skipped, with the reason, and the run goes on. The prerequisites every script can use are
# declared below with test_lazy_prereq.
#
# Environment:
#   KEEPER_BUILD_DIR     where the keeper binary is (default: target/debug of this checkout)
#   KEEPER_TEST_KEEP     keep the trash directory even when every test passed
#   KEEPER_TEST_LONG     run the EXPENSIVE tests too (`make test` sets it; `make check` does not)
#   KEEPER_TEST_NO_SKIP  a test skipped for a missing prerequisite fails instead (`make test`
#                        sets it under CI=true, so CI cannot pass by skipping)
#   KEEPER_TEST_PYTHON   a Python with the MCP SDK (default: the .venv that `make venv` builds)

TEST_DIRECTORY=${TEST_DIRECTORY:-$(cd "$(dirname "$0")" && pwd)}
KEEPER_BUILD_DIR=${KEEPER_BUILD_DIR:-$TEST_DIRECTORY/../target/debug}
TEST_NAME=$(basename "$0" .sh)

# error MESSAGE: the script cannot go on. It fails with one more "not ok" (prove reports it
# and goes on to the next script), unlike "Bail out!", which would stop the whole run.
error () {
	echo >&2 "error: $TEST_NAME: $*"
	echo "not ok $((${test_count:-0} + 1)) - $TEST_NAME stopped: $*"
	echo "1..$((${test_count:-0} + 1))"
	exit 1
}

test -x "$KEEPER_BUILD_DIR/keeper" ||
	error "no keeper binary in $KEEPER_BUILD_DIR; run 'make build' first"
PATH=$KEEPER_BUILD_DIR:$PATH
export PATH

# The harness itself needs these; without them no test could say anything true.
for tool in jq zstd sqlite3 sha256sum diff cmp; do
	command -v "$tool" >/dev/null || error "the tests need $tool"
done

TRASH=$(mktemp -d "${TMPDIR:-/tmp}/keeper-test.$TEST_NAME.XXXXXX") ||
	error "cannot create a trash directory"
# Set by test_done when every test passed; until then the trash stays for inspection.
test_trash_verdict=keep
test_cleanup () {
	cd /
	if test "$test_trash_verdict" = remove && test -z "${KEEPER_TEST_KEEP:-}"; then
		chmod -R u+w "$TRASH" 2>/dev/null
		rm -rf "$TRASH"
	else
		echo >&2 "# $TEST_NAME: trash directory kept in $TRASH"
	fi
}
trap test_cleanup EXIT

HOME=$TRASH/userhome
FILEKEEPER_HOME=$TRASH/home
WS=$TRASH/ws
OUTSIDE=$TRASH/outside
export HOME FILEKEEPER_HOME
unset XDG_DATA_HOME XDG_CONFIG_HOME NO_COLOR FILEKEEPER_TEST_CRASH_AT GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM
# The machine's /etc/gitconfig could name an excludes file that search and grep honour.
GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_NOSYSTEM
# Crash tests abort keeper on purpose; no core files in the workspace.
ulimit -c 0 2>/dev/null
mkdir -p "$HOME" "$WS" "$OUTSIDE"
cd "$WS" || exit 1

keeper init >/dev/null &&
keeper workspace create test "$WS" >/dev/null &&
keeper workspace use test >/dev/null ||
	error "could not set up the test workspace"

# PY: a Python with the official MCP SDK (the MCP_SDK prerequisite); MCP: the t/mcp helpers.
PY=${KEEPER_TEST_PYTHON:-$TEST_DIRECTORY/../.venv/bin/python}
MCP=$TEST_DIRECTORY/mcp

test_count=0
test_failures=0
test_skips=0

# Prerequisites, as in git. test_lazy_prereq NAME SCRIPT declares NAME, holding when SCRIPT
# succeeds; SCRIPT runs the first time a test asks, in a scratch directory, its output hidden.
# test_set_prereq NAME declares one that holds. test_have_prereq P[,P...] holds when every P
# does; !P holds when P does not. Names are shell words: letters, digits, underscores.

test_lazy_prereq () {
	eval "test_prereq_script_$1=\$2"
}

test_set_prereq () {
	eval "test_prereq_state_$1=yes"
}

# test_prereq_holds_ NAME: evaluates NAME once and remembers the answer.
test_prereq_holds_ () {
	eval "tp_state=\${test_prereq_state_$1:-} tp_script=\${test_prereq_script_$1:-}"
	if test -z "$tp_state"; then
		tp_state=no
		if test -n "$tp_script"; then
			mkdir -p "$TRASH/prereq-$1" &&
			if (cd "$TRASH/prereq-$1" && eval "$tp_script") >/dev/null 2>&1; then
				tp_state=yes
			fi
			rm -rf "$TRASH/prereq-$1"
		fi
		eval "test_prereq_state_$1=$tp_state"
	fi
	test "$tp_state" = yes
}

# test_have_prereq P[,P...]: every P holds; the ones that do not are left in
# test_missing_prereq, and those among them that are not negations (something this machine
# lacks, rather than has) in test_lacking_prereq.
test_have_prereq () {
	test_missing_prereq= test_lacking_prereq=
	for tp_name in $(printf '%s\n' "$1" | tr , ' '); do
		case $tp_name in
		!*) ! test_prereq_holds_ "${tp_name#!}" ;;
		*) test_prereq_holds_ "$tp_name" || {
			test_lacking_prereq=${test_lacking_prereq:+$test_lacking_prereq,}$tp_name
			false
		} ;;
		esac || test_missing_prereq=${test_missing_prereq:+$test_missing_prereq,}$tp_name
	done
	test -z "$test_missing_prereq"
}

# test_must_not_skip_: KEEPER_TEST_NO_SKIP is set and the machine lacks a prerequisite. (A
# negated one, !ROOT when running as root, is a legitimate skip anywhere.)
test_must_not_skip_ () {
	test -n "${KEEPER_TEST_NO_SKIP:-}" && test -n "$test_lacking_prereq"
}

# EXPENSIVE: tests that take minutes; `make check` leaves them out, `make test` runs them.
test_lazy_prereq EXPENSIVE 'test -n "${KEEPER_TEST_LONG:-}"'
# MCP_SDK: $PY imports the official MCP SDK (`make venv`, or KEEPER_TEST_PYTHON).
test_lazy_prereq MCP_SDK '"$PY" -c "import mcp"'
# TS_SDK: node imports the TypeScript MCP SDK from t/mcp/ts-client/node_modules (`make ts-client`).
test_lazy_prereq TS_SDK '
	cd "$MCP/ts-client" &&
	node --input-type=module -e "await import(\"@modelcontextprotocol/sdk/client/stdio.js\")"
'
# TTY: script(1) can give a command a terminal.
test_lazy_prereq TTY 'script -qec true /dev/null </dev/null'
# ROOT: running as root.
test_lazy_prereq ROOT 'test "$(id -u)" = 0'
# TMPFS: a tmpfs can be mounted here (root, and mount permitted).
test_lazy_prereq TMPFS '
	test_have_prereq ROOT &&
	mkdir mnt &&
	mount -t tmpfs -o size=1m tmpfs mnt &&
	umount mnt
'
# PYTHON: a python3 on PATH (the generators and compile checks; not the MCP SDK).
test_lazy_prereq PYTHON 'python3 -c "pass"'
# GIT, PATCH: git and GNU patch, the references the patch tests compare keeper with.
test_lazy_prereq GIT 'git --version'
test_lazy_prereq PATCH 'patch --version'
# CC: a C compiler for the small helpers the storm tests build.
test_lazy_prereq CC 'cc --version'

# test_skip_all REASON: skips the whole script, as TAP's "1..0 # SKIP".
test_skip_all () {
	echo "1..0 # SKIP $*"
	test_trash_verdict=remove
	exit 0
}

# test_require_prereq P[,P...]: skips the whole script unless every P holds (for a script
# whose every test needs it). Under KEEPER_TEST_NO_SKIP a missing one fails the script.
test_require_prereq () {
	test_have_prereq "$1" && return 0
	if test_must_not_skip_; then
		echo "not ok 1 - $TEST_NAME: missing $test_lacking_prereq, and KEEPER_TEST_NO_SKIP forbids skipping"
		echo "1..1"
		exit 1
	fi
	test_skip_all "missing $test_missing_prereq"
}

say_body () {
	printf '%s\n' "$1" | sed 's/^/#	/'
}

# test_when_finished CMD: runs the shell command CMD after the current test's body, whether it
# passed or not (cleanups run last first). A failing CMD fails the test. Only inside a body.
test_when_finished () {
	test_finish_="{ $*
} || { echo >&2 'a test_when_finished command failed'; test_status_=1; }
$test_finish_"
}

# test_run_ BODY: runs BODY (shell code, && chained) in a subshell of this shell, then the
# cleanups it registered; its output goes to $TRASH/test-output. BODY is evaluated inside a
# function, so that its "return 1" (in loops) ends the body but not the cleanups.
test_body_ () {
	eval "$1"
}
test_run_ () {
	(
		test_finish_=
		test_body_ "$1"
		test_status_=$?
		eval "$test_finish_"
		exit $test_status_
	) >"$TRASH/test-output" 2>&1
}

# test_start_ PREREQ DESC: counts the test and says whether to run it. A missing prerequisite
# is an "ok # skip" with the reason, or under KEEPER_TEST_NO_SKIP a failure.
test_start_ () {
	test_count=$((test_count + 1))
	test -z "$1" && return 0
	test_have_prereq "$1" && return 0
	if test_must_not_skip_; then
		test_failures=$((test_failures + 1))
		echo "not ok $test_count - $2 # missing $test_lacking_prereq, and KEEPER_TEST_NO_SKIP forbids skipping"
	else
		test_skips=$((test_skips + 1))
		echo "ok $test_count # skip $2 (missing $test_missing_prereq)"
	fi
	return 1
}

# test_expect_success [PREREQ] DESCRIPTION BODY: BODY passes.
test_expect_success () {
	test $# = 3 || set -- "" "$@"
	test $# = 3 || error "bug in the test script: test_expect_success [PREREQ] DESC BODY"
	test_start_ "$1" "$2" || return 0
	if test_run_ "$3"; then
		echo "ok $test_count - $2"
	else
		test_failures=$((test_failures + 1))
		echo "not ok $test_count - $2"
		say_body "$3"
		sed 's/^/# > /' "$TRASH/test-output"
	fi
}

# test_expect_failure [PREREQ] DESCRIPTION BODY: a known breakage, as in git: BODY asserts what
# the specification asks for and fails today. Reported as TAP TODO, so it fails no run, and
# says so when it starts passing (then it becomes a test_expect_success).
test_expect_failure () {
	test $# = 3 || set -- "" "$@"
	test $# = 3 || error "bug in the test script: test_expect_failure [PREREQ] DESC BODY"
	test_start_ "$1" "$2" || return 0
	if test_run_ "$3"; then
		echo "ok $test_count - $2 # TODO known breakage vanished"
	else
		echo "not ok $test_count - $2 # TODO known breakage"
		sed 's/^/# > /' "$TRASH/test-output"
	fi
}

test_done () {
	echo "1..$test_count"
	if test $test_skips -gt 0; then
		echo "# skipped $test_skips test(s) for a missing prerequisite"
	fi
	if test $test_failures -gt 0; then
		echo "# failed $test_failures among $test_count test(s)"
		exit 1
	fi
	test_trash_verdict=remove
	exit 0
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

# test_line_count OP N FILE: the number of lines in FILE compares to N with OP (=, -gt, ...).
test_line_count () {
	actual=$(wc -l <"$3")
	test "$actual" "$1" "$2" || { echo >&2 "test_line_count: $3 has $actual lines"; cat >&2 "$3"; return 1; }
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

# size_of FILE: FILE's size in bytes.
size_of () {
	wc -c <"$1" | tr -d " "
}

# object_path ID: where the workspace's store keeps the blob ID, relative to the workspace root.
object_path () {
	hex=${1#sha256:}
	printf '.filekeeper/objects/%s/%s\n' "$(printf %s "$hex" | cut -c1-2)" "$(printf %s "$hex" | cut -c3-)"
}

# no_temp_files [DIR]: no .fk-tmp-* file is left anywhere below DIR (default: the trash
# directory); the ones found are shown.
no_temp_files () {
	find "${1:-$TRASH}" -name ".fk-tmp-*" >leftovers &&
	test ! -s leftovers || { cat >&2 leftovers; return 1; }
}

# journal SQL [ROOT]: SQL's rows from the journal of the workspace at ROOT (default $WS).
journal () {
	sqlite3 "${2:-$WS}/.filekeeper/journal.sqlite3" "$1"
}

# The pruned operations, as a subquery to select from: seq, id, pruned_by (the prune) and
# pruned_at (when), asked the way docs/on-disk-format.md shows a person with sqlite3. Schema 3
# had this as the view pruned_operations, which schema 4 dropped.
PRUNED_OPERATIONS="(SELECT seq, id, pruned_by,
       (SELECT coalesce(p.pruned_at, p.created_at) FROM prunes p WHERE p.id = pruned_by) AS pruned_at
  FROM (SELECT o.seq, o.id, CASE
          WHEN o.seq > (SELECT coalesce(max(cut_seq), 0) FROM prunes) THEN NULL
          WHEN EXISTS (SELECT 1 FROM prune_exceptions e WHERE e.op_id = o.id)
            THEN (SELECT e.pruned_by FROM prune_exceptions e WHERE e.op_id = o.id)
          ELSE (SELECT r.id FROM prunes r WHERE r.first_seq <= o.seq ORDER BY r.first_seq DESC LIMIT 1)
          END AS pruned_by
          FROM operations o)
 WHERE pruned_by IS NOT NULL)"

# op_count [ROOT]: how many operations the journal of the workspace at ROOT (default $WS)
# holds: 0 before its first mutation created the journal, and a failure if it cannot be read.
op_count () {
	if test -f "${1:-$WS}/.filekeeper/journal.sqlite3"
	then
		journal "SELECT count(*) FROM operations" "${1:-$WS}"
	else
		echo 0
	fi
}

# journal_rows: the journal's row counts (operations, their highest seq, their items), or
# nothing when there is no journal yet; run in a workspace root.
journal_rows () {
	if test -f .filekeeper/journal.sqlite3
	then
		sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*), max(seq) FROM operations;
			SELECT count(*) FROM operation_items"
	fi
}

# Three snapshots, for "nothing changed" (compare one taken before with one taken after):
#
# tree_state [ROOT]: every path under the workspace ROOT (default: the current directory) but
# .filekeeper/, with its type, mode, inode, size and mtime, every file's hash, and the
# journal's rows. Equal states mean nothing under ROOT was touched and nothing was recorded.
tree_state () {
	(
		cd "${1:-.}" &&
		find . -path ./.filekeeper -prune -o -printf "%y %m %i %s %T@ %p\n" | LC_ALL=C sort &&
		find . -path ./.filekeeper -prune -o -type f -print | LC_ALL=C sort |
			xargs -r -d "\n" sha256sum &&
		journal_rows
	)
}

# paths_state PATH...: for each PATH (relative to the current workspace root) its type, mode,
# inode, size, mtime and hash, or "absent"; every entry in $OUTSIDE likewise; and the journal's
# rows. For a test that writes its own files into the workspace between the two snapshots.
paths_state () {
	for p in "$@" $(find "$OUTSIDE" | LC_ALL=C sort)
	do
		if test -e "$p" || test -L "$p"
		then
			stat -c "%F %a %i %s %Y.%y $p" "$p" &&
			if test -f "$p"; then sha256sum "$p"; fi
		else
			echo "absent $p"
		fi || return 1
	done &&
	journal_rows
}

# tree_content [DIR...]: every path below the DIRs (default: the current directory) but
# ./.filekeeper/, with its type and mode, and every file's hash: what a tree holds, whatever
# files were rewritten to get there (moves, undos, recoveries rewrite inodes and mtimes).
tree_content () {
	test $# -gt 0 || set -- .
	find "$@" -path ./.filekeeper -prune -o -printf "%y %m %p\n" | LC_ALL=C sort &&
	find "$@" -path ./.filekeeper -prune -o -type f -print | LC_ALL=C sort |
		xargs -r -d "\n" sha256sum
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

# refused EXIT CODE [--naming PATH] ARGS...: `keeper --json ARGS...` exits EXIT within 20
# seconds with a CODE failure document, left in refusal.json, that mentions no host path.
# With --naming, details.path is exactly PATH (the caller's own spelling), and PATH is the
# only host path the document may mention (a caller may give an absolute one).
refused () {
	want_exit=$1 want_code=$2 want_path= naming=
	shift 2
	if test "$1" = --naming; then
		naming=yes want_path=$2
		shift 2
	fi
	{
		test_expect_code "$want_exit" timeout 20 keeper --json "$@" >refusal.json &&
		test_error_code "$want_code" refusal.json &&
		if test -n "$naming"; then
			test "$(jq -r .error.details.path refusal.json)" = "$want_path" || {
				echo >&2 "details.path is not $want_path"
				false
			}
		fi &&
		if jq --arg given "$want_path" \
			'walk(if type == "string" and $given != "" then split($given) | join("") else . end)' \
			refusal.json | grep -F "$TRASH"
		then
			echo >&2 "host path leaked into the refusal"
			false
		fi
	} || {
		echo >&2 "refusal of: keeper --json $*"
		cat >&2 refusal.json
		return 1
	}
}

# pages [--from CURSOR] FILTER ARGS...: runs `keeper --json ARGS...` (from CURSOR), then again
# with each page's next_cursor until there is none, printing every page's items through the jq
# FILTER. Each page must say truncated exactly when it gives a cursor; the number of pages is
# left in pages.count.
pages () {
	cursor= count=0
	if test "$1" = --from
	then
		cursor=$2
		shift 2
	fi
	filter=$1
	shift
	while :
	do
		if test -n "$cursor"
		then
			keeper --json "$@" --cursor "$cursor" >page.json || return 1
		else
			keeper --json "$@" >page.json || return 1
		fi
		count=$((count + 1))
		jq -e '.truncated == (.next_cursor != null)' page.json >/dev/null || {
			echo >&2 "truncated and next_cursor disagree:"
			cat >&2 page.json
			return 1
		}
		jq -r "$filter" page.json || return 1
		cursor=$(jq -r '.next_cursor // empty' page.json)
		test -n "$cursor" || break
		test $count -lt 2000 || { echo >&2 "no end of pages"; return 1; }
	done
	echo $count >pages.count
}
