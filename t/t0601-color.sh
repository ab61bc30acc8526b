#!/bin/sh
test_description='diffs are coloured only when asked for or on a terminal'
. ./test-lib.sh

esc=$(printf '\033')

test_expect_success 'setup: a file with history' '
	printf "one\ntwo\n" >a.txt &&
	keeper file write a.txt --content "one
three
" >/dev/null
'

test_expect_success '--color always colours a dry-run diff: removals red, additions green' '
	keeper --color always file write a.txt --content "one
four
" --dry-run >out 2>/dev/null &&
	grep -q "${esc}\[31m-three${esc}\[0m" out &&
	grep -q "${esc}\[32m+four${esc}\[0m" out &&
	printf "one\nthree\n" >expect &&
	test_cmp expect a.txt
'

test_expect_success 'piped output (auto) and --color never are plain' '
	keeper file write a.txt --content x --dry-run >auto 2>/dev/null &&
	keeper --color never file write a.txt --content x --dry-run >never 2>/dev/null &&
	! grep -q "$esc" auto &&
	! grep -q "$esc" never
'

test_expect_success 'history diff takes the same colours' '
	op=$(keeper --json history list --limit 1 | jq -r ".operations[0].id") &&
	keeper --color always history diff "$op" >out &&
	grep -q "${esc}\[32m+three${esc}\[0m" out
'

test_expect_success 'JSON is never coloured' '
	keeper --color always --json file write a.txt --content x --dry-run >out &&
	! grep -q "$esc" out &&
	jq -e .dry_run out >/dev/null
'

test_done
