#!/bin/sh
test_description='a storm of SIGKILLs at random moments loses nothing

Mutating commands are started and killed with SIGKILL after a random few milliseconds, again
and again (KEEPER_KILL_STORM rounds, 60 by default; the release check runs thousands). After
every kill each file must hold one complete version it was given, never a torn mix; at the end
recovery resolves every interrupted operation, nothing stays pending, no temp file of ours is
left, fsck is clean, and undoing what committed walks back through complete versions.'
. ./test-lib.sh

rounds=${KEEPER_KILL_STORM:-60}

# version N: the Nth complete content of the file, long enough that a torn write would show.
version () {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= 2000; i++) printf "version %d line %d\n", n, i }'
}

test_expect_success 'setup: the file at version 0, and the hash of every version' '
	version 0 >doc.txt &&
	keeper file write doc.txt --input doc.txt >/dev/null &&
	: >known &&
	i=0 &&
	while test $i -le '"$rounds"'; do
		version $i | sha256sum | cut -d" " -f1 >>known &&
		i=$((i + 1))
	done
'

test_expect_success "$rounds writes, each killed after a random 0-29 ms, never tear the file" '
	i=1 &&
	while test $i -le '"$rounds"'; do
		version $i >"$TRASH/next" &&
		ms=$(awk -v s="$i" "BEGIN { srand(s * 7919 % 65521); rand(); printf \"%d\", rand() * 30 }") &&
		timeout -s KILL "0.0$(printf %02d "$ms")" keeper file write doc.txt --input "$TRASH/next" >/dev/null 2>&1
		sha256sum <doc.txt | cut -d" " -f1 >now &&
		grep -qxf now known || { echo "torn after round $i"; return 1; }
		i=$((i + 1))
	done
'

test_expect_success 'recovery resolves every interrupted operation; nothing stays pending' '
	keeper --json recover >out;
	code=$? &&
	test $code -eq 0 -o $code -eq 19 &&
	test "$(sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*) FROM operations WHERE status = '\''pending'\''")" = 0 &&
	sqlite3 .filekeeper/journal.sqlite3 "SELECT status, count(*) FROM operations GROUP BY status" | sed "s/^/# storm outcome: /"
'

test_expect_success 'no temp file of ours is left, and fsck is clean' '
	find . -name ".fk-tmp-*" >temps &&
	test_line_count = 0 temps &&
	keeper fsck >/dev/null
'

test_expect_success 'undoing the committed writes walks back through complete versions' '
	n=0 &&
	while keeper history undo-last >/dev/null 2>&1 && test $n -lt 10; do
		sha256sum <doc.txt | cut -d" " -f1 >now &&
		grep -qxf now known || { echo "torn after undo $n"; return 1; }
		n=$((n + 1))
	done &&
	test $n -gt 0
'

test_done
