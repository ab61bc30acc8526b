#!/bin/sh
test_description='confinement: every path lands inside the workspace root, or is refused with its code

Relative paths resolve inside the root; ".." anywhere is PATH_OUTSIDE_WORKSPACE (4); an
absolute path is accepted only inside the root (else ABSOLUTE_PATH_OUTSIDE_WORKSPACE, 6, even
for a sibling that shares the root prefix); a symlink leaving the root is SYMLINK_ESCAPE_REFUSED
(11) for reads and writes; a symlink as write target is SYMLINK_WRITE_REFUSED (9); FIFOs are
SPECIAL_FILE_REFUSED (13); .filekeeper/ is PATH_IS_STATE_PATH (8); credential-shaped write
targets are SENSITIVE_PATH_REFUSED (10) unless --i-accept-secret-write-risk is given. After any
refusal nothing outside the root has been created or changed.'
. ./test-lib.sh

EVIL=${WS}-evil

# snapshot_outside: every entry outside the root that a confused resolver could touch, with its
# type, mode, size, mtime and content hash.
snapshot_outside () {
	find "$OUTSIDE" "$EVIL" -printf "%p %y %m %s %T@\n" | sort &&
	find "$OUTSIDE" "$EVIL" -type f -exec sha256sum {} + | sort
}

# outside_unchanged: nothing outside the root differs from the snapshot taken at setup.
outside_unchanged () {
	snapshot_outside >"$TRASH/outside.now" &&
	test_cmp "$TRASH/outside.before" "$TRASH/outside.now"
}

# resolved_as PATH EXPECTED [FLAG...]: resolve-path accepts PATH and reports EXPECTED as its
# real workspace-relative path.
resolved_as () {
	given=$1 expected=$2 &&
	shift 2 &&
	keeper --json resolve-path "$@" "$given" >resolved.json &&
	echo "$expected" >resolved.expect &&
	json_get ".resolved" resolved.json >resolved.actual &&
	test_cmp resolved.expect resolved.actual
}

# resolve_refused EXIT CODE PATH [FLAG...]: resolve-path refuses PATH with exit EXIT and CODE,
# naming the caller's own PATH in details.path (see refused).
resolve_refused () {
	rr_exit=$1 rr_code=$2 rr_given=$3 &&
	shift 3 &&
	refused "$rr_exit" "$rr_code" --naming "$rr_given" resolve-path "$@" "$rr_given"
}

# published_refused EXIT CODE PATH [FLAG...]: publish refuses PATH with exit EXIT and CODE,
# naming the caller's own PATH in details.path.
published_refused () {
	pr_exit=$1 pr_code=$2 pr_given=$3 &&
	shift 3 &&
	refused "$pr_exit" "$pr_code" --naming "$pr_given" \
		publish "$@" --blob "$(cat "$TRASH/blob")" "$pr_given"
}

test_expect_success 'setup: files, links inside and out, a FIFO, a stored blob, a snapshot of outside' '
	echo outside >"$OUTSIDE/victim" &&
	mkdir "$OUTSIDE/dir" &&
	mkdir "$EVIL" &&
	echo evil >"$EVIL/f" &&
	mkdir sub docs s1 &&
	echo inside >sub/f &&
	echo real >docs/real.txt &&
	ln -s docs/real.txt alias &&
	ln -s docs d &&
	ln -s ../outside out-dir &&
	ln -s ../outside/victim out-file &&
	ln -s "$OUTSIDE" abs-out &&
	ln -s "$OUTSIDE/victim" abs-out-file &&
	ln -s s1/l2 hop &&
	ln -s ../../outside s1/l2 &&
	ln -s .filekeeper st &&
	ln -s ../.filekeeper sub/st2 &&
	mkfifo fifo &&
	test -p fifo &&
	printf x | keeper hash-object -w --stdin >"$TRASH/blob" &&
	grep -E "^sha256:[0-9a-f]{64}$" "$TRASH/blob" &&
	snapshot_outside >"$TRASH/outside.before" &&
	grep -F "$OUTSIDE/victim" "$TRASH/outside.before" &&
	grep -F "$EVIL/f" "$TRASH/outside.before"
'

# Relative paths.

test_expect_success 'a relative path to an existing file resolves inside as itself' '
	resolved_as sub/f sub/f &&
	echo "true file false" >expect &&
	jq -r "\"\(.exists) \(.kind) \(.for_write)\"" resolved.json >actual &&
	test_cmp expect actual
'

test_expect_success 'a relative path to a file not yet there resolves inside with exists false' '
	resolved_as sub/new.txt sub/new.txt --for-write &&
	echo "false null true" >expect &&
	jq -r "\"\(.exists) \(.kind) \(.for_write)\"" resolved.json >actual &&
	test_cmp expect actual
'

test_expect_success 'redundant "." and "/" components are normalised away' '
	resolved_as ./sub//./f sub/f
'

test_expect_success 'the root itself resolves to "."' '
	resolved_as . . &&
	test "$(json_get .kind resolved.json)" = directory
'

test_expect_success 'a leading ".." is PATH_OUTSIDE_WORKSPACE, exit 4' '
	resolve_refused 4 PATH_OUTSIDE_WORKSPACE ../outside/victim &&
	outside_unchanged
'

test_expect_success 'a ".." in the middle is PATH_OUTSIDE_WORKSPACE even when it would stay inside' '
	resolve_refused 4 PATH_OUTSIDE_WORKSPACE sub/../sub/f &&
	resolve_refused 4 PATH_OUTSIDE_WORKSPACE sub/../../outside/victim --for-write &&
	outside_unchanged
'

test_expect_success 'a trailing ".." is PATH_OUTSIDE_WORKSPACE' '
	resolve_refused 4 PATH_OUTSIDE_WORKSPACE sub/.. &&
	outside_unchanged
'

# Absolute paths.

test_expect_success 'an absolute path inside the root is accepted and reported workspace-relative' '
	resolved_as "$WS/sub/f" sub/f &&
	resolved_as "$WS/sub/f" sub/f --for-write &&
	resolved_as "$WS/sub/later.txt" sub/later.txt --for-write
'

test_expect_success 'the absolute path of the root itself resolves to "."' '
	resolved_as "$WS" .
'

test_expect_success 'an absolute path outside the root is ABSOLUTE_PATH_OUTSIDE_WORKSPACE, exit 6' '
	resolve_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE "$OUTSIDE/victim" &&
	resolve_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE "$OUTSIDE/new" --for-write &&
	resolve_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE /etc/passwd &&
	outside_unchanged
'

test_expect_success 'a sibling sharing the root as a prefix is outside: exit 6' '
	test -f "$EVIL/f" &&
	resolve_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE "$EVIL/f" &&
	resolve_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE "$EVIL/f" --for-write &&
	outside_unchanged
'

test_expect_success 'an absolute path with ".." is PATH_OUTSIDE_WORKSPACE' '
	resolve_refused 4 PATH_OUTSIDE_WORKSPACE "$WS/../outside/victim" &&
	outside_unchanged
'

# Symbolic links.

test_expect_success 'a relative symlink inside the root is followed for reads and reported as its real path' '
	resolved_as alias docs/real.txt &&
	test "$(json_get .kind resolved.json)" = file
'

test_expect_success 'a symlinked directory inside the root is followed as a path component' '
	resolved_as d/real.txt docs/real.txt &&
	resolved_as d/new.txt docs/new.txt --for-write
'

test_expect_success 'reading through an inside symlink reads its target' '
	keeper hash-object docs/real.txt >expect &&
	keeper hash-object alias >actual &&
	test_cmp expect actual
'

test_expect_success 'a symlink to outside as a directory component is SYMLINK_ESCAPE_REFUSED for reads' '
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED out-dir/victim &&
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED abs-out/victim &&
	outside_unchanged
'

test_expect_success 'a symlink to outside as a directory component is SYMLINK_ESCAPE_REFUSED for writes' '
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED out-dir/new --for-write &&
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED abs-out/new --for-write &&
	outside_unchanged
'

test_expect_success 'a symlink to outside as the final component is SYMLINK_ESCAPE_REFUSED for reads' '
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED out-file &&
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED abs-out-file &&
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED out-dir &&
	outside_unchanged
'

test_expect_success 'a symlink to outside as the final component is SYMLINK_ESCAPE_REFUSED for writes' '
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED out-file --for-write &&
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED abs-out-file --for-write &&
	outside_unchanged
'

test_expect_success 'a read command (hash-object) refuses a symlink to outside too' '
	test_expect_code 11 keeper --json hash-object out-file >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	test_expect_code 11 keeper --json hash-object out-dir/victim >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	outside_unchanged
'

test_expect_success 'an absolute path spelled through an escaping symlink is refused' '
	test_must_fail keeper --json resolve-path "$WS/out-dir/victim" >out &&
	jq -e ".error.code == \"SYMLINK_ESCAPE_REFUSED\" or .error.code == \"ABSOLUTE_PATH_OUTSIDE_WORKSPACE\"" out &&
	outside_unchanged
'

test_expect_success 'a link chain that climbs out with ../.. is SYMLINK_ESCAPE_REFUSED' '
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED hop/victim &&
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED hop &&
	resolve_refused 11 SYMLINK_ESCAPE_REFUSED hop/new --for-write &&
	outside_unchanged
'

test_expect_success 'a symlink as write target is SYMLINK_WRITE_REFUSED, exit 9, even pointing inside' '
	resolve_refused 9 SYMLINK_WRITE_REFUSED alias --for-write
'

test_expect_success 'publish refuses a symlink write target and leaves the link and its target alone' '
	published_refused 9 SYMLINK_WRITE_REFUSED alias &&
	test -h alias &&
	test "$(readlink alias)" = docs/real.txt &&
	echo real >expect &&
	test_cmp expect docs/real.txt
'

# Special files.

test_expect_success 'a FIFO is SPECIAL_FILE_REFUSED, exit 13, and resolve-path does not hang' '
	test_expect_code 13 timeout 60 keeper --json resolve-path fifo >out &&
	test_error_code SPECIAL_FILE_REFUSED out &&
	test_expect_code 13 timeout 60 keeper --json resolve-path --for-write fifo >out &&
	test_error_code SPECIAL_FILE_REFUSED out
'

test_expect_success 'reading a FIFO with hash-object is refused without hanging' '
	test_expect_code 13 timeout 60 keeper --json hash-object fifo >out &&
	test_error_code SPECIAL_FILE_REFUSED out
'

test_expect_success 'publishing over a FIFO is refused without hanging and leaves the FIFO' '
	test_expect_code 13 timeout 60 keeper --json publish fifo --blob "$(cat "$TRASH/blob")" >out &&
	test_error_code SPECIAL_FILE_REFUSED out &&
	test -p fifo
'

# Filekeeper's own state.

test_expect_success '.filekeeper/x is PATH_IS_STATE_PATH, exit 8, for reads and writes' '
	test -d .filekeeper &&
	resolve_refused 8 PATH_IS_STATE_PATH .filekeeper/x &&
	resolve_refused 8 PATH_IS_STATE_PATH .filekeeper/x --for-write &&
	resolve_refused 8 PATH_IS_STATE_PATH .filekeeper &&
	resolve_refused 8 PATH_IS_STATE_PATH ./.filekeeper/journal.sqlite3
'

test_expect_success 'the absolute spelling of .filekeeper/ is PATH_IS_STATE_PATH' '
	resolve_refused 8 PATH_IS_STATE_PATH "$WS/.filekeeper/objects"
'

test_expect_success 'a symlink leading into .filekeeper/ is PATH_IS_STATE_PATH' '
	resolve_refused 8 PATH_IS_STATE_PATH st/objects &&
	resolve_refused 8 PATH_IS_STATE_PATH st/x --for-write &&
	resolve_refused 8 PATH_IS_STATE_PATH sub/st2/x &&
	resolve_refused 8 PATH_IS_STATE_PATH st
'

test_expect_success 'publish into .filekeeper/ is refused and creates nothing there' '
	find .filekeeper | sort >before &&
	published_refused 8 PATH_IS_STATE_PATH .filekeeper/planted &&
	published_refused 8 PATH_IS_STATE_PATH st/planted &&
	find .filekeeper | sort >after &&
	test_cmp before after
'

test_expect_success 'setup: a workspace nested in this one, with state of its own' '
	mkdir -p nested/inner &&
	echo inner >nested/inner/kept.txt &&
	keeper --root "$WS/nested/inner" hash-object -w kept.txt >/dev/null &&
	test -d nested/inner/.filekeeper &&
	ln -s nested/inner/.filekeeper inner-state
'

test_expect_success 'a nested workspace'"'"'s .filekeeper/ is PATH_IS_STATE_PATH too, for reads and writes' '
	resolve_refused 8 PATH_IS_STATE_PATH nested/inner/.filekeeper/journal.sqlite3 &&
	resolve_refused 8 PATH_IS_STATE_PATH nested/inner/.filekeeper/lock --for-write &&
	resolve_refused 8 PATH_IS_STATE_PATH nested/inner/.filekeeper &&
	resolve_refused 8 PATH_IS_STATE_PATH nested/inner/.FILEKEEPER/x --for-write &&
	resolve_refused 8 PATH_IS_STATE_PATH inner-state/objects &&
	resolve_refused 8 PATH_IS_STATE_PATH ./nested//inner/.filekeeper/x --for-write
'

test_expect_success 'publish into a nested workspace'"'"'s state is refused and creates nothing there' '
	find nested/inner/.filekeeper | sort >before &&
	published_refused 8 PATH_IS_STATE_PATH nested/inner/.filekeeper/planted &&
	published_refused 8 PATH_IS_STATE_PATH inner-state/planted &&
	find nested/inner/.filekeeper | sort >after &&
	test_cmp before after
'

test_expect_success 'a workspace root inside a .filekeeper/ directory is PATH_IS_STATE_PATH, registered or not' '
	test_expect_code 8 keeper --json --root "$WS/nested/inner/.filekeeper" file list >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_expect_code 8 keeper --json --root "$WS/.filekeeper/objects/.." status >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_expect_code 8 keeper --json workspace create inner-state "$WS/nested/inner/.filekeeper" >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_no_host_path out &&
	keeper --json workspace list >out &&
	! grep inner-state out
'

test_expect_success 'the nested workspace'"'"'s own files stay reachable' '
	keeper --json resolve-path --for-write nested/inner/kept.txt >out &&
	test "$(json_get .path out)" = nested/inner/kept.txt
'

# Credential-shaped write targets.

SENSITIVE=".env .env.local x.pem x.key id_rsa id_ed25519 x.p12 x.pfx authorized_keys .netrc .ssh/config .gnupg/x .aws/credentials"

test_expect_success 'setup: credential-shaped files exist in the workspace' '
	mkdir .ssh .gnupg .aws &&
	for p in $SENSITIVE
	do
		echo "secret $p" >"$p" || exit 1
	done
'

test_expect_success 'each credential-shaped write target is SENSITIVE_PATH_REFUSED, exit 10' '
	for p in $SENSITIVE
	do
		resolve_refused 10 SENSITIVE_PATH_REFUSED "$p" --for-write || exit 1
	done
'

test_expect_success 'each credential-shaped write target is allowed with --i-accept-secret-write-risk' '
	for p in $SENSITIVE
	do
		resolved_as "$p" "$p" --for-write --i-accept-secret-write-risk || exit 1
	done
'

test_expect_success 'each credential-shaped path is allowed for reads' '
	for p in $SENSITIVE
	do
		resolved_as "$p" "$p" &&
		keeper hash-object "$p" >/dev/null || exit 1
	done
'

test_expect_success 'a credential-shaped target not yet there is refused for writes as well' '
	resolve_refused 10 SENSITIVE_PATH_REFUSED sub/.env.production --for-write &&
	resolve_refused 10 SENSITIVE_PATH_REFUSED sub/.ssh/id_rsa --for-write &&
	test ! -e sub/.env.production
'

test_expect_success 'a symlinked alias of .ssh/ is still a credential-shaped write target' '
	ln -s .ssh keys &&
	resolve_refused 10 SENSITIVE_PATH_REFUSED keys/config --for-write
'

test_expect_success 'publish refuses a credential-shaped target and leaves it untouched' '
	cp .env expect &&
	published_refused 10 SENSITIVE_PATH_REFUSED .env &&
	test_cmp expect .env &&
	published_refused 10 SENSITIVE_PATH_REFUSED new.pem &&
	test ! -e new.pem
'

test_expect_success 'publish with --i-accept-secret-write-risk writes the credential-shaped target' '
	keeper --json publish --i-accept-secret-write-risk --blob "$(cat "$TRASH/blob")" .env >out &&
	json_get .ok out &&
	printf x >expect &&
	test_cmp expect .env
'

test_expect_success 'the human refusal names the CLI flag --i-accept-secret-write-risk' '
	test_expect_code 10 keeper resolve-path --for-write .netrc >out 2>err &&
	test ! -s out &&
	head -n 1 err | grep "^error\[SENSITIVE_PATH_REFUSED\]: " &&
	grep -F -- "--i-accept-secret-write-risk" err &&
	! grep -F -e allow_sensitive_write -e i_accept_secret_write_risk err
'

test_expect_success 'the JSON refusal message names only the CLI flag' '
	test_expect_code 10 keeper --json resolve-path --for-write .netrc >out &&
	json_get .error.message out >msg &&
	grep -F -- "--i-accept-secret-write-risk" msg &&
	! grep -F -e allow_sensitive_write -e i_accept_secret_write_risk msg
'

# Publishing through the refusals: nothing outside is ever written.

test_expect_success 'publish refuses ".." and absolute paths outside, and writes nothing outside' '
	published_refused 4 PATH_OUTSIDE_WORKSPACE ../outside/victim &&
	published_refused 4 PATH_OUTSIDE_WORKSPACE ../outside/new &&
	published_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE "$OUTSIDE/victim" &&
	published_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE "$OUTSIDE/new" &&
	published_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE "$EVIL/f" &&
	published_refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE "$EVIL/new" &&
	outside_unchanged
'

test_expect_success 'publish refuses escaping symlinks and link chains, and writes nothing outside' '
	published_refused 11 SYMLINK_ESCAPE_REFUSED out-file &&
	published_refused 11 SYMLINK_ESCAPE_REFUSED abs-out-file &&
	published_refused 11 SYMLINK_ESCAPE_REFUSED out-dir/victim &&
	published_refused 11 SYMLINK_ESCAPE_REFUSED out-dir/new &&
	published_refused 11 SYMLINK_ESCAPE_REFUSED abs-out/new &&
	published_refused 11 SYMLINK_ESCAPE_REFUSED hop/new &&
	published_refused 11 SYMLINK_ESCAPE_REFUSED "$WS/out-dir/new" &&
	outside_unchanged
'

test_expect_success 'the escaping links themselves are left as they were' '
	test "$(readlink out-file)" = ../outside/victim &&
	test "$(readlink out-dir)" = ../outside &&
	test "$(readlink s1/l2)" = ../../outside
'

test_expect_success 'publish to a relative path inside succeeds, the control for the refusals' '
	keeper --json publish --blob "$(cat "$TRASH/blob")" sub/published >out &&
	test "$(json_get .resolved out)" = sub/published &&
	printf x >expect &&
	test_cmp expect sub/published &&
	outside_unchanged
'

test_expect_success 'publish to an absolute path inside writes the workspace file' '
	keeper --json publish --blob "$(cat "$TRASH/blob")" "$WS/docs/abs.txt" >out &&
	test "$(json_get .resolved out)" = docs/abs.txt &&
	printf x >expect &&
	test_cmp expect docs/abs.txt &&
	outside_unchanged
'

test_expect_success 'after all the refusals above, nothing outside the root was created or changed' '
	outside_unchanged &&
	echo outside >expect &&
	test_cmp expect "$OUTSIDE/victim" &&
	echo evil >expect &&
	test_cmp expect "$EVIL/f"
'

test_expect_success 'a home inside the workspace is out of bounds: its configuration is neither read nor written' '
	mkdir -p "$TRASH/homews" &&
	inside="--home $TRASH/homews/.local/fk --root $TRASH/homews" &&
	keeper $inside init >/dev/null &&
	cp "$TRASH/homews/.local/fk/config.toml" config.before &&
	test_expect_code 8 keeper $inside --json file write .local/fk/config.toml --content "# mine" >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_expect_code 8 keeper $inside --json file read .local//fk/./config.toml >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_cmp config.before "$TRASH/homews/.local/fk/config.toml"
'

test_expect_success 'a home inside the workspace is not reached through a link or by deleting a directory above it' '
	inside="--home $TRASH/homews/.local/fk --root $TRASH/homews" &&
	ln -s .local/fk "$TRASH/homews/to-home" &&
	test_expect_code 8 keeper $inside --json file read to-home/config.toml >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_expect_code 8 keeper $inside --json dir delete .local --recursive --confirm-recursive >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_cmp config.before "$TRASH/homews/.local/fk/config.toml" &&
	keeper $inside --json file write .local/mine.txt --content "still mine" >out &&
	test "$(cat "$TRASH/homews/.local/mine.txt")" = "still mine"
'

test_expect_success 'a listing, a search and a grep pass over a home inside the workspace' '
	inside="--home $TRASH/homews/.local/fk --root $TRASH/homews" &&
	keeper $inside file list .local --recursive >out &&
	grep "^.local/mine.txt" out &&
	! grep "/fk" out &&
	keeper $inside file search . "*.toml" >out &&
	! grep config.toml out &&
	keeper $inside file grep . max_ >out &&
	! grep config.toml out
'

test_expect_success 'a home that is the workspace root itself keeps its own files out of bounds' '
	mkdir -p "$TRASH/homeroot" &&
	same="--home $TRASH/homeroot --root $TRASH/homeroot" &&
	keeper $same init >/dev/null &&
	test_expect_code 8 keeper $same --json file write config.toml --content "# mine" >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_expect_code 8 keeper $same --json file delete registry.sqlite3 >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	keeper $same --json file write notes.txt --content "mine" >out &&
	test "$(cat "$TRASH/homeroot/notes.txt")" = mine
'

test_done
