#!/bin/sh
test_description='keeper file create, write, copy, move and delete: journaled whole-file changes

Every success is one flat JSON object in the specification'"'"'s shape (ok, workspace, path,
changed, before_hash, after_hash, summary, operation_id, undo_available, dry_run, warnings,
items, diffs, diff_truncated) whose hashes are the sha256 of the bytes on disk. Content comes from --content, --input
or stdin and lands byte for byte (CRLF, no final newline, NUL bytes). create refuses an existing
file unless --allow-existing; write --expected-hash refuses a stale hash with CONTENT_CONFLICT
and records nothing; copy and move name both ends and record source_path; move is a rename; a
delete keeps the deleted bytes recoverable. --actor and --task-id are recorded. Unsafe targets
are refused with their stable codes and change nothing; limits are enforced; a file above the
history cap is written without its bytes stored; a git-ignored target warns. No temp file is
left behind and fsck is clean at the end.'
. ./test-lib.sh

# test_mutation_shape FILE: FILE is the success document of a committed mutation in workspace
# "test", in the specification's shape: exactly the documented fields in the documented order
# (source_path and history_skipped may follow), a real operation id, items with exactly path,
# change, kind, before_hash, after_hash and size_bytes, and a diff for each item, in order.
test_mutation_shape () {
	jq -e '
		(keys_unsorted[0:14] == ["ok", "workspace", "path", "changed", "before_hash",
			"after_hash", "summary", "operation_id", "undo_available", "dry_run", "warnings",
			"items", "diffs", "diff_truncated"]) and
		((keys_unsorted[14:] - ["source_path", "history_skipped"]) == []) and
		([.diffs[] | [.path, .change, .kind]] == [.items[] | [.path, .change, .kind]]) and
		all(.diffs[]; keys_unsorted == ["path", "change", "kind", "diff_kind", "diff",
			"lines_added", "lines_removed"]) and
		(.diff_truncated | type == "boolean") and
		.ok == true and .workspace == "test" and
		(.path | type == "string") and
		(.changed | type == "boolean") and
		(.summary | type == "string" and length > 0) and
		(.operation_id | type == "string" and test("^op_[0-9a-f]{16}$")) and
		(.undo_available | type == "boolean") and
		.dry_run == false and
		(.warnings | type == "array") and
		(.items | type == "array" and length > 0) and
		all(.items[]; keys_unsorted == ["path", "change", "kind", "before_hash", "after_hash",
			"size_bytes"])
	' "$1" >/dev/null || { echo >&2 "not a mutation result in the spec's shape:"; cat >&2 "$1"; return 1; }
}

# refusal_state FILE: what a refused command must not change: the refuse/ fixtures, the
# anchor file, everything outside the workspace, .filekeeper/'s top level (SQLite's own -wal
# and -shm files aside) and the journal's rows.
refusal_state () {
	{
		find refuse "$OUTSIDE" | LC_ALL=C sort &&
		find refuse "$OUTSIDE" -type f | LC_ALL=C sort | xargs -r -d "\n" sha256sum &&
		find refuse -type l | LC_ALL=C sort | xargs -r -d "\n" readlink &&
		sha256sum anchor.txt &&
		ls -a .filekeeper | grep -v "^journal\.sqlite3-" &&
		journal "SELECT count(*), max(seq) FROM operations" &&
		journal "SELECT count(*) FROM operation_items"
	} >"$1"
}

test_expect_success 'setup: inputs with CRLF, no final newline, and NUL bytes' '
	printf "one\r\ntwo\r\nthree" >crlf.expect &&
	printf "\000\001binary\000\377\r\n\000" >binary.in &&
	printf "piped\r\nthrough stdin" >stdin.expect
'

# create

test_expect_success 'file create --content reports the spec'"'"'s shape with real hashes' '
	cr=$(printf "\r") &&
	keeper --json --actor agent-7 --task-id T-create file create notes.txt \
		--content "one$cr
two$cr
three" >create.json &&
	test_mutation_shape create.json &&
	json_get .operation_id create.json >create.op &&
	test "$(json_get .path create.json)" = notes.txt &&
	test "$(json_get .changed create.json)" = true &&
	test "$(json_get .before_hash create.json)" = null &&
	test "$(json_get .after_hash create.json)" = "$(sha crlf.expect)" &&
	test "$(json_get .undo_available create.json)" = true &&
	test "$(json_get .warnings create.json)" = "[]" &&
	test_no_host_path create.json
'

test_expect_success 'file create --content writes CRLF and no final newline byte for byte' '
	test_cmp crlf.expect notes.txt
'

test_expect_success 'file create reports one created file item with its hash and size' '
	printf "notes.txt\tcreated\tfile\tnull\t%s\t%s\n" "$(sha crlf.expect)" "$(size_of crlf.expect)" >expect &&
	jq -r ".items[] | [.path, .change, .kind, (.before_hash // \"null\"), .after_hash, .size_bytes] | @tsv" \
		create.json >actual &&
	test_cmp expect actual
'

test_expect_success 'file create summary names the path' '
	json_get .summary create.json | grep -F notes.txt
'

test_expect_success 'file create --input FILE writes binary content with NUL bytes exactly' '
	keeper --json file create blob.bin --input binary.in >out &&
	test_mutation_shape out &&
	cmp binary.in blob.bin &&
	test "$(json_get .after_hash out)" = "$(sha binary.in)" &&
	test "$(json_get ".items[0].size_bytes" out)" = "$(size_of binary.in)"
'

test_expect_success 'file create reads the content from stdin when neither flag is given' '
	printf "piped\r\nthrough stdin" | keeper --json file create piped.txt >out &&
	test_mutation_shape out &&
	test_cmp stdin.expect piped.txt &&
	test "$(json_get .after_hash out)" = "$(sha stdin.expect)"
'

test_expect_success 'file create with an empty stdin is refused: a forgotten --content, not an empty file' '
	refused 2 INVALID_ARGUMENT file create empty.txt </dev/null &&
	test "$(json_get .error.details.reason refusal.json)" = empty_stdin &&
	test ! -e empty.txt
'

test_expect_success 'file write with an empty or closed stdin is refused and leaves the file as it was' '
	printf "important\n" >kept.txt &&
	save kept.txt &&
	refused 2 INVALID_ARGUMENT file write kept.txt </dev/null &&
	test "$(json_get .error.details.reason refusal.json)" = empty_stdin &&
	refused 2 INVALID_ARGUMENT file write kept.txt <&- &&
	untouched kept.txt
'

test_expect_success 'empty content is written with --content ""' '
	keeper --json file create empty.txt --content "" >out &&
	test -f empty.txt &&
	test ! -s empty.txt &&
	test "$(json_get .after_hash out)" = "$(sha /dev/null)"
'

test_expect_success 'the journal records the mode a created file got' '
	keeper --json file create created-mode.txt --content x >out &&
	echo $((0$(stat -c %a created-mode.txt))) >expect &&
	journal "SELECT after_mode FROM operation_items
		WHERE op_id = '"'"'$(json_get .operation_id out)'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'file create with both --content and --input is a usage error (exit 2)' '
	test_expect_code 2 keeper --json file create both.txt --content x --input binary.in >out &&
	test_error_code INVALID_ARGUMENT out &&
	test ! -e both.txt
'

test_expect_success 'file create refuses an existing file with ALREADY_EXISTS (exit 14), untouched' '
	stat -c "%i %a %s %Y" notes.txt >before &&
	ops=$(op_count) &&
	test_expect_code 14 keeper --json file create notes.txt --content clobbered >out &&
	test_error_code ALREADY_EXISTS out &&
	test "$(json_get .error.details.path out)" = notes.txt &&
	test_no_host_path out &&
	test_cmp crlf.expect notes.txt &&
	stat -c "%i %a %s %Y" notes.txt >after &&
	test_cmp before after &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'file create --allow-existing replaces an existing file, as a modification' '
	printf "replaced\n" >expect &&
	keeper --json file create notes.txt --allow-existing --content "replaced
" >out &&
	test_mutation_shape out &&
	test_cmp expect notes.txt &&
	test "$(json_get .before_hash out)" = "$(sha crlf.expect)" &&
	test "$(json_get .after_hash out)" = "$(sha expect)" &&
	test "$(json_get ".items[0].change" out)" = modified
'

test_expect_success 'file create --allow-existing keeps the file'"'"'s mode (600 stays 600)' '
	printf "private\n" >private.txt &&
	chmod 600 private.txt &&
	keeper file create private.txt --allow-existing --content "still private
" >/dev/null &&
	echo 600 >expect &&
	stat -c %a private.txt >actual &&
	test_cmp expect actual
'

# write

test_expect_success 'setup: a file to write over' '
	printf "first version\n" >doc.txt &&
	cp doc.txt doc.v1
'

test_expect_success 'file write --content replaces the content and reports both hashes' '
	printf "second version\nwith two lines\n" >doc.v2 &&
	keeper --json --actor agent-7 --task-id T-write file write doc.txt --content "second version
with two lines
" >write.json &&
	test_mutation_shape write.json &&
	json_get .operation_id write.json >write.op &&
	test_cmp doc.v2 doc.txt &&
	test "$(json_get .changed write.json)" = true &&
	test "$(json_get .before_hash write.json)" = "$(sha doc.v1)" &&
	test "$(json_get .after_hash write.json)" = "$(sha doc.v2)" &&
	printf "doc.txt\tmodified\tfile\t%s\t%s\t%s\n" "$(sha doc.v1)" "$(sha doc.v2)" "$(size_of doc.v2)" >expect &&
	jq -r ".items[] | [.path, .change, .kind, .before_hash, .after_hash, .size_bytes] | @tsv" \
		write.json >actual &&
	test_cmp expect actual &&
	json_get .summary write.json | grep -F doc.txt
'

test_expect_success 'file write reads stdin: CRLF and no final newline survive exactly' '
	printf "piped\r\nthrough stdin" | keeper --json file write doc.txt >out &&
	test_mutation_shape out &&
	test_cmp stdin.expect doc.txt &&
	test "$(json_get .after_hash out)" = "$(sha stdin.expect)"
'

test_expect_success 'file write --input FILE writes binary content with NUL bytes exactly' '
	keeper --json file write doc.txt --input binary.in >out &&
	test_mutation_shape out &&
	cmp binary.in doc.txt &&
	test "$(json_get .before_hash out)" = "$(sha stdin.expect)" &&
	test "$(json_get .after_hash out)" = "$(sha binary.in)"
'

test_expect_success 'file write of a missing file creates it' '
	keeper --json file write brand-new.txt --content "new
" >out &&
	test_mutation_shape out &&
	test "$(json_get ".items[0].change" out)" = created &&
	test "$(json_get .before_hash out)" = null &&
	echo new >expect &&
	test_cmp expect brand-new.txt
'

test_expect_success 'file write keeps the file'"'"'s mode (640 stays 640)' '
	printf "group readable\n" >mode.txt &&
	chmod 640 mode.txt &&
	keeper file write mode.txt --content "rewritten
" >/dev/null &&
	echo 640 >expect &&
	stat -c %a mode.txt >actual &&
	test_cmp expect actual &&
	echo rewritten >expect &&
	test_cmp expect mode.txt
'

test_expect_success 'file write --expected-hash with the current hash succeeds' '
	printf "guarded v1\n" >guarded.txt &&
	cp guarded.txt guarded.v1 &&
	keeper --json file write guarded.txt --expected-hash "$(sha guarded.txt)" --content "guarded v2
" >out &&
	test_mutation_shape out &&
	echo "guarded v2" >expect &&
	test_cmp expect guarded.txt
'

test_expect_success 'file write --expected-hash with a stale hash is CONTENT_CONFLICT (exit 15)' '
	sha guarded.v1 >stale.id &&
	sha guarded.txt >current.id &&
	cp guarded.txt guarded.before &&
	stat -c "%i %a %s %Y" guarded.txt >stat.before &&
	op_count >ops.before &&
	test_expect_code 15 keeper --json file write guarded.txt --expected-hash "$(cat stale.id)" \
		--content "lost update
" >conflict.json &&
	test_error_code CONTENT_CONFLICT conflict.json &&
	test_no_host_path conflict.json
'

test_expect_success 'the stale-hash conflict is not retryable and names path, both hashes and a recovery' '
	test "$(json_get .error.retryable conflict.json)" = false &&
	test "$(json_get .error.details.path conflict.json)" = guarded.txt &&
	test "$(json_get .error.details.expected_hash conflict.json)" = "$(cat stale.id)" &&
	test "$(json_get .error.details.actual_hash conflict.json)" = "$(cat current.id)" &&
	json_get .error.details.recovery conflict.json | grep .
'

test_expect_success 'the stale-hash conflict leaves the file untouched and records no operation' '
	test_cmp guarded.before guarded.txt &&
	stat -c "%i %a %s %Y" guarded.txt >stat.after &&
	test_cmp stat.before stat.after &&
	op_count >ops.after &&
	test_cmp ops.before ops.after
'

test_expect_success 'file write of identical content reports changed false but records the operation' '
	ops=$(op_count) &&
	keeper --json file write guarded.txt --content "guarded v2
" >out &&
	test_mutation_shape out &&
	test "$(json_get .changed out)" = false &&
	test "$(json_get .before_hash out)" = "$(sha guarded.txt)" &&
	test "$(json_get .after_hash out)" = "$(sha guarded.txt)" &&
	test "$(json_get ".items[0].change" out)" = unchanged &&
	test "$(op_count)" = $((ops + 1)) &&
	test "$(journal "SELECT count(*) FROM operations WHERE id = '"'"'$(json_get .operation_id out)'"'"'")" = 1
'

test_expect_success 'file write and copy of identical content leave the file alone: inode, mtime and hard links' '
	printf "same\n" >same.txt &&
	ln same.txt same-link.txt &&
	touch -d "2020-01-02 03:04:05" same.txt &&
	stat -c "%i %h %Y" same.txt >before &&
	keeper --json file write same.txt --content "same
" >out &&
	test "$(json_get ".items[0].change" out)" = unchanged &&
	stat -c "%i %h %Y" same.txt >after &&
	test_cmp before after &&
	printf "same\n" >same-copy.txt &&
	touch -d "2020-01-02 03:04:05" same-copy.txt &&
	stat -c "%i %h %Y" same-copy.txt >before &&
	keeper --json file copy same.txt same-copy.txt --expected-destination-hash "$(sha same-copy.txt)" >out &&
	test "$(json_get .changed out)" = false &&
	test "$(json_get .summary out)" = "same-copy.txt already holds this content; nothing to write." &&
	stat -c "%i %h %Y" same-copy.txt >after &&
	test_cmp before after
'

# copy

test_expect_success 'setup: a source file to copy and move' '
	printf "source bytes\r\nsecond line" >src.txt &&
	cp src.txt src.orig
'

test_expect_success 'file copy reports the shape with source_path, and the copy is byte-identical' '
	keeper --json --actor agent-7 --task-id T-copy file copy src.txt copy.txt >copy.json &&
	test_mutation_shape copy.json &&
	json_get .operation_id copy.json >copy.op &&
	test "$(json_get .path copy.json)" = copy.txt &&
	test "$(json_get .source_path copy.json)" = src.txt &&
	test "$(json_get .before_hash copy.json)" = null &&
	test "$(json_get .after_hash copy.json)" = "$(sha src.orig)" &&
	test "$(json_get ".items[0].change" copy.json)" = created &&
	test "$(json_get ".items[0].size_bytes" copy.json)" = "$(size_of src.orig)" &&
	cmp src.orig copy.txt &&
	cmp src.orig src.txt
'

test_expect_success 'file copy summary names both ends' '
	json_get .summary copy.json >summary &&
	grep -F src.txt summary &&
	grep -F copy.txt summary
'

test_expect_success 'file copy records source_path in the journal row and in its metadata' '
	printf "copy|src.txt|src.txt|copy.txt\n" >expect &&
	journal "SELECT kind, source_path, json_extract(metadata, '"'"'\$.source_path'"'"'), target_path
		FROM operations WHERE id = '"'"'$(cat copy.op)'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'file copy onto an existing destination is ALREADY_EXISTS (exit 14), untouched' '
	printf "destination bytes\n" >dest.txt &&
	cp dest.txt dest.orig &&
	ops=$(op_count) &&
	test_expect_code 14 keeper --json file copy src.txt dest.txt >out &&
	test_error_code ALREADY_EXISTS out &&
	test "$(json_get .error.details.path out)" = dest.txt &&
	test_no_host_path out &&
	test_cmp dest.orig dest.txt &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'file copy --expected-destination-hash with a stale hash is CONTENT_CONFLICT' '
	ops=$(op_count) &&
	test_expect_code 15 keeper --json file copy src.txt dest.txt \
		--expected-destination-hash "$(sha src.orig)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	test "$(json_get .error.details.actual_hash out)" = "$(sha dest.orig)" &&
	test_cmp dest.orig dest.txt &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'file copy --expected-destination-hash naming the current content replaces it' '
	keeper --json file copy src.txt dest.txt --expected-destination-hash "$(sha dest.orig)" >out &&
	test_mutation_shape out &&
	cmp src.orig dest.txt &&
	test "$(json_get .before_hash out)" = "$(sha dest.orig)" &&
	test "$(json_get .after_hash out)" = "$(sha src.orig)" &&
	test "$(json_get ".items[0].change" out)" = modified
'

# move

test_expect_success 'file move is a rename: the inode is kept and the source is gone' '
	cp src.orig tomove.txt &&
	stat -c %i tomove.txt >inode.before &&
	keeper --json --actor agent-7 --task-id T-move file move tomove.txt moved.txt >move.json &&
	test_mutation_shape move.json &&
	json_get .operation_id move.json >move.op &&
	test ! -e tomove.txt &&
	cmp src.orig moved.txt &&
	stat -c %i moved.txt >inode.after &&
	test_cmp inode.before inode.after
'

test_expect_success 'file move reports source_path, both ends in the summary, and an item per end' '
	test "$(json_get .path move.json)" = moved.txt &&
	test "$(json_get .source_path move.json)" = tomove.txt &&
	test "$(json_get .after_hash move.json)" = "$(sha src.orig)" &&
	json_get .summary move.json >summary &&
	grep -F tomove.txt summary &&
	grep -F moved.txt summary &&
	printf "tomove.txt\tdeleted\t%s\tnull\nmoved.txt\tcreated\tnull\t%s\n" "$(sha src.orig)" "$(sha src.orig)" >expect &&
	jq -r ".items[] | [.path, .change, (.before_hash // \"null\"), (.after_hash // \"null\")] | @tsv" \
		move.json >actual &&
	test_cmp expect actual
'

test_expect_success 'file move records source_path in the journal row and in its metadata' '
	printf "move|tomove.txt|tomove.txt|moved.txt\n" >expect &&
	journal "SELECT kind, source_path, json_extract(metadata, '"'"'\$.source_path'"'"'), target_path
		FROM operations WHERE id = '"'"'$(cat move.op)'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'file move onto an existing destination is ALREADY_EXISTS (exit 14), both untouched' '
	printf "mover\n" >mover.txt &&
	printf "occupied\n" >occupied.txt &&
	cp mover.txt mover.orig &&
	cp occupied.txt occupied.orig &&
	ops=$(op_count) &&
	test_expect_code 14 keeper --json file move mover.txt occupied.txt >out &&
	test_error_code ALREADY_EXISTS out &&
	test "$(json_get .error.details.path out)" = occupied.txt &&
	test_cmp mover.orig mover.txt &&
	test_cmp occupied.orig occupied.txt &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'file move --overwrite replaces the destination by rename' '
	stat -c %i mover.txt >inode.before &&
	keeper --json file move mover.txt occupied.txt --overwrite >out &&
	test_mutation_shape out &&
	test ! -e mover.txt &&
	test_cmp mover.orig occupied.txt &&
	stat -c %i occupied.txt >inode.after &&
	test_cmp inode.before inode.after &&
	test "$(json_get ".items[] | select(.path == \"occupied.txt\") | .change" out)" = modified &&
	test "$(json_get ".items[] | select(.path == \"occupied.txt\") | .before_hash" out)" = "$(sha occupied.orig)"
'

test_expect_success 'file move --overwrite onto a hard link of the source is refused, dry run too, and records nothing' '
	printf "one file\n" >linked.txt &&
	ln linked.txt alias.txt &&
	keeper --json history list >ops.before &&
	for dry in --dry-run ""
	do
		test_expect_code 2 keeper --json file move linked.txt alias.txt --overwrite $dry >out &&
		test_error_code INVALID_ARGUMENT out &&
		json_get .error.message out | grep "hard links to one file" || return 1
	done &&
	test "$(stat -c %h linked.txt)" = 2 &&
	keeper --json history list >ops.after &&
	test "$(jq ".operations | length" ops.before)" = "$(jq ".operations | length" ops.after)"
'

# delete

test_expect_success 'file delete removes the file and reports its before hash' '
	printf "doomed\r\nbytes\000here" >doomed.txt &&
	cp doomed.txt doomed.orig &&
	keeper --json --actor agent-7 --task-id T-delete file delete doomed.txt >delete.json &&
	test_mutation_shape delete.json &&
	json_get .operation_id delete.json >delete.op &&
	test ! -e doomed.txt &&
	test "$(json_get .before_hash delete.json)" = "$(sha doomed.orig)" &&
	test "$(json_get .after_hash delete.json)" = null &&
	printf "doomed.txt\tdeleted\tfile\t%s\tnull\tnull\n" "$(sha doomed.orig)" >expect &&
	jq -r ".items[] | [.path, .change, .kind, .before_hash, (.after_hash // \"null\"), (.size_bytes // \"null\")] | @tsv" \
		delete.json >actual &&
	test_cmp expect actual
'

test_expect_success 'the journal item of a delete keeps the before hash' '
	printf "doomed.txt|deleted|1|0|%s|\n" "$(sha doomed.orig)" >expect &&
	journal "SELECT path, change, before_exists, after_exists, before_hash, after_hash
		FROM operation_items WHERE op_id = '"'"'$(cat delete.op)'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'the deleted bytes are recoverable with cat-blob of the recorded hash' '
	journal "SELECT before_hash FROM operation_items WHERE op_id = '"'"'$(cat delete.op)'"'"'" >id &&
	keeper cat-blob "$(cat id)" >recovered &&
	cmp doomed.orig recovered
'

test_expect_success 'file delete --expected-hash with a stale hash is CONTENT_CONFLICT and keeps the file' '
	printf "keep me\n" >kept.txt &&
	ops=$(op_count) &&
	test_expect_code 15 keeper --json file delete kept.txt --expected-hash "$(sha src.orig)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	echo "keep me" >expect &&
	test_cmp expect kept.txt &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'file delete of a missing file is PATH_NOT_FOUND (exit 3)' '
	test_expect_code 3 keeper --json file delete no-such-file.txt >out &&
	test_error_code PATH_NOT_FOUND out &&
	test "$(json_get .error.details.path out)" = no-such-file.txt
'

# audit metadata

test_expect_success 'every command records --actor and --task-id in its journal row' '
	cat >expect <<-\EOF &&
	create|agent-7|T-create|committed
	write|agent-7|T-write|committed
	copy|agent-7|T-copy|committed
	move|agent-7|T-move|committed
	delete|agent-7|T-delete|committed
	EOF
	for cmd in create write copy move delete
	do
		journal "SELECT kind, actor, task_id, status FROM operations
			WHERE id = '"'"'$(cat $cmd.op)'"'"'" || exit 1
	done >actual &&
	test_cmp expect actual
'

test_expect_success 'without --actor and --task-id both are recorded as absent' '
	keeper --json file write unattributed.txt --content x >out &&
	echo "NULL|NULL" >expect &&
	journal "SELECT quote(actor), quote(task_id) FROM operations
		WHERE id = '"'"'$(json_get .operation_id out)'"'"'" >actual &&
	test_cmp expect actual
'

# refusals

test_expect_success 'setup: refusal fixtures (a link, links leading outside, a FIFO, a directory)' '
	printf "anchor\n" >anchor.txt &&
	mkdir -p refuse/adir refuse/.ssh &&
	printf "link target\n" >refuse/target.txt &&
	ln -s target.txt refuse/link &&
	printf "outside victim\n" >"$OUTSIDE/victim.txt" &&
	ln -s "$OUTSIDE" refuse/outdir &&
	ln -s "$OUTSIDE/victim.txt" refuse/outfile &&
	mkfifo refuse/fifo
'

test_expect_success 'a path with .. is PATH_OUTSIDE_WORKSPACE (exit 4) for every command; nothing changes' '
	refusal_state before &&
	refused 4 PATH_OUTSIDE_WORKSPACE --naming ../outside/new.txt file create ../outside/new.txt --content x &&
	test_no_host_path refusal.json &&
	refused 4 PATH_OUTSIDE_WORKSPACE --naming ../outside/victim.txt file write ../outside/victim.txt --content x &&
	refused 4 PATH_OUTSIDE_WORKSPACE --naming ../outside/new.txt file copy anchor.txt ../outside/new.txt &&
	refused 4 PATH_OUTSIDE_WORKSPACE --naming ../outside/new.txt file move anchor.txt ../outside/new.txt &&
	refused 4 PATH_OUTSIDE_WORKSPACE --naming ../outside/victim.txt file delete ../outside/victim.txt &&
	refused 4 PATH_OUTSIDE_WORKSPACE --naming refuse/../../outside/new.txt file write refuse/../../outside/new.txt --content x &&
	refusal_state after &&
	test_cmp before after
'

test_expect_success 'an absolute path outside is ABSOLUTE_PATH_OUTSIDE_WORKSPACE (exit 6); nothing changes' '
	refusal_state before &&
	refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE --naming "$OUTSIDE/new.txt" file create "$OUTSIDE/new.txt" --content x &&
	refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE --naming "$OUTSIDE/victim.txt" file write "$OUTSIDE/victim.txt" --content x &&
	refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE --naming "$OUTSIDE/new.txt" file copy anchor.txt "$OUTSIDE/new.txt" &&
	refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE --naming "$OUTSIDE/new.txt" file move anchor.txt "$OUTSIDE/new.txt" &&
	refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE --naming "$OUTSIDE/victim.txt" file delete "$OUTSIDE/victim.txt" &&
	refusal_state after &&
	test_cmp before after
'

test_expect_success 'an absolute path inside the workspace is accepted' '
	keeper --json file write "$WS/absolute.txt" --content "absolute
" >out &&
	test "$(json_get .ok out)" = true &&
	echo absolute >expect &&
	test_cmp expect absolute.txt
'

test_expect_success 'a symlink as the target is SYMLINK_WRITE_REFUSED (exit 9); link and target untouched' '
	refusal_state before &&
	refused 9 SYMLINK_WRITE_REFUSED --naming refuse/link file create refuse/link --content x &&
	test_no_host_path refusal.json &&
	refused 9 SYMLINK_WRITE_REFUSED --naming refuse/link file create refuse/link --allow-existing --content x &&
	refused 9 SYMLINK_WRITE_REFUSED --naming refuse/link file write refuse/link --content x &&
	refused 9 SYMLINK_WRITE_REFUSED --naming refuse/link file copy anchor.txt refuse/link &&
	refused 9 SYMLINK_WRITE_REFUSED --naming refuse/link file move anchor.txt refuse/link --overwrite &&
	refused 9 SYMLINK_WRITE_REFUSED --naming refuse/link file delete refuse/link &&
	refusal_state after &&
	test_cmp before after &&
	test -h refuse/link
'

test_expect_success 'a symlink leading outside is SYMLINK_ESCAPE_REFUSED (exit 11); outside untouched' '
	refusal_state before &&
	refused 11 SYMLINK_ESCAPE_REFUSED --naming refuse/outdir/new.txt file create refuse/outdir/new.txt --content x &&
	test_no_host_path refusal.json &&
	refused 11 SYMLINK_ESCAPE_REFUSED --naming refuse/outdir/victim.txt file write refuse/outdir/victim.txt --content x &&
	refused 11 SYMLINK_ESCAPE_REFUSED --naming refuse/outfile file write refuse/outfile --content x &&
	refused 11 SYMLINK_ESCAPE_REFUSED --naming refuse/outdir/new.txt file copy anchor.txt refuse/outdir/new.txt &&
	refused 11 SYMLINK_ESCAPE_REFUSED --naming refuse/outdir/new.txt file move anchor.txt refuse/outdir/new.txt &&
	refused 11 SYMLINK_ESCAPE_REFUSED --naming refuse/outdir/victim.txt file delete refuse/outdir/victim.txt &&
	refused 11 SYMLINK_ESCAPE_REFUSED --naming refuse/outfile file copy refuse/outfile stolen.txt &&
	refusal_state after &&
	test_cmp before after &&
	test ! -e stolen.txt
'

test_expect_success 'a path inside .filekeeper/ is PATH_IS_STATE_PATH (exit 8); the state is untouched' '
	refusal_state before &&
	refused 8 PATH_IS_STATE_PATH --naming .filekeeper/x file create .filekeeper/x --content x &&
	test_no_host_path refusal.json &&
	refused 8 PATH_IS_STATE_PATH --naming .filekeeper/journal.sqlite3 file write .filekeeper/journal.sqlite3 --content x &&
	refused 8 PATH_IS_STATE_PATH --naming .filekeeper/x file copy anchor.txt .filekeeper/x &&
	refused 8 PATH_IS_STATE_PATH --naming .filekeeper/x file move anchor.txt .filekeeper/x &&
	refused 8 PATH_IS_STATE_PATH --naming .filekeeper/lock file delete .filekeeper/lock &&
	refused 8 PATH_IS_STATE_PATH --naming .filekeeper/lock file copy .filekeeper/lock lock-copy &&
	refusal_state after &&
	test_cmp before after &&
	test ! -e .filekeeper/x &&
	test ! -e lock-copy
'

test_expect_success 'a FIFO is SPECIAL_FILE_REFUSED (exit 13) as target and as source, and stays a FIFO' '
	refusal_state before &&
	refused 13 SPECIAL_FILE_REFUSED --naming refuse/fifo file create refuse/fifo --allow-existing --content x &&
	test_no_host_path refusal.json &&
	refused 13 SPECIAL_FILE_REFUSED --naming refuse/fifo file write refuse/fifo --content x &&
	refused 13 SPECIAL_FILE_REFUSED --naming refuse/fifo file copy anchor.txt refuse/fifo &&
	refused 13 SPECIAL_FILE_REFUSED --naming refuse/fifo file move anchor.txt refuse/fifo --overwrite &&
	refused 13 SPECIAL_FILE_REFUSED --naming refuse/fifo file delete refuse/fifo &&
	refused 13 SPECIAL_FILE_REFUSED --naming refuse/fifo file copy refuse/fifo from-fifo.txt &&
	refusal_state after &&
	test_cmp before after &&
	test -p refuse/fifo &&
	test ! -e from-fifo.txt
'

test_expect_success 'a directory as a file target is NOT_A_FILE (exit 5) and stays a directory' '
	refusal_state before &&
	refused 5 NOT_A_FILE --naming refuse/adir file create refuse/adir --content x &&
	test_no_host_path refusal.json &&
	refused 5 NOT_A_FILE --naming refuse/adir file write refuse/adir --content x &&
	refused 5 NOT_A_FILE --naming refuse/adir file copy anchor.txt refuse/adir &&
	refused 5 NOT_A_FILE --naming refuse/adir file move anchor.txt refuse/adir --overwrite &&
	refused 5 NOT_A_FILE --naming refuse/adir file delete refuse/adir &&
	refused 5 NOT_A_FILE --naming refuse/adir file copy refuse/adir adir-copy &&
	refused 5 NOT_A_FILE --naming refuse/adir file move refuse/adir adir-moved &&
	refusal_state after &&
	test_cmp before after &&
	test -d refuse/adir
'

test_expect_success 'credential-shaped targets are SENSITIVE_PATH_REFUSED (exit 10); nothing written' '
	refusal_state before &&
	for path in refuse/.env refuse/.env.local refuse/x.pem refuse/server.key refuse/id_rsa refuse/.ssh/config
	do
		refused 10 SENSITIVE_PATH_REFUSED --naming $path file write $path --content secret &&
		refused 10 SENSITIVE_PATH_REFUSED --naming $path file create $path --content secret &&
		refused 10 SENSITIVE_PATH_REFUSED --naming $path file copy anchor.txt $path &&
		refused 10 SENSITIVE_PATH_REFUSED --naming $path file move anchor.txt $path || exit 1
	done &&
	test_no_host_path refusal.json &&
	refusal_state after &&
	test_cmp before after
'

test_expect_success 'the SENSITIVE_PATH_REFUSED message names --i-accept-secret-write-risk, and no other surface'"'"'s argument' '
	refused 10 SENSITIVE_PATH_REFUSED --naming refuse/.env file write refuse/.env --content secret &&
	json_get .error.message refusal.json >message &&
	grep -e "--i-accept-secret-write-risk" message &&
	! grep -e allow_sensitive_write -e i_accept_secret_write_risk message
'

test_expect_success '--i-accept-secret-write-risk writes .env, x.pem and .ssh/config' '
	for path in refuse/.env refuse/x.pem refuse/.ssh/config
	do
		keeper --json file write $path --i-accept-secret-write-risk --content "accepted risk
" >out &&
		test_mutation_shape out &&
		echo "accepted risk" >expect &&
		test_cmp expect $path || exit 1
	done
'

test_expect_success '--i-accept-secret-write-risk lets copy reach a credential-shaped destination' '
	keeper --json file copy anchor.txt refuse/copied.key --i-accept-secret-write-risk >out &&
	test_mutation_shape out &&
	test_cmp anchor.txt refuse/copied.key
'

test_expect_success 'a refused first mutation in a fresh workspace does not create .filekeeper/' '
	mkdir "$TRASH/fresh" &&
	printf "existing\n" >"$TRASH/fresh/existing.txt" &&
	printf "other\n" >"$TRASH/fresh/other.txt" &&
	mkdir "$TRASH/fresh/dir" &&
	keeper workspace create fresh "$TRASH/fresh" >/dev/null &&
	test_expect_code 14 keeper --json --workspace fresh file create existing.txt --content x >out &&
	test_expect_code 15 keeper --json --workspace fresh file write existing.txt --content x \
		--expected-hash "$(sha src.orig)" >out &&
	test_expect_code 10 keeper --json --workspace fresh file write .env --content x >out &&
	test_expect_code 4 keeper --json --workspace fresh file write ../x --content x >out &&
	test_expect_code 5 keeper --json --workspace fresh file write dir --content x >out &&
	test_expect_code 14 keeper --json --workspace fresh file copy existing.txt other.txt >out &&
	test_expect_code 3 keeper --json --workspace fresh file move missing.txt new.txt >out &&
	test_expect_code 3 keeper --json --workspace fresh file delete missing.txt >out &&
	test ! -e "$TRASH/fresh/.filekeeper" &&
	echo existing >expect &&
	test_cmp expect "$TRASH/fresh/existing.txt"
'

# limits

test_expect_success 'setup: a second home with max_write_bytes = 1000 and max_history_blob_bytes = 100' '
	H2=$TRASH/home2 &&
	keeper --home "$H2" init >/dev/null &&
	printf "[filekeeper]\nmax_write_bytes = 1000\nmax_history_blob_bytes = 100\n" >"$H2/config.toml" &&
	mkdir "$TRASH/capped" &&
	keeper --home "$H2" workspace create capped "$TRASH/capped" >/dev/null &&
	head -c 1001 /dev/zero | tr "\000" a >over.in &&
	head -c 1000 /dev/zero | tr "\000" b >limit.in &&
	head -c 150 /dev/zero | tr "\000" c >big.in &&
	head -c 160 /dev/zero | tr "\000" d >big2.in
'

test_expect_success 'content above max_write_bytes is LIMIT_EXCEEDED (exit 21) from --content, --input and stdin' '
	C="$TRASH/capped" &&
	test_expect_code 21 keeper --json --home "$TRASH/home2" --workspace capped \
		file write over.txt --content "$(cat over.in)" >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test_expect_code 21 keeper --json --home "$TRASH/home2" --workspace capped \
		file write over.txt --input over.in >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test_expect_code 21 keeper --json --home "$TRASH/home2" --workspace capped \
		file create over.txt <over.in >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get .error.details.path out)" = over.txt &&
	test_no_host_path out &&
	test ! -e "$C/over.txt" &&
	test ! -e "$C/.filekeeper"
'

test_expect_success 'content of exactly max_write_bytes is written' '
	keeper --json --home "$TRASH/home2" --workspace capped file write limit.txt --input limit.in >out &&
	test "$(json_get .ok out)" = true &&
	cmp limit.in "$TRASH/capped/limit.txt"
'

test_expect_success 'a copy of a file above max_write_bytes is LIMIT_EXCEEDED' '
	cp over.in "$TRASH/capped/over-src.txt" &&
	test_expect_code 21 keeper --json --home "$TRASH/home2" --workspace capped \
		file copy over-src.txt over-copy.txt >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test ! -e "$TRASH/capped/over-copy.txt"
'

test_expect_success 'a file above max_history_blob_bytes is written and history_skipped names it' '
	keeper --json --home "$TRASH/home2" --workspace capped file write big.txt --input big.in >big.json &&
	test "$(json_get .ok big.json)" = true &&
	cmp big.in "$TRASH/capped/big.txt" &&
	json_get .operation_id big.json | grep "^op_[0-9a-f]\{16\}$" &&
	echo "[\"big.txt\"]" >expect &&
	jq -c .history_skipped big.json >actual &&
	test_cmp expect actual &&
	test "$(json_get .undo_available big.json)" = false &&
	test "$(json_get .after_hash big.json)" = "$(sha big.in)"
'

test_expect_success 'no blob of the skipped bytes exists in .filekeeper/objects' '
	test ! -e "$TRASH/capped/$(object_path "$(sha big.in)")" &&
	find "$TRASH/capped/.filekeeper" -path "*/objects/*" -type f >objects &&
	while read -r obj
	do
		! zstd -dcq <"$obj" | cmp -s - big.in || exit 1
	done <objects &&
	test_must_fail keeper --home "$TRASH/home2" --workspace capped cat-blob "$(sha big.in)"
'

test_expect_success 'the journal marks the skipped item history_skipped' '
	echo "big.txt|1" >expect &&
	sqlite3 "$TRASH/capped/.filekeeper/journal.sqlite3" "SELECT path, history_skipped FROM operation_items
		WHERE op_id = '"'"'$(json_get .operation_id big.json)'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'overwriting a file above the cap skips its old bytes too' '
	keeper --json --home "$TRASH/home2" --workspace capped file write big.txt --input big2.in >out &&
	cmp big2.in "$TRASH/capped/big.txt" &&
	json_get ".history_skipped[]" out >actual &&
	echo big.txt >expect &&
	test_cmp expect actual &&
	test "$(json_get .undo_available out)" = false &&
	test ! -e "$TRASH/capped/$(object_path "$(sha big.in)")" &&
	test ! -e "$TRASH/capped/$(object_path "$(sha big2.in)")"
'

test_expect_success 'a file within the cap is stored as usual: history_skipped absent, undo available' '
	keeper --json --home "$TRASH/home2" --workspace capped file write small.txt --content "small
" >out &&
	test "$(json_get "has(\"history_skipped\") | not" out)" = true &&
	test "$(json_get .undo_available out)" = true &&
	echo small >expect &&
	test -f "$TRASH/capped/$(object_path "$(sha expect)")"
'

test_expect_success 'deleting a file above the cap works; history_skipped names it, undo unavailable' '
	cp big.in "$TRASH/capped/big-doomed.txt" &&
	keeper --json --home "$TRASH/home2" --workspace capped file delete big-doomed.txt >out &&
	test "$(json_get .ok out)" = true &&
	test ! -e "$TRASH/capped/big-doomed.txt" &&
	json_get ".history_skipped[]" out >actual &&
	echo big-doomed.txt >expect &&
	test_cmp expect actual &&
	test "$(json_get .undo_available out)" = false
'

test_expect_success 'fsck of the capped workspace does not count skipped bytes as missing' '
	keeper --json --home "$TRASH/home2" --workspace capped fsck >out &&
	test "$(json_get .ok out)" = true &&
	test "$(json_get ".missing_objects | length" out)" = 0 &&
	test "$(json_get ".damaged_objects | length" out)" = 0
'

# git

test_expect_success 'setup: a workspace that is a git repository ignoring *.log' '
	mkdir "$TRASH/gitws" &&
	git init -q "$TRASH/gitws" &&
	printf "*.log\n" >"$TRASH/gitws/.gitignore" &&
	keeper workspace create gitws "$TRASH/gitws" >/dev/null &&
	keeper --json --workspace gitws file write tracked.txt --content "first
" >out
'

test_expect_success 'writing a git-ignored path succeeds with a warning that mentions git' '
	keeper --json --workspace gitws file write debug.log --content "ignored
" >out &&
	test "$(json_get .ok out)" = true &&
	test "$(json_get .changed out)" = true &&
	echo ignored >expect &&
	test_cmp expect "$TRASH/gitws/debug.log" &&
	json_get ".warnings[]" out >warnings &&
	grep -F debug.log warnings >named &&
	grep -i git named
'

test_expect_success 'writing a path git does not ignore carries no warning' '
	keeper --json --workspace gitws file write tracked.txt --content "second
" >out &&
	test "$(json_get ".warnings | length" out)" = 0
'

# ignored_warned ARGS: `keeper --json --workspace gitws ARGS` succeeds and warns that git
# ignores the path.
ignored_warned () {
	keeper --json --workspace gitws "$@" >out &&
	test "$(json_get .ok out)" = true &&
	json_get ".warnings[]" out | grep -q "ignored by git" || {
		echo >&2 "no git-ignored warning from: $*"
		cat >&2 out
		return 1
	}
}

test_expect_success 'every mutating command warns the same way about a git-ignored path' '
	printf "build/\n" >>"$TRASH/gitws/.gitignore" &&
	ignored_warned dir create build &&
	ignored_warned file create build/a.txt --content a &&
	ignored_warned file copy build/a.txt build/b.txt &&
	ignored_warned file move build/b.txt build/c.txt &&
	ignored_warned file delete build/c.txt &&
	ignored_warned dir move build build2 &&
	printf -- "--- /dev/null\n+++ b/build/p.txt\n@@ -0,0 +1 @@\n+p\n" >"$TRASH/ignored.diff" &&
	ignored_warned file apply-patch "$TRASH/ignored.diff" &&
	ignored_warned file write build/p.txt --content q &&
	ignored_warned file delete build/p.txt &&
	ignored_warned dir delete build &&
	ignored_warned history undo-last
'

test_expect_success 'a path a repository inside a plain workspace ignores is warned about; the same rule outside any repository is not' '
	mkdir -p plainws/sub &&
	git init -q plainws/sub &&
	printf "*.log\n" >plainws/sub/.gitignore &&
	printf "*.log\n" >plainws/.gitignore &&
	keeper --json --root plainws file write sub/x.log --content x >out &&
	json_get ".warnings[]" out | grep "ignored by git" &&
	keeper --json --root plainws file write top.log --content x >out &&
	! json_get ".warnings[]" out | grep "ignored by git"
'

# a trailing slash names a directory

test_expect_success 'file write to a missing path ending with / is NOT_A_FILE and creates nothing' '
	refused 5 NOT_A_FILE --naming newdir/ file write newdir/ --content x &&
	! test -e newdir
'

test_expect_success 'file create, copy and move to a path ending with / are refused the same way' '
	printf "x\n" >slash-src.txt &&
	refused 5 NOT_A_FILE --naming made/ file create made/ --content x &&
	refused 5 NOT_A_FILE --naming copied/ file copy slash-src.txt copied/ &&
	refused 5 NOT_A_FILE --naming moved/ file move slash-src.txt moved/ &&
	! test -e made && ! test -e copied && ! test -e moved && test -f slash-src.txt
'

test_expect_success 'a file named with a trailing slash is NOT_A_DIRECTORY for reads and writes' '
	save slash-src.txt &&
	refused 7 NOT_A_DIRECTORY --naming slash-src.txt/ file info slash-src.txt/ &&
	refused 7 NOT_A_DIRECTORY --naming slash-src.txt/ file read slash-src.txt/ &&
	refused 7 NOT_A_DIRECTORY --naming slash-src.txt/ file write slash-src.txt/ --content y &&
	untouched slash-src.txt
'

test_expect_success 'a directory may still be named with a trailing slash' '
	keeper --json dir create slashdir/ >out &&
	test -d slashdir &&
	keeper --json file info slashdir/ >out &&
	test "$(json_get .kind out)" = directory
'

# every error about a path names it

test_expect_success 'a malformed --expected-hash names the path it guards' '
	printf "x\n" >guarded.txt &&
	refused 2 INVALID_ARGUMENT --naming guarded.txt file write guarded.txt --content y --expected-hash nope &&
	refused 2 INVALID_ARGUMENT --naming guarded.txt file delete guarded.txt --expected-hash nope &&
	refused 2 INVALID_ARGUMENT --naming copy-dest.txt file copy guarded.txt copy-dest.txt --expected-destination-hash nope &&
	refused 2 INVALID_ARGUMENT --naming guarded.txt file replace-text guarded.txt --old x --new y --first --expected-hash nope
'

test_expect_success 'a storage failure during a step names the path' '
	test_expect_code 26 env FILEKEEPER_TEST_FAIL_AT=mutation-step-1 \
		keeper --json file write guarded.txt --content z >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get .error.details.path out)" = guarded.txt
'

test_expect_success 'a storage failure on a read-only mount names the path, where such a mount can be made' '
	mkdir -p "$TRASH/ro-src" "$TRASH/ro" &&
	printf "x\n" >"$TRASH/ro-src/a.txt" &&
	if mount --bind "$TRASH/ro-src" "$TRASH/ro" 2>/dev/null
	then
		mount -o remount,ro,bind "$TRASH/ro" &&
		keeper --json --root "$TRASH/ro" file write a.txt --content y >out
		rc=$?
		umount "$TRASH/ro" &&
		test $rc = 26 &&
		test_error_code STORAGE_ERROR out &&
		test "$(json_get .error.details.path out)" = a.txt
	else
		say_body "# no bind mount here: checked by the injected failure above"
	fi
'

# byte-order marks

test_expect_success 'a read and write round trip keeps the UTF-8 BOM and says so' '
	printf "\357\273\277hello\n" >bom.txt &&
	keeper --json file read bom.txt >read.json &&
	test "$(json_get .bom read.json)" = true &&
	jq -j .content read.json >content.txt &&
	keeper --json file write bom.txt --input content.txt >out &&
	test "$(json_get .bom_kept out)" = true &&
	json_get ".warnings[]" out | grep -q "byte-order mark" &&
	printf "\357\273\277hello\n" >expect &&
	test_cmp expect bom.txt &&
	keeper --json file info bom.txt >info.json &&
	test "$(json_get .bom info.json)" = true
'

test_expect_success 'the kept BOM is part of the recorded after state, so undo and hashes agree' '
	test "$(json_get .after_hash out)" = "$(sha bom.txt)"
'

test_expect_success '--remove-bom writes the content as given, without the mark' '
	keeper --json file write bom.txt --content "plain" --remove-bom >out &&
	test "$(json_get "has(\"bom_kept\")" out)" = false &&
	printf "plain" >expect &&
	test_cmp expect bom.txt
'

test_expect_success 'content with its own BOM is written as given, never with two' '
	printf "\357\273\277one\n" >bom2.txt &&
	printf "\357\273\277two\n" >new.txt &&
	keeper --json file write bom2.txt --input new.txt >out &&
	test_cmp new.txt bom2.txt
'

test_expect_success 'binary content written over a BOM file gets no mark in front' '
	printf "\357\273\277text\n" >bom3.txt &&
	printf "\000\001\002" >bin.dat &&
	keeper --json file write bom3.txt --input bin.dat >out &&
	test_cmp bin.dat bom3.txt
'

test_expect_success '--remove-bom with content that starts with a BOM is refused' '
	save bom2.txt &&
	test_expect_code 2 keeper --json file write bom2.txt --input new.txt --remove-bom >refusal.json &&
	test_error_code INVALID_ARGUMENT refusal.json &&
	untouched bom2.txt
'

test_expect_success 'a file with two marks and content with one: refused as ambiguous, nothing written' '
	printf "\357\273\277\357\273\277Q\nb\n" >twobom.txt &&
	save twobom.txt &&
	keeper --json file read twobom.txt >read.json &&
	test "$(json_get .bom read.json)" = true &&
	jq -j .content read.json >text &&
	printf "\357\273\277Q\nb\n" >expect && test_cmp expect text &&
	test_expect_code 2 keeper --json file write twobom.txt --input text \
		--expected-hash "$(json_get .content_hash read.json)" >refusal.json &&
	test_error_code INVALID_ARGUMENT refusal.json &&
	test "$(json_get .error.details.reason refusal.json)" = bom_ambiguous &&
	json_get .error.details.recovery refusal.json | grep -F "keeper file create" &&
	json_get .error.details.recovery refusal.json | grep -F -- "--allow-existing" &&
	untouched twobom.txt &&
	test_expect_code 2 keeper --json file write twobom.txt --input text --dry-run >refusal.json &&
	test "$(json_get .error.details.reason refusal.json)" = bom_ambiguous
'

test_expect_success 'the ambiguous write goes through as the refusal says: create --allow-existing' '
	printf "\357\273\277" | cat - text >both &&
	keeper --json file create twobom.txt --input both --allow-existing >out &&
	test_cmp both twobom.txt
'

test_expect_success 'a file with two marks still keeps its first for content with none' '
	keeper --json file write twobom.txt --content "plain" >out &&
	test "$(json_get .bom_kept out)" = true &&
	printf "\357\273\277plain" >expect &&
	test_cmp expect twobom.txt
'

test_expect_success 'a write over a hard-linked file warns that the other name keeps the old content' '
	echo old >hardlinked.txt &&
	ln hardlinked.txt hl-other.txt &&
	keeper --json file write hardlinked.txt --content "new" >out &&
	json_get ".warnings | map(select(contains(\"has 2 names (hard links)\"))) | length == 1" out &&
	echo old >expect &&
	test_cmp expect hl-other.txt
'

test_expect_success 'an edit of a hard-linked file warns too; a write of the same content replaces nothing and does not' '
	ln hardlinked.txt hl-third.txt &&
	keeper --json file replace-text hardlinked.txt --first --old new --new newer >out &&
	json_get ".warnings | map(select(contains(\"hard links\"))) | length == 1" out &&
	keeper --json file write hardlinked.txt --content "newer" >out &&
	json_get ".changed == false and (.warnings | length == 0)" out
'

test_expect_success 'a move over a hard-linked file warns that its other name keeps the old content' '
	echo old >hl-dest.txt &&
	ln hl-dest.txt hl-dest-other.txt &&
	echo moved >hl-src.txt &&
	keeper --json file move hl-src.txt hl-dest.txt --overwrite >out &&
	json_get ".warnings | map(select(contains(\"hl-dest.txt has 2 names (hard links)\") and contains(\"the other name keeps the old content\"))) | length == 1" out &&
	echo old >expect &&
	test_cmp expect hl-dest-other.txt
'

test_expect_success ROOT 'a write over a file another user owns says the new file is the writer'"'"'s' '
	echo old >owned.txt &&
	chown 65534 owned.txt &&
	keeper --json file write owned.txt --content "new" >out &&
	json_get ".warnings | map(select(contains(\"belongs to user 65534\"))) | length == 1" out &&
	test "$(stat -c %u owned.txt)" = 0
'

test_expect_success ROOT 'a write keeps the group of the file it replaces, setgid bit included, and says nothing' '
	echo old >shared.txt &&
	chgrp 65534 shared.txt &&
	chmod 2775 shared.txt &&
	keeper --json file write shared.txt --content "new" >out &&
	json_get ".warnings == []" out &&
	test "$(stat -c %g shared.txt)" = 65534 &&
	test "$(stat -c %a shared.txt)" = 2775 &&
	keeper --json file replace-text shared.txt --old new --new newer --first >out &&
	test "$(stat -c %g shared.txt)" = 65534 &&
	keeper --json history undo-last >out &&
	test "$(stat -c %g shared.txt)" = 65534
'

test_expect_success ROOT 'a writer who may not give the group says the new file leaves it' '
	mkdir -p "$TRASH/grp/ws" "$TRASH/grp/home" &&
	chmod o+x "$TRASH" &&
	echo old >"$TRASH/grp/ws/team.txt" &&
	chown -R 65534 "$TRASH/grp" &&
	chgrp 0 "$TRASH/grp/ws/team.txt" &&
	chmod 664 "$TRASH/grp/ws/team.txt" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$TRASH/grp/home" FILEKEEPER_HOME="$TRASH/grp/home" \
		keeper --root "$TRASH/grp/ws" --json file write team.txt --content new >out &&
	json_get ".warnings | map(select(contains(\"belongs to group 0, which the writer is not in\"))) | length == 1" out &&
	test "$(stat -c %g "$TRASH/grp/ws/team.txt")" = 65534
'

# as_nobody DIR ARGS...: keeper --json as user 65534 (whom file modes bind), in the workspace
# DIR/ws with the home DIR/home.
as_nobody () {
	an_dir=$1 &&
	shift &&
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$an_dir/home" FILEKEEPER_HOME="$an_dir/home" \
		keeper --root "$an_dir/ws" --json "$@"
}

test_expect_success ROOT 'a setgid file in a setgid directory of a group the writer is not in loses the bit, said, and so does its undo' '
	D=$TRASH/sgd &&
	mkdir -p "$D/ws" "$D/home" &&
	chmod o+x "$TRASH" &&
	chown -R 65534 "$D" &&
	chgrp 0 "$D/ws" &&
	chmod 2777 "$D/ws" &&
	echo old >"$D/ws/tool.sh" &&
	chown 65534:0 "$D/ws/tool.sh" &&
	chmod 2775 "$D/ws/tool.sh" &&
	as_nobody "$D" file write tool.sh --content new >out &&
	json_get ".ok and (.warnings | map(select(contains(\"mode 2775 becomes 775\"))) | length == 1)" out &&
	test "$(stat -c %a "$D/ws/tool.sh")" = 775 &&
	as_nobody "$D" history undo-last >out &&
	json_get ".ok and (.warnings | map(select(contains(\"was setgid\"))) | length == 1)" out &&
	echo old >expect &&
	test_cmp expect "$D/ws/tool.sh" &&
	mkdir "$D/ws/plain" &&
	chown 65534:65534 "$D/ws/plain" &&
	chmod 755 "$D/ws/plain" &&
	echo mine >"$D/ws/plain/own.sh" &&
	chown 65534:65534 "$D/ws/plain/own.sh" &&
	chmod 2755 "$D/ws/plain/own.sh" &&
	as_nobody "$D" file copy plain/own.sh copied.sh >out &&
	json_get ".ok and (.warnings | map(select(contains(\"mode 2755 becomes 755\"))) | length == 1)" out &&
	test "$(stat -c %a "$D/ws/copied.sh")" = 755 &&
	printf "*** Begin Patch\n*** Update File: plain/own.sh\n*** Move to: moved.sh\n@@\n-mine\n+moved\n*** End Patch\n" >"$D/move.patch" &&
	chmod 644 "$D/move.patch" &&
	as_nobody "$D" file apply-patch "$D/move.patch" >out &&
	json_get ".ok and (.warnings | map(select(contains(\"mode 2755 becomes 755\"))) | length == 1)" out &&
	test "$(stat -c %a "$D/ws/moved.sh")" = 755 &&
	test ! -e "$D/ws/plain/own.sh" &&
	echo same >"$D/ws/mode.sh" &&
	chown 65534:0 "$D/ws/mode.sh" &&
	chmod 2775 "$D/ws/mode.sh" &&
	printf "diff --git a/mode.sh b/mode.sh\nold mode 100755\nnew mode 100644\n" >"$D/mode.patch" &&
	chmod 644 "$D/mode.patch" &&
	as_nobody "$D" file apply-patch "$D/mode.patch" >out &&
	json_get ".ok and (.warnings | map(select(contains(\"mode 2775 becomes 775\"))) | length == 1)" out &&
	test "$(stat -c %a "$D/ws/mode.sh")" = 664
'

test_expect_success ROOT 'a setgid file a patch moves into directories it makes, in such a directory, loses the bit the same way' '
	D=$TRASH/sgd &&
	mkdir "$D/ws/src" &&
	chown 65534:65534 "$D/ws/src" &&
	chmod 755 "$D/ws/src" &&
	echo mine >"$D/ws/src/deep.sh" &&
	chown 65534:65534 "$D/ws/src/deep.sh" &&
	chmod 2755 "$D/ws/src/deep.sh" &&
	printf "*** Begin Patch\n*** Update File: src/deep.sh\n*** Move to: made/deeper/deep.sh\n@@\n-mine\n+moved\n*** End Patch\n" >"$D/deep.patch" &&
	chmod 644 "$D/deep.patch" &&
	as_nobody "$D" file apply-patch "$D/deep.patch" >out &&
	json_get ".ok and (.warnings | map(select(contains(\"mode 2755 becomes 755\"))) | length == 1)" out &&
	test "$(stat -c %a "$D/ws/made/deeper/deep.sh")" = 755 &&
	test "$(stat -c %g "$D/ws/made/deeper")" = 0 &&
	test ! -e "$D/ws/src/deep.sh"
'

test_expect_success ROOT 'the undo of a deleted setgid directory in such a directory puts it back without the bit, said' '
	D=$TRASH/sgd &&
	as_nobody "$D" dir create team >out &&
	chmod 2775 "$D/ws/team" &&
	test "$(stat -c %g "$D/ws/team")" = 0 &&
	as_nobody "$D" dir delete team >out &&
	op=$(json_get .operation_id out) &&
	as_nobody "$D" history undo "$op" --dry-run >out &&
	json_get ".ok and (.warnings | map(select(contains(\"team was setgid\"))) | length == 1)" out &&
	as_nobody "$D" history undo "$op" >out &&
	json_get ".ok and (.warnings | map(select(contains(\"team was setgid\"))) | length == 1)" out &&
	test "$(stat -c %a "$D/ws/team")" = 775 &&
	as_nobody "$D" fsck >out &&
	json_get ".pending_operations | length == 0" out
'

# without_fsetid ARGS...: keeper --json as root without CAP_FSETID (a container that drops it):
# the kernel then clears a setgid bit it is asked for on a file of a group root is not in,
# which no rule of keeper's can foresee.
without_fsetid () {
	setpriv --inh-caps -fsetid --bounding-set -fsetid keeper --json "$@"
}

test_expect_success ROOT 'a setgid bit the kernel clears unforeseen is refused before publishing: nothing written, rolled back' '
	mkdir -p nofsetid &&
	chgrp 65534 nofsetid &&
	chmod 2777 nofsetid &&
	echo old >nofsetid/tool.sh &&
	chgrp 65534 nofsetid/tool.sh &&
	chmod 2775 nofsetid/tool.sh &&
	test_expect_code 26 without_fsetid file write nofsetid/tool.sh --content new >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get .error.details.reason out)" = mode_not_kept &&
	test "$(json_get .error.details.kept_mode out)" = 775 &&
	echo old >expect &&
	test_cmp expect nofsetid/tool.sh &&
	test "$(stat -c %a nofsetid/tool.sh)" = 2775 &&
	keeper --json history show "$(json_get .error.details.operation_id out)" >show &&
	test "$(json_get .operation.status show)" = rolled_back &&
	keeper --json file write nofsetid/tool.sh --content new >out &&
	test "$(stat -c %a nofsetid/tool.sh)" = 2775
'

test_expect_success ROOT 'the undo of a deleted setgid directory that cannot have its bit back is refused, and leaves no directory' '
	mkdir nofsetid/team &&
	chgrp 65534 nofsetid/team &&
	chmod 2775 nofsetid/team &&
	keeper --json dir delete nofsetid/team >out &&
	op=$(json_get .operation_id out) &&
	test_expect_code 26 without_fsetid history undo "$op" >out &&
	test "$(json_get .error.details.reason out)" = mode_not_kept &&
	test ! -e nofsetid/team &&
	keeper --json history undo "$op" >out &&
	test "$(stat -c %a nofsetid/team)" = 2775
'

# XATTR: the filesystem takes user extended attributes and POSIX ACLs.
test_lazy_prereq XATTR '
	echo x >xattr-probe &&
	python3 -c "
import os, struct
os.setxattr(\"xattr-probe\", \"user.probe\", b\"1\")
acl = struct.pack(\"<I\", 2) + b\"\".join(struct.pack(\"<HHI\", *e) for e in
    [(1, 6, 0xffffffff), (4, 4, 0xffffffff), (0x20, 4, 0xffffffff)])
os.setxattr(\"xattr-probe\", \"system.posix_acl_access\", acl)
"
'

test_expect_success XATTR 'a write keeps the user extended attributes and the access ACL of the file it replaces' '
	echo old >attrs.txt &&
	python3 -c "
import os, struct
os.setxattr(\"attrs.txt\", \"user.note\", b\"keep me\")
acl = struct.pack(\"<I\", 2) + b\"\".join(struct.pack(\"<HHI\", *e) for e in
    [(1, 6, 0xffffffff), (2, 6, 65534), (4, 4, 0xffffffff), (0x10, 6, 0xffffffff), (0x20, 4, 0xffffffff)])
os.setxattr(\"attrs.txt\", \"system.posix_acl_access\", acl)
" &&
	python3 -c "import os; print(os.getxattr(\"attrs.txt\", \"system.posix_acl_access\").hex())" >acl.before &&
	keeper --json file write attrs.txt --content "new" >out &&
	json_get ".ok" out &&
	test "$(python3 -c "import os; print(os.getxattr(\"attrs.txt\", \"user.note\").decode())")" = "keep me" &&
	python3 -c "import os; print(os.getxattr(\"attrs.txt\", \"system.posix_acl_access\").hex())" >acl.after &&
	test_cmp acl.before acl.after
'

test_expect_success XATTR 'a write of a file without an ACL, in a directory with a default ACL, gives it none' '
	mkdir acl-dir &&
	echo old >acl-dir/plain.txt &&
	chmod 640 acl-dir/plain.txt &&
	python3 -c "
import os, struct
acl = struct.pack(\"<I\", 2) + b\"\".join(struct.pack(\"<HHI\", *e) for e in
    [(1, 6, 0xffffffff), (2, 6, 65534), (4, 4, 0xffffffff), (0x10, 6, 0xffffffff), (0x20, 4, 0xffffffff)])
os.setxattr(\"acl-dir\", \"system.posix_acl_default\", acl)
" &&
	echo probe >acl-dir/probe &&
	python3 -c "import os; os.getxattr(\"acl-dir/probe\", \"system.posix_acl_access\")" &&
	keeper --json file write acl-dir/plain.txt --content "new" >out &&
	json_get ".ok" out &&
	test_must_fail python3 -c "import os; os.getxattr(\"acl-dir/plain.txt\", \"system.posix_acl_access\")" 2>err &&
	grep "No data available" err &&
	test "$(stat -c %a acl-dir/plain.txt)" = 640
'

# names that would break a line

test_expect_success 'a name holding a newline stays one quoted line in human output' '
	nl="$(printf "\nx")" && nl="${nl%x}" &&
	printf "a\n" >"q${nl}n.txt" &&
	keeper file write "q${nl}n.txt" --content "b
" >out &&
	test_line_count = 2 out &&
	grep -Fx " \"q\\nn.txt\" | 2 +1 -1" out &&
	keeper file info "q${nl}n.txt" >out &&
	grep -Fx "path        \"q\\nn.txt\"" out &&
	keeper file move "q${nl}n.txt" "r${nl}n.txt" --dry-run >out 2>/dev/null &&
	grep -Fx "rename \"q\\nn.txt\" -> \"r\\nn.txt\"" out &&
	keeper --json file delete "q${nl}n.txt" >/dev/null
'

# the end

test_expect_success 'no .fk-tmp- file is left anywhere' '
	no_temp_files
'

test_expect_success 'keeper fsck is clean after every mutation above' '
	keeper --json fsck >out &&
	test "$(json_get .ok out)" = true &&
	test "$(json_get ".pending_operations | length" out)" = 0 &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	test "$(json_get ".missing_objects | length" out)" = 0 &&
	test "$(json_get .operations out)" = "$(op_count)"
'

test_done
