#!/bin/sh
test_description='keeper history list --cursor: the whole ledger, page by page

history list returns at most 200 operations a request; a page that stops before the oldest
operation says truncated and gives next_cursor, which continues with the operations older
than the last one returned. Followed to the end, the pages are the whole journal, newest
first, each operation once, also with operations recorded between two pages. A cursor made
for another filter, or changed, is INVALID_CURSOR.'
. ./test-lib.sh

test_expect_success 'setup: 230 operations, more than one request may return' '
	i=0 &&
	while test $i -lt 230; do
		keeper file write log.txt --content "entry $i" >/dev/null &&
		i=$((i + 1)) || return 1
	done &&
	test "$(op_count)" = 230 &&
	journal "SELECT id FROM operations ORDER BY seq DESC" >ledger
'

test_expect_success 'one request stops at 200 and says more are older' '
	keeper --json history list --limit 200 >out &&
	json_get ".operations | length == 200" out &&
	json_get ".truncated and (.next_cursor | type == \"string\")" out
'

test_expect_success 'pages of 200 read the whole ledger, newest first, each operation once' '
	pages ".operations[].id" history list --limit 200 >actual &&
	test_cmp ledger actual &&
	test "$(cat pages.count)" = 2
'

test_expect_success 'pages of the default size read the whole ledger too' '
	pages ".operations[].id" history list >actual &&
	test_cmp ledger actual &&
	test "$(cat pages.count)" = 12
'

test_expect_success 'the last page says it is the last' '
	c=$(keeper --json history list --limit 200 | jq -r .next_cursor) &&
	keeper --json history list --limit 200 --cursor "$c" >out &&
	json_get ".operations | length == 30" out &&
	json_get ".truncated == false and .next_cursor == null" out
'

test_expect_success 'operations recorded between pages do not shift the older pages' '
	keeper --json history list --limit 50 >first.json &&
	c=$(jq -r .next_cursor first.json) &&
	keeper file write log.txt --content newer >/dev/null &&
	keeper file write other.txt --content newer >/dev/null &&
	jq -r ".operations[].id" first.json >actual &&
	pages --from "$c" ".operations[].id" history list --limit 50 >>actual &&
	test_cmp ledger actual
'

test_expect_success 'a filtered ledger pages too, and the cursor keeps to its filter' '
	journal "SELECT id FROM operations WHERE target_path = '"'"'log.txt'"'"' ORDER BY seq DESC" >expect &&
	pages ".operations[].id" history list --path log.txt --limit 100 >actual &&
	test_cmp expect actual &&
	c=$(keeper --json history list --path log.txt --limit 3 | jq -r .next_cursor) &&
	refused 31 INVALID_CURSOR history list --path other.txt --cursor "$c" &&
	json_get ".error.details.reason == \"other_query\"" refusal.json &&
	refused 31 INVALID_CURSOR history list --cursor "$c" &&
	refused 31 INVALID_CURSOR --actor bob history list --path log.txt --cursor "$c"
'

test_expect_success 'a history cursor is refused by list and a list cursor by history' '
	c=$(keeper --json history list --limit 3 | jq -r .next_cursor) &&
	refused 31 INVALID_CURSOR file list --cursor "$c" &&
	mkdir d && touch d/1 d/2 d/3 &&
	c=$(keeper --json file list d --max-entries 1 | jq -r .next_cursor) &&
	refused 31 INVALID_CURSOR history list --cursor "$c" &&
	json_get ".error.details.reason == \"other_query\"" refusal.json
'

test_expect_success 'a changed history cursor is INVALID_CURSOR, and the journal is untouched' '
	c=$(keeper --json history list --limit 3 | jq -r .next_cursor) &&
	before=$(op_count) &&
	refused 31 INVALID_CURSOR history list --cursor "${c}A" &&
	refused 31 INVALID_CURSOR history list --cursor "$(printf %s "$c" | tr A-Za-z N-ZA-Mn-za-m)" &&
	test "$(op_count)" = "$before"
'

test_done
