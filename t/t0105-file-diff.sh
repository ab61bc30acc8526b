#!/bin/sh
test_description='keeper file diff

file diff prints the unified diff between two text files of the workspace, as diff -u writes it
(headed --- a/PATH and +++ b/OTHER, three lines of context), the same shape as the diffs in a
mutation'"'"'s result. Identical files give an empty diff and say so. Directories are NOT_A_FILE,
binary and undecodable files BINARY_CONTENT_REFUSED, a file above max_read_bytes LIMIT_EXCEEDED.
A diff longer than --max-bytes is cut at a whole line and says truncated, with the whole
diff'"'"'s line counts.'
. ./test-lib.sh

# sha256_of FILE: the content hash sha256sum computes for FILE, as sha256:<hex>.
sha256_of () {
	printf 'sha256:%s\n' "$(sha256sum <"$1" | cut -d" " -f1)"
}

test_expect_success 'setup: two versions of a text, a copy, binary and undecodable files' '
	seq 1 40 >old.txt &&
	seq 1 40 | sed -e "s/^5$/five/" -e "/^20$/d" -e "s/^33$/33\nthirty-three and a half/" >new.txt &&
	cp old.txt same.txt &&
	printf "no newline at the end" >open-end.txt &&
	printf "no newline at the end\n" >closed-end.txt &&
	printf "text\000with a NUL\n" >blob.bin &&
	printf "caf\351\n" >latin1.txt &&
	mkdir adir &&
	echo "top secret content" >"$OUTSIDE/secret.txt" &&
	ln -s "$OUTSIDE/secret.txt" escape-link &&
	ln -s new.txt inside-link &&
	seq 1 5000 >long-old.txt &&
	seq 1 5000 | sed "s/$/ changed/" >long-new.txt
'

test_expect_success 'the diff is the one diff -u writes, headed a/PATH and b/OTHER' '
	keeper file diff old.txt new.txt >out &&
	printf -- "--- a/old.txt\n+++ b/new.txt\n" >expect &&
	{ diff -u old.txt new.txt | tail -n +3 >>expect || true; } &&
	test_cmp expect out
'

test_expect_success 'the JSON result carries the diff, its line counts and both hashes' '
	keeper --json file diff old.txt new.txt >out &&
	jq -j .diff out >diff.txt &&
	keeper file diff old.txt new.txt >human &&
	cmp diff.txt human &&
	test "$(json_get .identical out)" = false &&
	test "$(json_get .truncated out)" = false &&
	test "$(json_get .lines_added out)" = 2 &&
	test "$(json_get .lines_removed out)" = 2 &&
	test "$(json_get .path_hash out)" = "$(sha256_of old.txt)" &&
	test "$(json_get .other_hash out)" = "$(sha256_of new.txt)" &&
	test "$(json_get .path out)" = old.txt &&
	test "$(json_get .other out)" = new.txt
'

test_expect_success 'reading never creates the workspace state' '
	test ! -e .filekeeper
'

test_expect_success 'identical files give an empty diff and say so' '
	keeper --json file diff old.txt same.txt >out &&
	test "$(json_get .identical out)" = true &&
	test "$(jq -r .diff out)" = "" &&
	test "$(json_get .lines_added out)" = 0 &&
	keeper file diff old.txt same.txt >out 2>err &&
	test_must_be_empty out &&
	grep "^identical: both are $(sha256_of old.txt)$" err
'

test_expect_success 'a file diffed with itself is identical' '
	keeper --json file diff new.txt new.txt >out &&
	test "$(json_get .identical out)" = true
'

test_expect_success 'a missing newline at the end is marked as diff -u marks it' '
	keeper file diff open-end.txt closed-end.txt >out &&
	grep -x "\\\\ No newline at end of file" out &&
	printf -- "--- a/open-end.txt\n+++ b/closed-end.txt\n" >expect &&
	{ diff -u open-end.txt closed-end.txt | tail -n +3 >>expect || true; } &&
	test_cmp expect out
'

test_expect_success 'a link inside the workspace is diffed as its target' '
	keeper --json file diff new.txt inside-link >out &&
	test "$(json_get .identical out)" = true &&
	keeper file diff old.txt inside-link >out &&
	grep -x "+++ b/inside-link" out
'

test_expect_success 'a directory on either side is NOT_A_FILE naming it' '
	refused 5 NOT_A_FILE --naming adir file diff adir old.txt &&
	refused 5 NOT_A_FILE --naming adir file diff old.txt adir
'

test_expect_success 'a binary file on either side is BINARY_CONTENT_REFUSED naming it' '
	refused 20 BINARY_CONTENT_REFUSED --naming blob.bin file diff blob.bin old.txt &&
	refused 20 BINARY_CONTENT_REFUSED --naming blob.bin file diff old.txt blob.bin &&
	json_get .error.message refusal.json | grep NUL
'

test_expect_success 'a file that is not UTF-8 is BINARY_CONTENT_REFUSED naming it' '
	refused 20 BINARY_CONTENT_REFUSED --naming latin1.txt file diff old.txt latin1.txt &&
	json_get .error.message refusal.json | grep UTF-8
'

test_expect_success 'a missing file is PATH_NOT_FOUND with the nearest names' '
	refused 3 PATH_NOT_FOUND --naming neww.txt file diff old.txt neww.txt &&
	json_get ".error.details.similar_paths[]" refusal.json | grep -x new.txt
'

test_expect_success 'paths that leave the workspace are refused and show nothing of it' '
	refused 11 SYMLINK_ESCAPE_REFUSED --naming escape-link file diff old.txt escape-link &&
	refused 4 PATH_OUTSIDE_WORKSPACE --naming ../outside/secret.txt file diff ../outside/secret.txt old.txt &&
	refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE --naming "$OUTSIDE/secret.txt" file diff old.txt "$OUTSIDE/secret.txt" &&
	! grep "top secret" refusal.json
'

test_expect_success 'a diff longer than --max-bytes is cut at a whole line and says truncated' '
	keeper --json file diff long-old.txt long-new.txt >whole.json &&
	test "$(json_get .truncated whole.json)" = false &&
	keeper --json file diff long-old.txt long-new.txt --max-bytes 1000 >out &&
	test "$(json_get .truncated out)" = true &&
	jq -j .diff out >cut &&
	jq -j .diff whole.json >whole &&
	test "$(wc -c <cut)" -le 1000 &&
	test "$(wc -c <cut)" -gt 900 &&
	test "$(tail -c 1 cut | od -An -c | tr -d " ")" = "\\n" &&
	head -c "$(wc -c <cut)" whole | cmp - cut &&
	test "$(json_get .lines_added out)" = 5000 &&
	test "$(json_get .lines_removed out)" = 5000
'

test_expect_success 'a cut diff says so on stderr too' '
	keeper file diff long-old.txt long-new.txt --max-bytes 1000 >out 2>err &&
	grep -e "^cut at the --max-bytes bound" err
'

test_expect_success '--max-bytes 0 is INVALID_ARGUMENT, above max_read_bytes LIMIT_EXCEEDED' '
	refused 2 INVALID_ARGUMENT file diff old.txt new.txt --max-bytes 0 &&
	json_get .error.message refusal.json | grep -e "--max-bytes" &&
	refused 21 LIMIT_EXCEEDED file diff old.txt new.txt --max-bytes 5242881 &&
	test "$(json_get .error.details.limit refusal.json)" = 5242880
'

test_expect_success 'a file above max_read_bytes is LIMIT_EXCEEDED naming it' '
	mkdir "$TRASH/small-home" &&
	printf "[filekeeper]\nmax_read_bytes = 64\n" >"$TRASH/small-home/config.toml" &&
	test_expect_code 21 env FILEKEEPER_HOME="$TRASH/small-home" \
		keeper --root "$WS" --json file diff open-end.txt old.txt >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get .error.details.path out)" = old.txt &&
	test "$(json_get .error.details.limit out)" = 64
'

test_done
