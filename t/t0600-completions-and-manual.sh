#!/bin/sh
test_description='shell completions and the manual page come from the command definitions'
. ./test-lib.sh

for shell in bash zsh fish powershell; do
	test_expect_success "completions for $shell name the subcommands" "
		keeper completions $shell >out &&
		grep -q workspace out &&
		grep -q history out &&
		grep -q apply-patch out
	"
done

test_expect_success 'an unknown shell is a usage error' '
	test_expect_code 2 keeper completions tcsh 2>err
'

test_expect_success 'the manual page is roff naming every top-level command' '
	keeper man >keeper.1 &&
	grep -q "^\.TH keeper 1" keeper.1 &&
	sed "s/\\\\-/-/g" keeper.1 >plain &&
	for cmd in init workspace file dir history hash-object cat-blob journal-begin publish fsck recover; do
		grep -q -- "$cmd" plain || { echo "missing $cmd"; return 1; }
	done
'

test_expect_success 'completions and the manual need no workspace and create nothing' '
	rm -rf "$TRASH/empty-home" &&
	FILEKEEPER_HOME="$TRASH/empty-home" keeper completions bash >/dev/null &&
	FILEKEEPER_HOME="$TRASH/empty-home" keeper man >/dev/null &&
	test ! -e "$TRASH/empty-home" &&
	test ! -e .filekeeper
'

test_done
