#!/bin/sh
test_description='progress is drawn on a terminal only, and never reaches a result

Long work (grep and search of a tree, fsck of a store, the steps of a big mutation) reports
progress on stderr when stderr is a terminal, as a line it erases when the work ends. script(1)
gives keeper a terminal here, and FILEKEEPER_PROGRESS_DELAY_MS=0 shows the line at once
instead of after the usual moment. With --json, with --quiet, or with stderr not a terminal,
nothing is drawn at all, and stdout never carries it.'
. ./test-lib.sh

# script(1) gives keeper its terminal.
test_require_prereq TTY

FILEKEEPER_PROGRESS_DELAY_MS=0
export FILEKEEPER_PROGRESS_DELAY_MS

# on_terminal CMD: runs the shell command CMD with a terminal as its stdin, stdout and stderr;
# what the terminal showed goes to the file "screen".
on_terminal () {
	script -qec "$1" /dev/null >screen 2>&1 </dev/null
}

test_expect_success 'setup: a tree of 300 files and a store with objects' '
	mkdir tree &&
	i=0 &&
	while test $i -lt 300; do
		echo "needle $i" >tree/f$i.txt && i=$((i + 1)) || return 1
	done &&
	keeper file write tree/f1.txt --content "changed" >/dev/null &&
	keeper file write tree/f2.txt --content "changed" >/dev/null
'

test_expect_success 'grep on a terminal draws a progress line on stderr and erases it' '
	on_terminal "keeper file grep tree needle --max-results 50 >$TRASH/out" &&
	grep -a "searching files [0-9]" screen &&
	grep -a "$(printf "\033\\[K")" screen &&
	! grep -a "searching files" "$TRASH/out"
'

test_expect_success 'search and fsck on a terminal draw theirs' '
	on_terminal "keeper file search tree \"*.txt\" >/dev/null" &&
	grep -a "walking [0-9]" screen &&
	on_terminal "keeper fsck >/dev/null" &&
	grep -a "verifying objects \\[[#-]*\\] [0-9]*/[0-9]*" screen
'

test_expect_success 'a recursive delete on a terminal counts its steps against their total' '
	cp -r tree doomed &&
	on_terminal "keeper dir delete doomed --recursive --confirm-recursive >/dev/null" &&
	grep -a "applying changes \\[[#-]*\\] [0-9]*/301" screen &&
	! test -e doomed
'

test_expect_success 'with --json nothing is drawn, even on a terminal' '
	on_terminal "keeper --json file grep tree needle --max-results 50 >/dev/null" &&
	! grep -a "searching" screen &&
	on_terminal "keeper --json fsck >/dev/null" &&
	! grep -a "verifying" screen
'

test_expect_success 'with --quiet nothing is drawn' '
	on_terminal "keeper --quiet file grep tree needle --max-results 50 >/dev/null" &&
	! grep -a "searching" screen
'

test_expect_success 'when stderr is not a terminal nothing is drawn' '
	keeper file grep tree needle --max-results 50 >out 2>err &&
	! grep -a "searching" err &&
	! grep -a "$(printf "\033")" err out &&
	on_terminal "keeper fsck 2>$TRASH/err >/dev/null" &&
	! grep -a "verifying" "$TRASH/err" screen
'

test_done
