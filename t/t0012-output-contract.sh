#!/bin/sh
test_description='the output contract: one JSON object with "ok" first, structured errors, no host paths, no traces

With --json every command prints exactly one object on stdout whose first key is "ok". A failure
has exactly ok and error, and error exactly code, message, retryable and details, with the
caller'"'"'s own spelling in details.path and no host path anywhere else. Without --json a failure
is one line error[CODE]: message on stderr, optionally followed by indented lines, and nothing on
stdout. Usage errors are INVALID_ARGUMENT (exit 2). Content commands write bytes unchanged.
Nothing ever prints a panic or a backtrace.'
. ./test-lib.sh

# one_document FILE: FILE holds exactly one JSON object, and its first key is "ok".
one_document () {
	jq -s -e "length == 1 and (.[0] | type == \"object\") and (.[0] | keys_unsorted[0] == \"ok\")" "$1" >/dev/null || {
		echo >&2 "not exactly one JSON object with ok first:"
		cat >&2 "$1"
		return 1
	}
}

# succeeds_as_json NAME ARGS...: keeper --json ARGS exits 0 with one success document on stdout
# (left in NAME.out) and nothing on stderr.
succeeds_as_json () {
	name=$1 &&
	shift &&
	keeper --json "$@" >"$name.out" 2>"$name.err" &&
	one_document "$name.out" &&
	json_get ".ok == true" "$name.out" >/dev/null &&
	test ! -s "$name.err"
}

# fails_as_json NAME CODE EXIT ARGS...: keeper --json ARGS exits EXIT with one failure document
# of CODE on stdout (left in NAME.out), nothing on stderr, and no host path outside
# details.path (which is the caller's own spelling, checked separately).
fails_as_json () {
	name=$1 want_code=$2 want_exit=$3 &&
	shift 3 &&
	test_expect_code "$want_exit" keeper --json "$@" >"$name.out" 2>"$name.err" &&
	one_document "$name.out" &&
	test_error_code "$want_code" "$name.out" &&
	test ! -s "$name.err" &&
	jq "del(.error.details.path)" "$name.out" >"$name.nopath" &&
	test_no_host_path "$name.nopath"
}

# fails_for_humans NAME CODE EXIT ARGS...: keeper ARGS without --json exits EXIT, prints nothing
# on stdout, and on stderr one line error[CODE]: message, then only indented lines.
fails_for_humans () {
	name=$1 want_code=$2 want_exit=$3 &&
	shift 3 &&
	test_expect_code "$want_exit" keeper "$@" >"$name.out" 2>"$name.err" &&
	test ! -s "$name.out" &&
	head -n 1 "$name.err" | grep -E "^error\[$want_code\]: [^ ]" &&
	sed 1d "$name.err" >"$name.rest" &&
	if grep -v "^  [^ ]" "$name.rest"
	then
		echo >&2 "unindented lines after the error line"
		return 1
	fi
}

# given_path_is FILE PATH: the failure document in FILE names PATH, exactly, in details.path.
given_path_is () {
	printf "%s\n" "$2" >given.expect &&
	json_get .error.details.path "$1" >given.actual &&
	test_cmp given.expect given.actual
}

test_expect_success 'setup: files, links, a FIFO, stored blobs and a pending operation' '
	mkdir sub docs &&
	echo real >docs/real.txt &&
	echo "old text" >docs/guarded.txt &&
	ln -s docs d &&
	ln -s ../outside link-out &&
	ln -s nothere dangling &&
	mkfifo fifo &&
	printf "one\r\ntwo\r\nno final newline" >crlf.txt &&
	printf "\000\001binary\377\376\000" >binary.bin &&
	: >empty.txt &&
	keeper hash-object -w crlf.txt >crlf.id &&
	keeper hash-object -w binary.bin >binary.id &&
	keeper hash-object -w empty.txt >empty.id &&
	printf "published" | keeper hash-object -w --stdin >blob.id &&
	keeper journal-begin --kind write \
		--item "{\"path\": \"planned.txt\", \"after_hash\": \"$(cat blob.id)\"}" >op.id &&
	grep -E "^op_[0-9a-f]{16}$" op.id
'

# Successes.

test_expect_success 'init, workspace list and workspace show print one success document' '
	succeeds_as_json init init &&
	succeeds_as_json list workspace list &&
	succeeds_as_json show workspace show test
'

test_expect_success 'resolve-path and hash-object print one success document' '
	succeeds_as_json resolve resolve-path docs/real.txt &&
	succeeds_as_json resolve-write resolve-path --for-write docs/new.txt &&
	succeeds_as_json hash hash-object docs/real.txt &&
	printf abc | succeeds_as_json hash-stdin hash-object -w --stdin
'

test_expect_success 'cat-blob, journal-show, publish and fsck print one success document' '
	succeeds_as_json cat cat-blob "$(cat crlf.id)" &&
	succeeds_as_json show-op journal-show "$(cat op.id)" &&
	succeeds_as_json publish publish --blob "$(cat blob.id)" planned.txt &&
	succeeds_as_json commit journal-commit "$(cat op.id)" &&
	succeeds_as_json fsck fsck
'

test_expect_success 'a success document is flat: its result fields sit beside ok' '
	json_get ".object_id" hash.out &&
	json_get ".resolved" resolve.out &&
	test "$(json_get ".workspace" resolve.out)" = test &&
	! json_get ".result" resolve.out
'

test_expect_success 'the global --json flag may also follow the subcommand' '
	keeper workspace list --json >after.out 2>after.err &&
	one_document after.out &&
	test ! -s after.err
'

# Failures with --json.

test_expect_success 'confinement refusals print one failure document with exactly ok and error' '
	fails_as_json dotdot PATH_OUTSIDE_WORKSPACE 4 resolve-path ../outside/x &&
	fails_as_json absolute ABSOLUTE_PATH_OUTSIDE_WORKSPACE 6 resolve-path "$OUTSIDE/x" &&
	fails_as_json escape SYMLINK_ESCAPE_REFUSED 11 resolve-path link-out/x &&
	fails_as_json linkwrite SYMLINK_WRITE_REFUSED 9 resolve-path --for-write d &&
	fails_as_json special SPECIAL_FILE_REFUSED 13 resolve-path fifo &&
	fails_as_json state PATH_IS_STATE_PATH 8 resolve-path .filekeeper/objects &&
	fails_as_json secret SENSITIVE_PATH_REFUSED 10 resolve-path --for-write .env
'

test_expect_success 'file and blob failures print one failure document' '
	fails_as_json missing PATH_NOT_FOUND 3 hash-object ./missing.txt &&
	fails_as_json directory NOT_A_FILE 5 hash-object sub &&
	fails_as_json notdir NOT_A_DIRECTORY 7 resolve-path docs/real.txt/x &&
	fails_as_json badid INVALID_ARGUMENT 2 cat-blob sha256:00 &&
	fails_as_json noblob STORAGE_ERROR 26 cat-blob "sha256:$(printf "%064d" 0)" &&
	fails_as_json binary BINARY_CONTENT_REFUSED 20 cat-blob "$(cat binary.id)"
'

test_expect_success 'publish and journal failures print one failure document' '
	fails_as_json conflict CONTENT_CONFLICT 15 publish --blob "$(cat blob.id)" \
		--expected-hash "$(cat crlf.id)" docs/guarded.txt &&
	fails_as_json exists ALREADY_EXISTS 14 publish --create --blob "$(cat blob.id)" docs/guarded.txt &&
	fails_as_json noop OPERATION_NOT_FOUND 28 journal-show op_0000000000000000 &&
	fails_as_json itemout PATH_OUTSIDE_WORKSPACE 4 journal-begin --kind write --item "{\"path\": \"../x\"}"
'

test_expect_success 'workspace failures print one failure document' '
	fails_as_json noname WORKSPACE_NOT_FOUND 23 workspace show nope &&
	fails_as_json byname WORKSPACE_NOT_FOUND 23 --workspace nope resolve-path x &&
	fails_as_json noroot WORKSPACE_NOT_FOUND 23 --root "$TRASH/no-such-root" resolve-path x &&
	fails_as_json dup WORKSPACE_EXISTS 24 workspace create test "$OUTSIDE" &&
	fails_as_json badname INVALID_ARGUMENT 2 workspace create "a b" "$OUTSIDE" &&
	fails_as_json nodefault NO_WORKSPACE_SELECTED 25 --home "$TRASH/empty-home" resolve-path x
'

test_expect_success 'a failure document leaves the stored state as it was' '
	find .filekeeper | sort >before &&
	test_must_fail keeper --json publish --create --blob "$(cat blob.id)" docs/guarded.txt >out &&
	test_must_fail keeper --json cat-blob "sha256:$(printf "%064d" 0)" >out &&
	find .filekeeper | sort >after &&
	test_cmp before after &&
	echo "old text" >expect &&
	test_cmp expect docs/guarded.txt
'

test_expect_success 'retryable is false for a stale hash: the identical request fails again' '
	json_get ".error.retryable == false" conflict.out &&
	json_get ".error.details.recovery" conflict.out
'

test_expect_success 'a content conflict reports both hashes in details' '
	test "$(json_get .error.details.expected_hash conflict.out)" = "$(cat crlf.id)" &&
	test "$(json_get .error.details.actual_hash conflict.out)" = "$(keeper hash-object docs/guarded.txt)"
'

# details.path is the caller's own spelling.

test_expect_success 'details.path keeps "./" and doubled slashes as the caller wrote them' '
	given_path_is missing.out ./missing.txt &&
	fails_as_json spelled PATH_NOT_FOUND 3 resolve-path ./sub//nope/deeper &&
	given_path_is spelled.out ./sub//nope/deeper
'

test_expect_success 'details.path is the absolute path exactly as given, not a canonical one' '
	given_path_is absolute.out "$OUTSIDE/x" &&
	fails_as_json abs-dotdot PATH_OUTSIDE_WORKSPACE 4 resolve-path "$WS/sub/../../outside" &&
	given_path_is abs-dotdot.out "$WS/sub/../../outside"
'

test_expect_success 'details.path is the link as given, not where it points' '
	given_path_is escape.out link-out/x &&
	fails_as_json dangling PATH_NOT_FOUND 3 hash-object dangling &&
	given_path_is dangling.out dangling &&
	fails_as_json via-link CONTENT_CONFLICT 15 publish --blob "$(cat blob.id)" \
		--expected-hash "$(cat crlf.id)" d/guarded.txt &&
	given_path_is via-link.out d/guarded.txt
'

test_expect_success 'details.path is given for every path refusal' '
	for doc in dotdot escape linkwrite special state secret directory notdir conflict exists itemout
	do
		json_get .error.details.path $doc.out >/dev/null || exit 1
	done
'

# No host paths.

test_expect_success 'no failure document mentions a host path outside details.path' '
	for doc in *.nopath
	do
		test_no_host_path "$doc" || exit 1
	done
'

test_expect_success 'no failure document for a relative path mentions a host path at all' '
	for doc in dotdot escape linkwrite special state secret missing directory notdir badid noblob \
		binary conflict exists noop itemout noname byname dup badname nodefault spelled dangling
	do
		test_no_host_path $doc.out || exit 1
	done
'

test_expect_success 'a --root that is not a directory is named as the caller gave it, and nowhere else' '
	test "$(json_get .error.details.path noroot.out)" = "$TRASH/no-such-root" &&
	jq "del(.error.details.path)" noroot.out >noroot.rest &&
	test_no_host_path noroot.rest
'

test_expect_success 'a workspace whose root vanished fails without naming the root' '
	mkdir "$TRASH/doomed" &&
	keeper workspace create doomed "$TRASH/doomed" &&
	rmdir "$TRASH/doomed" &&
	fails_as_json vanished WORKSPACE_NOT_FOUND 23 --workspace doomed resolve-path x &&
	test_no_host_path vanished.out
'

test_expect_success 'a home that cannot be created fails without naming it' '
	echo "a file" >"$TRASH/home-is-a-file" &&
	test_must_fail keeper --json --home "$TRASH/home-is-a-file/sub" init >homefile.out 2>homefile.err &&
	one_document homefile.out &&
	json_get ".ok == false" homefile.out &&
	test_no_host_path homefile.out &&
	test ! -s homefile.err
'

# Failures for humans.

test_expect_success 'without --json a refusal is one error[CODE] line on stderr and nothing on stdout' '
	fails_for_humans h-dotdot PATH_OUTSIDE_WORKSPACE 4 resolve-path ../outside/x &&
	fails_for_humans h-escape SYMLINK_ESCAPE_REFUSED 11 resolve-path link-out/x &&
	fails_for_humans h-secret SENSITIVE_PATH_REFUSED 10 resolve-path --for-write .env &&
	fails_for_humans h-special SPECIAL_FILE_REFUSED 13 resolve-path fifo
'

test_expect_success 'without --json other failures follow the same shape' '
	fails_for_humans h-missing PATH_NOT_FOUND 3 hash-object missing.txt &&
	fails_for_humans h-noblob STORAGE_ERROR 26 cat-blob "sha256:$(printf "%064d" 0)" &&
	fails_for_humans h-conflict CONTENT_CONFLICT 15 publish --blob "$(cat blob.id)" \
		--expected-hash "$(cat crlf.id)" docs/guarded.txt &&
	fails_for_humans h-noname WORKSPACE_NOT_FOUND 23 workspace show nope &&
	fails_for_humans h-nodefault NO_WORKSPACE_SELECTED 25 --home "$TRASH/empty-home" resolve-path x
'

test_expect_success 'without --json the error line carries the message of the JSON document' '
	json_get .error.message dotdot.out >msg &&
	printf "error[PATH_OUTSIDE_WORKSPACE]: %s\n" "$(cat msg)" >expect &&
	head -n 1 h-dotdot.err >actual &&
	test_cmp expect actual
'

test_expect_success 'without --json, --verbose adds details only as indented lines' '
	fails_for_humans h-verbose CONTENT_CONFLICT 15 --verbose publish --blob "$(cat blob.id)" \
		--expected-hash "$(cat crlf.id)" docs/guarded.txt &&
	grep "^  .*expected_hash" h-verbose.err
'

test_expect_success 'no human error for a relative path mentions a host path' '
	for err in h-dotdot h-escape h-secret h-special h-missing h-noblob h-conflict h-noname h-nodefault
	do
		test_no_host_path $err.err || exit 1
	done
'

# Usage errors.

test_expect_success 'a missing argument with --json is an INVALID_ARGUMENT document, exit 2' '
	fails_as_json usage-missing INVALID_ARGUMENT 2 resolve-path
'

test_expect_success 'an unknown flag or subcommand with --json is an INVALID_ARGUMENT document, exit 2' '
	fails_as_json usage-flag INVALID_ARGUMENT 2 --no-such-flag workspace list &&
	fails_as_json usage-sub INVALID_ARGUMENT 2 frobnicate &&
	fails_as_json usage-none INVALID_ARGUMENT 2
'

test_expect_success 'conflicting flags with --json are an INVALID_ARGUMENT document, exit 2' '
	fails_as_json usage-conflict INVALID_ARGUMENT 2 publish --create --expected-hash "$(cat blob.id)" \
		--blob "$(cat blob.id)" x.txt
'

test_expect_success 'a usage error document names what is missing' '
	json_get .error.message usage-missing.out >msg &&
	grep -i "path" msg
'

test_expect_success 'a usage error document names the argument it is about, as the MCP server names a tool argument' '
	json_get ".error.details.argument == \"PATH\"" usage-missing.out &&
	json_get ".error.details.argument == \"--no-such-flag\"" usage-flag.out &&
	fails_as_json usage-value INVALID_ARGUMENT 2 file delete-lines x.txt --start 1 --end=-1 &&
	json_get ".error.details.argument == \"--end\"" usage-value.out
'

test_expect_success 'a usage error without --json exits 2 and prints nothing on stdout' '
	test_expect_code 2 keeper resolve-path >usage.out 2>usage.err &&
	test ! -s usage.out &&
	test -s usage.err &&
	test_expect_code 2 keeper --no-such-flag workspace list >usage.out 2>usage.err &&
	test ! -s usage.out
'

# The version.

test_expect_success 'keeper --version prints the release version and the journal schema' '
	keeper --version >version.out 2>version.err &&
	test ! -s version.err &&
	release=$(sed -n "s/^version *= *\"\(.*\)\"$/\1/p" "$TEST_DIRECTORY/../Cargo.toml" | head -n 1) &&
	test -n "$release" &&
	grep -E "^keeper $release \(journal schema [0-9]+\b" version.out
'

test_expect_success 'the journal schema keeper --version names is the one it writes' '
	schema=$(sed -n "s/.*journal schema \([0-9][0-9]*\).*/\1/p" version.out) &&
	test -f .filekeeper/journal.sqlite3 &&
	sqlite3 .filekeeper/journal.sqlite3 "PRAGMA user_version" >actual &&
	echo "$schema" >expect &&
	test_cmp expect actual
'

test_expect_success 'keeper --json --version is one JSON document with the same facts' '
	keeper --json --version >out &&
	json_get ".ok" out &&
	test "$(json_get ".version" out)" = "$(sed -n "s/^keeper \([^ ]*\) .*/\1/p" version.out)" &&
	test "$(json_get ".journal_schema_version" out)" = "$(sed -n "s/.*journal schema \([0-9][0-9]*\).*/\1/p" version.out)" &&
	test "$(json_get ".commit" out)" = "$(sed -n "s/.*; commit \([0-9a-z]*\))$/\1/p" version.out)"
'

# Built from a git checkout (not a source archive, where the commit is "unknown").
test_lazy_prereq GIT 'git -C "$TEST_DIRECTORY/.." rev-parse --git-dir'

test_expect_success GIT 'the commit keeper --version names is the checkout it was built from' '
	git -C "$TEST_DIRECTORY/.." rev-parse HEAD >head &&
	commit=$(json_get ".commit" out) &&
	echo "$commit" | grep -E "^[0-9a-f]{12}$" &&
	grep "^$commit" head
'

# Content commands.

test_expect_success 'cat-blob writes CRLF content without a final newline unchanged, and nothing else' '
	keeper cat-blob "$(cat crlf.id)" >crlf.got 2>crlf.err &&
	cmp crlf.txt crlf.got &&
	test ! -s crlf.err
'

test_expect_success 'cat-blob writes binary content with NUL and high bytes unchanged' '
	keeper cat-blob "$(cat binary.id)" >binary.got 2>binary.err &&
	cmp binary.bin binary.got &&
	test ! -s binary.err
'

test_expect_success 'cat-blob of the empty blob writes nothing' '
	keeper cat-blob "$(cat empty.id)" >empty.got 2>empty.err &&
	test ! -s empty.got &&
	test ! -s empty.err
'

test_expect_success 'cat-blob --json carries the exact text, CRLF and no final newline included' '
	jq -j .content cat.out >crlf.json-got &&
	cmp crlf.txt crlf.json-got &&
	test "$(json_get .size cat.out)" = "$(wc -c <crlf.txt | tr -d " ")"
'

test_expect_success 'hash-object hashes the bytes unchanged: sha256sum agrees for CRLF content' '
	echo "sha256:$(sha256sum <crlf.txt | cut -d" " -f1)" >expect &&
	keeper hash-object crlf.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'without --json a success prints the result on stdout and notices on stderr' '
	mkdir "$TRASH/repo" &&
	git init -q "$TRASH/repo" &&
	printf notice | keeper --root "$TRASH/repo" hash-object -w --stdin >notice.out 2>notice.err &&
	echo "$(printf notice | keeper hash-object --stdin)" >expect &&
	test_cmp expect notice.out &&
	grep "^warning: " notice.err
'

# Never a panic or a backtrace.

test_expect_success 'failures carry no backtrace even with RUST_BACKTRACE=1' '
	RUST_BACKTRACE=1 RUST_LIB_BACKTRACE=1 &&
	export RUST_BACKTRACE RUST_LIB_BACKTRACE &&
	test_must_fail keeper --json resolve-path ../x >bt1.out 2>bt1.err &&
	test_must_fail keeper resolve-path ../x >bt2.out 2>bt2.err &&
	test_must_fail keeper cat-blob "sha256:$(printf "%064d" 0)" >bt3.out 2>bt3.err &&
	test_must_fail keeper --json frobnicate >bt4.out 2>bt4.err &&
	test_must_fail keeper --json --root "$TRASH/no-such-root" fsck >bt5.out 2>bt5.err &&
	! grep -i -e panicked -e RUST_BACKTRACE -e "stack backtrace" bt*.out bt*.err
'

test_expect_success 'an argument that is not UTF-8 is an INVALID_ARGUMENT document' '
	test_expect_code 2 keeper --json resolve-path "$(printf "a\377b")" >odd1.out 2>odd1.err &&
	test_error_code INVALID_ARGUMENT odd1.out &&
	test ! -s odd1.err
'

test_expect_success 'a path with over-long components fails with one failure document' '
	long=$(printf "a%.0s" $(seq 5000)) &&
	test_must_fail keeper --json resolve-path "$long/$long" >odd2.out 2>odd2.err &&
	one_document odd2.out &&
	json_get ".ok == false" odd2.out &&
	test_no_host_path odd2.out
'

test_expect_success 'a closed stdout does not crash keeper' '
	keeper --json workspace list >&- 2>odd3.err &&
	keeper --version >&- 2>>odd3.err
'

test_expect_success 'cat-blob into a pipe closed early exits with an error code, not a crash' '
	head -c 3000000 /dev/zero | keeper hash-object -w --stdin >big.id &&
	{ keeper cat-blob "$(cat big.id)" 2>odd4.err; echo $? >odd4.code; } | head -c 1 >/dev/null &&
	test "$(cat odd4.code)" -ne 0 &&
	test "$(cat odd4.code)" -lt 101
'

test_expect_success 'no output of any command in this script contains a panic or a backtrace' '
	ls *.out *.err >outputs &&
	test "$(wc -l <outputs)" -gt 50 &&
	! grep -i -e panicked -e RUST_BACKTRACE -e "stack backtrace" $(cat outputs)
'

test_done
