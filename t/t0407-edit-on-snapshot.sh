#!/bin/sh
test_description='edits on a snapshot: --base HASH and base_hash, merged three ways or refused

An agent edits from what it read a while ago. `file read --snapshot` stores the version read,
and every version keeper writes is stored already. An edit that names that version with --base
is applied as usual while the file still holds it. When the file changed since, the edit is made
on the stored version and merged into the file as it is: a change away from every change made
since lands where the version put it (shifted by lines inserted or removed above), and the
reply says where (merged.landed); a change that overlaps or touches one made since is
CONTENT_CONFLICT with the region as the version had it, as the edit wants it and as the file
has it now, and nothing is written. The change is where the edit names it (its line range,
matched occurrence or hunk), so an edit of one copy of a repeated block never merges into the
other copy. A version not in the store is HISTORY_UNAVAILABLE, saying
how to recover. A merge is one operation, and undo gives back the file as it was before it.
apply-patch takes a base too, for a patch (unified or Codex) of one existing file.'
. ./test-lib.sh

# ten FILE: the lines one to ten, LF, to FILE.
ten () {
	printf "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n" >"$1"
}

# snapshot FILE: reads FILE with --snapshot and prints the version's hash.
snapshot () {
	keeper --json file read "$1" --snapshot >read.json &&
	test "$(json_get .snapshot_stored read.json)" = true &&
	json_get .content_hash read.json
}

test_expect_success 'a read without --snapshot stores nothing and creates no state' '
	ten plain.txt &&
	keeper --json file read plain.txt >read.json &&
	test "$(jq "has(\"snapshot_stored\")" read.json)" = false &&
	test ! -e .filekeeper
'

test_expect_success 'file read --snapshot stores the whole file, also for a range read' '
	ten f.txt &&
	keeper --json file read f.txt --snapshot --from-line 2 --to-line 3 >read.json &&
	test "$(json_get .snapshot_stored read.json)" = true &&
	test "$(json_get .content_hash read.json)" = "$(sha f.txt)" &&
	keeper cat-blob "$(sha f.txt)" >blob &&
	cmp blob f.txt
'

test_expect_success 'with --base equal to the file, the edit is an ordinary one' '
	ten f.txt &&
	base=$(snapshot f.txt) &&
	keeper --json file replace-lines f.txt --start 2 --end 2 --replacement TWO --base "$base" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	test "$(jq "has(\"merged\")" out.json)" = false &&
	test "$(sed -n 2p f.txt)" = TWO
'

test_expect_success 'an edit below lines inserted since lands where the version put it' '
	ten f.txt &&
	base=$(snapshot f.txt) &&
	{ printf "new 1\nnew 2\n" && cat f.txt; } >f.new && mv f.new f.txt &&
	keeper --json file replace-lines f.txt --start 5 --end 5 --replacement FIVE --base "$base" >out.json &&
	test "$(sed -n 7p f.txt)" = FIVE &&
	test "$(sed -n 1p f.txt)" = "new 1" &&
	test "$(wc -l <f.txt)" -eq 12 &&
	test "$(json_get .merged.base_hash out.json)" = "$base" &&
	test "$(jq -c ".merged.landed" out.json)" = "[{\"snapshot_start_line\":5,\"snapshot_line_count\":1,\"start_line\":7,\"line_count\":1}]" &&
	test "$(jq ".warnings | length" out.json)" = 1
'

test_expect_success 'undo of a merged edit gives back the file as it was before the merge' '
	{ printf "new 1\nnew 2\n" && printf "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"; } >expected &&
	keeper --json history undo-last >undo.json &&
	test "$(json_get .ok undo.json)" = true &&
	cmp expected f.txt
'

test_expect_success 'two writers editing apart both land (the other writer through keeper)' '
	ten g.txt &&
	keeper --json file write g.txt --content "$(cat g.txt)
" >w.json &&
	base=$(json_get .after_hash w.json) &&
	keeper --json file replace-lines g.txt --start 1 --end 1 --replacement ONE >/dev/null &&
	keeper --json file delete-lines g.txt --start 9 --end 9 --base "$base" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	printf "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nten\n" >expected &&
	cmp expected g.txt
'

test_expect_success 'insert-lines and replace-text on a version merge too' '
	ten h.txt &&
	base=$(snapshot h.txt) &&
	sed -i 1d h.txt &&
	keeper --json file insert-lines h.txt --position after --line 6 --content "six and a half" --base "$base" >out.json &&
	test "$(sed -n 6p h.txt)" = "six and a half" &&
	test "$(json_get ".merged.landed[0].start_line" out.json)" = 6 &&
	keeper --json file replace-text h.txt --first --base "$base" --old "nine" --new "NINE" >out.json &&
	test "$(json_get .match_count out.json)" = 1 &&
	printf "two\nthree\nfour\nfive\nsix\nsix and a half\nseven\neight\nNINE\nten\n" >expected &&
	cmp expected h.txt
'

test_expect_success 'an edit of lines changed since is a conflict that writes nothing' '
	ten c.txt &&
	base=$(snapshot c.txt) &&
	sed -i "s/^five$/FIVE (theirs)/" c.txt &&
	save c.txt &&
	refused 15 CONTENT_CONFLICT --naming c.txt file replace-lines c.txt --start 5 --end 5 --replacement "five (mine)" --base "$base" &&
	untouched c.txt &&
	test "$(json_get .error.details.reason refusal.json)" = merge_conflict &&
	test "$(json_get .error.details.base_hash refusal.json)" = "$base" &&
	test "$(json_get .error.details.actual_hash refusal.json)" = "$(sha c.txt)" &&
	jq -e ".error.details.conflicts == [{snapshot_start_line: 5, snapshot: {text: \"five\n\", truncated: false},
		edit: {text: \"five (mine)\n\", truncated: false}, live_start_line: 5,
		live: {text: \"FIVE (theirs)\n\", truncated: false}}]" refusal.json
'

test_expect_success 'an edit on the line next to one changed since conflicts too' '
	ten c2.txt &&
	base=$(snapshot c2.txt) &&
	sed -i "s/^four$/FOUR/" c2.txt &&
	save c2.txt &&
	refused 15 CONTENT_CONFLICT file delete-lines c2.txt --start 5 --end 5 --base "$base" &&
	untouched c2.txt
'

test_expect_success 'a conflict gives the live line numbers after lines inserted above' '
	ten c3.txt &&
	base=$(snapshot c3.txt) &&
	{ printf "a\nb\nc\n" && sed "s/^seven$/SEVEN/" c3.txt; } >c3.new && mv c3.new c3.txt &&
	refused 15 CONTENT_CONFLICT file replace-text c3.txt --first --old seven --new 7 --base "$base" &&
	test "$(json_get ".error.details.conflicts[0].snapshot_start_line" refusal.json)" = 7 &&
	test "$(json_get ".error.details.conflicts[0].live_start_line" refusal.json)" = 10
'

# A block that occurs twice: the edit stays on the copy the caller named, never the other.

test_expect_success 'replace-text --occurrence 1 on a repeated block conflicts with a change to that copy, writing nothing' '
	printf "x\nA\nx\nA\n" >rep.txt &&
	base=$(snapshot rep.txt) &&
	printf "X\nA\nx\nA\n" >rep.txt &&
	save rep.txt &&
	refused 15 CONTENT_CONFLICT --naming rep.txt file replace-text rep.txt --old "x
A
" --new "" --occurrence 1 --base "$base" &&
	untouched rep.txt &&
	test "$(json_get .error.details.reason refusal.json)" = merge_conflict &&
	jq -e ".error.details.conflicts == [{snapshot_start_line: 1, snapshot: {text: \"x\nA\n\", truncated: false},
		edit: {text: \"\", truncated: false}, live_start_line: 1,
		live: {text: \"X\nA\n\", truncated: false}}]" refusal.json
'

test_expect_success 'delete-lines of the first copy of a repeated block conflicts with a change to it, writing nothing' '
	printf "x\nA\nx\nA\n" >rep2.txt &&
	base=$(snapshot rep2.txt) &&
	printf "X\nA\nx\nA\n" >rep2.txt &&
	save rep2.txt &&
	refused 15 CONTENT_CONFLICT file delete-lines rep2.txt --start 1 --end 2 --base "$base" &&
	untouched rep2.txt &&
	test "$(json_get .error.details.reason refusal.json)" = merge_conflict
'

test_expect_success 'inserting a copy of the first lines before them conflicts with a change to line 1, writing nothing' '
	printf "x\nA\nz\n" >rep3.txt &&
	base=$(snapshot rep3.txt) &&
	printf "X\nA\nz\n" >rep3.txt &&
	save rep3.txt &&
	refused 15 CONTENT_CONFLICT file insert-lines rep3.txt --position before --line 1 --content "x
A
" --base "$base" &&
	untouched rep3.txt &&
	test "$(json_get .error.details.reason refusal.json)" = merge_conflict
'

test_expect_success 'deleting the first copy of a repeated block merges there when the change since is apart' '
	printf "x\nA\nx\nA\nm\nz\n" >rep4.txt &&
	base=$(snapshot rep4.txt) &&
	printf "x\nA\nx\nA\nm\nZ\n" >rep4.txt &&
	keeper --json file delete-lines rep4.txt --start 1 --end 2 --base "$base" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	test "$(jq -c ".merged.landed" out.json)" = "[{\"snapshot_start_line\":1,\"snapshot_line_count\":2,\"start_line\":1,\"line_count\":0}]" &&
	printf "x\nA\nm\nZ\n" >expected &&
	cmp expected rep4.txt
'

test_expect_success 'a patch on the first copy of a repeated block conflicts with a change to that copy, writing nothing' '
	printf "x\nA\nx\nA\n" >rep5.txt &&
	base=$(snapshot rep5.txt) &&
	printf "X\nA\nx\nA\n" >rep5.txt &&
	printf -- "--- a/rep5.txt\n+++ b/rep5.txt\n@@ -1,4 +1,2 @@\n-x\n-A\n x\n A\n" >rep5.patch &&
	save rep5.txt &&
	refused 15 CONTENT_CONFLICT file apply-patch rep5.patch --base "$base" &&
	untouched rep5.txt &&
	test "$(json_get .error.details.reason refusal.json)" = merge_conflict
'

test_expect_success 'replace-text --all with a change since at one of its places conflicts, writing nothing' '
	printf "p\na\nz\na\n" >all.txt &&
	base=$(snapshot all.txt) &&
	printf "p\nL\nz\na\n" >all.txt &&
	save all.txt &&
	refused 15 CONTENT_CONFLICT file replace-text all.txt --old "a
" --new "a
z
" --all --base "$base" &&
	untouched all.txt
'

test_expect_success 'replace-text --all merges as one change: a change since between its places conflicts' '
	printf "a\nx\ny\na\nend\n" >all2.txt &&
	base=$(snapshot all2.txt) &&
	printf "a\nx\nY\na\nend\n" >all2.txt &&
	save all2.txt &&
	refused 15 CONTENT_CONFLICT file replace-text all2.txt --old a --new b --all --base "$base" &&
	untouched all2.txt &&
	printf "a\nx\ny\na\nend\nmore\n" >all2.txt &&
	keeper --json file replace-text all2.txt --old a --new b --all --base "$base" >out.json &&
	printf "b\nx\ny\nb\nend\nmore\n" >expected &&
	cmp expected all2.txt
'

test_expect_success 'a line inserted into a run on both sides conflicts: made once, or twice?' '
	printf "a\nx\nx\nb\n" >run.txt &&
	base=$(snapshot run.txt) &&
	printf "a\nx\nx\nx\nb\n" >run.txt &&
	save run.txt &&
	refused 15 CONTENT_CONFLICT --naming run.txt file insert-lines run.txt --position after --line 1 --content x --base "$base" &&
	untouched run.txt
'

test_expect_success 'a line appended on both sides of a file with no final newline conflicts: made once, or twice?' '
	printf "x\na" >open-end.txt &&
	base=$(snapshot open-end.txt) &&
	printf "x\na\na" >open-end.txt &&
	save open-end.txt &&
	refused 15 CONTENT_CONFLICT --naming open-end.txt file insert-lines open-end.txt --position end --content a --base "$base" &&
	untouched open-end.txt
'

test_expect_success 'the last of a run deleted on both sides of a file with no final newline conflicts' '
	printf "x\na\na" >open-end.txt &&
	base=$(snapshot open-end.txt) &&
	printf "x\na" >open-end.txt &&
	save open-end.txt &&
	refused 15 CONTENT_CONFLICT --naming open-end.txt file delete-lines open-end.txt --start 3 --end 3 --base "$base" &&
	untouched open-end.txt
'

test_expect_success 'a line inserted into a run on both sides of a file with lone CR line ends conflicts' '
	printf "x\rx\r" >cr-run.txt &&
	base=$(snapshot cr-run.txt) &&
	printf "x\rx\rx\r" >cr-run.txt &&
	save cr-run.txt &&
	refused 15 CONTENT_CONFLICT --naming cr-run.txt file insert-lines cr-run.txt --position after --line 1 --content x --base "$base" &&
	untouched cr-run.txt
'

test_expect_success 'the same change on both sides, with one place, is taken once' '
	printf "p\nx\nq\n" >once.txt &&
	base=$(snapshot once.txt) &&
	printf "p\nq\n" >once.txt &&
	keeper --json file delete-lines once.txt --start 2 --end 2 --base "$base" >out.json &&
	printf "p\nq\n" >expected &&
	cmp expected once.txt
'

test_expect_success 'a line deleted from a run since conflicts with an edit of the run, writing nothing' '
	printf "a\nx\nx\nx\nb\n" >run2.txt &&
	base=$(snapshot run2.txt) &&
	printf "a\nx\nx\nb\n" >run2.txt &&
	save run2.txt &&
	refused 15 CONTENT_CONFLICT file replace-lines run2.txt --start 2 --end 2 --replacement Y --base "$base" &&
	untouched run2.txt
'

test_expect_success 'the same change is taken once only where no other change since is close by, else it conflicts' '
	printf "x\nb\n" >near.txt &&
	base=$(snapshot near.txt) &&
	printf "b\nL\n" >near.txt &&
	save near.txt &&
	refused 15 CONTENT_CONFLICT --naming near.txt file delete-lines near.txt --start 1 --end 1 --base "$base" &&
	untouched near.txt &&
	test "$(json_get .error.details.reason refusal.json)" = merge_conflict
'

test_expect_success 'an edit that two minimal readings of the change since would place apart conflicts' '
	printf "a\na\n" >apart.txt &&
	base=$(snapshot apart.txt) &&
	printf "a\na\na\nL\n" >apart.txt &&
	save apart.txt &&
	refused 15 CONTENT_CONFLICT --naming apart.txt file insert-lines apart.txt --position after --line 1 --content "L" --base "$base" &&
	untouched apart.txt &&
	test "$(json_get .error.details.reason refusal.json)" = merge_conflict
'

test_expect_success 'an edit that rewrites a line to what it was conflicts with a change of it since' '
	printf "a\nb\nc\n" >same.txt &&
	base=$(snapshot same.txt) &&
	printf "a\nB\nc\n" >same.txt &&
	save same.txt &&
	refused 15 CONTENT_CONFLICT file replace-lines same.txt --start 2 --end 2 --replacement b --base "$base" &&
	untouched same.txt
'

test_expect_success 'merged.landed counts lines as keeper does, a lone CR ending one' '
	printf "a\rb\rc\n1\n2\n3\n" >cr.txt &&
	base=$(snapshot cr.txt) &&
	printf "a\rb\rc\n1\n2\nTHREE\n" >cr.txt &&
	keeper --json file replace-lines cr.txt --start 4 --end 4 --replacement ONE --base "$base" >out.json &&
	test "$(jq -c ".merged.landed" out.json)" = "[{\"snapshot_start_line\":4,\"snapshot_line_count\":1,\"start_line\":4,\"line_count\":1}]" &&
	printf "a\rb\rc\nONE\n2\nTHREE\n" >expected &&
	cmp expected cr.txt
'

test_expect_success 'merged.landed of a line inserted before line 1 of a file with a BOM says inserted, not replaced' '
	printf "\357\273\277a\nb\n" >bom.txt &&
	base=$(snapshot bom.txt) &&
	printf "\357\273\277a\nb\nc\n" >bom.txt &&
	keeper --json file insert-lines bom.txt --position before --line 1 --content new --base "$base" >out.json &&
	test "$(jq -c ".merged.landed" out.json)" = "[{\"snapshot_start_line\":1,\"snapshot_line_count\":0,\"start_line\":1,\"line_count\":1}]" &&
	printf "\357\273\277new\na\nb\nc\n" >expected &&
	cmp expected bom.txt
'

test_expect_success 'a patch hunk claims its old lines, context included, and no more: a line inserted above them merges' '
	printf "one\ntwo\nthree\nfour\n" >top.txt &&
	base=$(snapshot top.txt) &&
	printf "zero\none\ntwo\nthree\nfour\n" >top.txt &&
	printf -- "--- a/top.txt\n+++ b/top.txt\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n" >top.patch &&
	keeper --json file apply-patch top.patch --base "$base" >out.json &&
	printf "zero\none\ntwo\nTHREE\nfour\n" >expected &&
	cmp expected top.txt &&
	printf "one\ntwo\nthree\nfour\n" >top2.txt &&
	base=$(snapshot top2.txt) &&
	printf "ONE\ntwo\nthree\nfour\n" >top2.txt &&
	sed "s/top.txt/top2.txt/g" top.patch >top2.patch &&
	save top2.txt &&
	refused 15 CONTENT_CONFLICT file apply-patch top2.patch --base "$base" &&
	untouched top2.txt
'

test_expect_success 'old text found twice in the version is refused whatever changed since, with no write' '
	printf "x = 1\ny = 2\nx = 1\n" >amb.txt &&
	base=$(snapshot amb.txt) &&
	printf "header\n" >>amb.txt &&
	save amb.txt &&
	refused 17 MATCH_COUNT_MISMATCH --naming amb.txt file replace-text amb.txt --first --old "x = 1" --new "x = 3" --base "$base" &&
	untouched amb.txt &&
	test "$(json_get .error.details.base_hash refusal.json)" = "$base"
'

test_expect_success 'a version that is not in the store is HISTORY_UNAVAILABLE, with the way back' '
	printf "only here\nnever stored\n" >m.txt &&
	keeper --json file read m.txt >read.json &&
	unstored=$(json_get .content_hash read.json) &&
	printf "changed\n" >>m.txt &&
	save m.txt &&
	refused 29 HISTORY_UNAVAILABLE --naming m.txt file replace-lines m.txt --start 1 --end 1 --replacement ONE --base "$unstored" &&
	untouched m.txt &&
	test "$(json_get .error.details.base_hash refusal.json)" = "$unstored" &&
	json_get .error.details.recovery refusal.json | grep -e "--snapshot" &&
	json_get .error.message refusal.json | grep -e "--base"
'

test_expect_success 'a malformed --base is INVALID_ARGUMENT' '
	ten bad.txt &&
	refused 2 INVALID_ARGUMENT file delete-lines bad.txt --start 1 --end 1 --base nonsense
'

test_expect_success 'a CRLF file stays CRLF through a merge' '
	printf "a\r\nb\r\nc\r\nd\r\n" >crlf.txt &&
	base=$(snapshot crlf.txt) &&
	printf "a\r\nb\r\nc\r\nd\r\ne\r\n" >crlf.txt &&
	keeper --json file replace-lines crlf.txt --start 1 --end 1 --replacement A --base "$base" >out.json &&
	printf "A\r\nb\r\nc\r\nd\r\ne\r\n" >expected &&
	cmp expected crlf.txt
'

test_expect_success 'a unified diff made on a version merges below lines inserted since' '
	ten p.txt &&
	base=$(snapshot p.txt) &&
	cp p.txt p.orig &&
	sed "s/^eight$/EIGHT/" p.orig >p.want &&
	diff -u p.orig p.want | sed "1s|.*|--- a/p.txt|; 2s|.*|+++ b/p.txt|" >p.patch;
	{ printf "new 1\nnew 2\nnew 3\nnew 4\n" && cat p.orig; } >p.txt &&
	sed -i "s/^two$/TWO/" p.txt &&
	keeper --json file apply-patch p.patch --base "$base" >out.json &&
	test "$(json_get .merged.landed[0].start_line out.json)" = 12 &&
	{ printf "new 1\nnew 2\nnew 3\nnew 4\n" && sed "s/^two$/TWO/; s/^eight$/EIGHT/" p.orig; } >expected &&
	cmp expected p.txt
'

test_expect_success 'a hunk header that states line 0 for old lines merges as one stating line 1' '
	ten p.txt &&
	base=$(snapshot p.txt) &&
	printf "%s\n" "--- a/p.txt" "+++ b/p.txt" "@@ -0,3 +0,3 @@" " one" "-two" "+TWO" " three" >p.patch &&
	echo eleven >>p.txt &&
	keeper --json file apply-patch p.patch --base "$base" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	ten expected &&
	sed -i "s/^two$/TWO/" expected && echo eleven >>expected &&
	cmp expected p.txt
'

test_expect_success 'a Codex patch made on a version conflicts with a change to its lines, writing nothing' '
	ten q.txt &&
	base=$(snapshot q.txt) &&
	sed -i "s/^five$/FIVE (theirs)/" q.txt &&
	printf "*** Begin Patch\n*** Update File: q.txt\n@@\n four\n-five\n+five (mine)\n six\n*** End Patch\n" >q.patch &&
	save q.txt &&
	refused 15 CONTENT_CONFLICT --naming q.txt file apply-patch q.patch --base "$base" &&
	untouched q.txt &&
	test "$(json_get .error.details.reason refusal.json)" = merge_conflict
'

test_expect_success 'a base is for a patch of one existing file' '
	ten r1.txt && ten r2.txt &&
	base=$(snapshot r1.txt) &&
	printf "*** Begin Patch\n*** Update File: r1.txt\n@@\n-one\n+ONE\n*** Add File: r3.txt\n+new\n*** End Patch\n" >r.patch &&
	save r1.txt &&
	refused 2 INVALID_ARGUMENT file apply-patch r.patch --base "$base" &&
	untouched r1.txt &&
	test ! -e r3.txt &&
	json_get .error.message refusal.json | grep -e "--base"
'

test_expect_success 'a file that became binary or lost its UTF-8 since the version is refused, not merged into' '
	ten bin.txt &&
	base=$(snapshot bin.txt) &&
	printf "caf\351\ntwo\nthree\nfour\nfive\n" >bin.txt &&
	save bin.txt &&
	refused 20 BINARY_CONTENT_REFUSED --naming bin.txt file replace-lines bin.txt --start 5 --end 5 --replacement FIVE --base "$base" &&
	untouched bin.txt &&
	printf "o\000ne\ntwo\nthree\nfour\nfive\n" >bin.txt &&
	save bin.txt &&
	refused 20 BINARY_CONTENT_REFUSED --naming bin.txt file delete-lines bin.txt --start 5 --end 5 --base "$base" &&
	untouched bin.txt &&
	printf "*** Begin Patch\n*** Update File: bin.txt\n@@\n four\n-five\n+FIVE\n*** End Patch\n" >bin.patch &&
	refused 20 BINARY_CONTENT_REFUSED --naming bin.txt file apply-patch bin.patch --base "$base" &&
	untouched bin.txt
'

test_expect_success 'a version that is not UTF-8 is refused as the version, though the file now is text' '
	printf "a\n\351\nc\nd\ne\n" >latin.txt &&
	keeper --json file read latin.txt --snapshot --encoding latin1 >read.json &&
	base=$(json_get .content_hash read.json) &&
	printf "a\nX\nc\nd\ne\n" >latin.txt &&
	save latin.txt &&
	refused 20 BINARY_CONTENT_REFUSED --naming latin.txt file replace-lines latin.txt --start 5 --end 5 --replacement E --base "$base" &&
	json_get .error.message refusal.json | grep "^in the version the edit is based on: " &&
	untouched latin.txt
'

# The same through the MCP server, as an agent calls it.

test_expect_success MCP_SDK 'MCP: file_read snapshots by default once the workspace has history' '
	ten agent.txt &&
	jq -nc "{tool: \"file_read\", arguments: {path: \"agent.txt\"}}" >req.jsonl &&
	timeout 60 "$PY" "$MCP/call.py" "$WS" <req.jsonl >resp.jsonl &&
	test "$(jq -r .structured.snapshot_stored resp.jsonl)" = true &&
	keeper cat-blob "$(sha agent.txt)" >blob &&
	cmp blob agent.txt
'

test_expect_success MCP_SDK 'MCP: a read in a workspace without history creates nothing unless asked' '
	mkdir -p "$TRASH/fresh" && ten "$TRASH/fresh/a.txt" &&
	jq -nc "{tool: \"file_read\", arguments: {path: \"a.txt\"}}" >req.jsonl &&
	timeout 60 "$PY" "$MCP/call.py" "$TRASH/fresh" <req.jsonl >resp.jsonl &&
	test "$(jq ".structured | has(\"snapshot_stored\")" resp.jsonl)" = false &&
	test ! -e "$TRASH/fresh/.filekeeper" &&
	jq -nc "{tool: \"file_read\", arguments: {path: \"a.txt\", snapshot: true}}" >req.jsonl &&
	timeout 60 "$PY" "$MCP/call.py" "$TRASH/fresh" <req.jsonl >resp.jsonl &&
	test "$(jq -r .structured.snapshot_stored resp.jsonl)" = true
'

test_expect_success MCP_SDK 'MCP: base_hash merges an edit below an insertion, and refuses an overlap' '
	ten mcp.txt &&
	base=$(snapshot mcp.txt) &&
	{ printf "inserted\n" && cat mcp.txt; } >mcp.new && mv mcp.new mcp.txt &&
	{
		jq -nc --arg b "$base" "{tool: \"file_replace_lines\", arguments: {path: \"mcp.txt\", start: 3, end: 3, replacement: \"THREE\", base_hash: \$b}}" &&
		jq -nc --arg b "$base" "{tool: \"file_replace_lines\", arguments: {path: \"mcp.txt\", start: 3, end: 3, replacement: \"3\", base_hash: \$b}}"
	} >req.jsonl &&
	timeout 60 "$PY" "$MCP/call.py" "$WS" <req.jsonl >resp.jsonl &&
	sed -n 1p resp.jsonl | jq -e ".structured.ok and .structured.merged.landed[0].start_line == 4" &&
	sed -n 2p resp.jsonl | jq -e ".is_error and .structured.error.code == \"CONTENT_CONFLICT\"
		and .structured.error.details.conflicts[0].live.text == \"THREE\n\"" &&
	test "$(sed -n 4p mcp.txt)" = THREE
'

test_expect_success MCP_SDK 'MCP: file_apply_patch with base_hash merges too' '
	ten mp.txt &&
	base=$(snapshot mp.txt) &&
	{ printf "inserted\n" && cat mp.txt; } >mp.new && mv mp.new mp.txt &&
	jq -nc --arg b "$base" "{tool: \"file_apply_patch\", arguments: {base_hash: \$b,
		patch: \"*** Begin Patch\\n*** Update File: mp.txt\\n@@\\n nine\\n-ten\\n+TEN\\n*** End Patch\\n\"}}" >req.jsonl &&
	timeout 60 "$PY" "$MCP/call.py" "$WS" <req.jsonl >resp.jsonl &&
	jq -e ".structured.ok and .structured.merged.landed[0].start_line == 11" resp.jsonl &&
	test "$(tail -n 1 mp.txt)" = TEN
'

test_done
