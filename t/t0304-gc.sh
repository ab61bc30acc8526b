#!/bin/sh
test_description='keeper gc: removes what no unpruned operation names, after a grace period

gc removes the objects that no unpruned operation names and the temp files interrupted writes
left (tmp_obj_* in the store, .fk-tmp-* in the state directory), each only once last modified
longer ago than the grace period (1 day unless --grace-period says otherwise): a blob stored
and not yet recorded, or a snapshot, is kept meanwhile, and storing an old blob again renews it.
Objects an unpruned operation names are kept whatever their age. A dry run removes nothing and
reports what the real run then removes. Afterwards fsck is clean and every unpruned operation
still undoes.'
. ./test-lib.sh

# age FILE...: sets FILE's modification time two days back.
age () {
	touch -d "2 days ago" "$@"
}

# objects: every object file of the workspace store, sorted.
objects () {
	find .filekeeper/objects -type f ! -name "tmp_obj_*" | LC_ALL=C sort
}

test_expect_success 'setup: four writes, the two oldest pruned, every object two days old' '
	for i in 1 2 3 4; do
		keeper file write a.txt --content "version $i
" >/dev/null || return 1
	done &&
	keeper history prune --keep-last 2 --grace-period 0 >/dev/null &&
	test "$(journal "SELECT count(*) FROM $PRUNED_OPERATIONS")" = 2 &&
	objects >all &&
	test_line_count = 4 all &&
	age $(cat all)
'

test_expect_success 'setup: a stray blob and a snapshot, two days old; a fresh unrecorded blob' '
	printf "stray\n" >stray && printf "fresh\n" >fresh && printf "snap\n" >snap.txt &&
	keeper hash-object -w stray >/dev/null &&
	keeper file read snap.txt --snapshot >/dev/null &&
	age "$(object_path "$(sha stray)")" "$(object_path "$(sha snap.txt)")" &&
	keeper hash-object -w fresh >/dev/null
'

test_expect_success 'setup: leftover temp files of dead writers, two days old, and a fresh one' '
	printf x >.filekeeper/objects/tmp_obj_0123456789abcdef &&
	mkdir -p .filekeeper/objects/ab &&
	printf xy >.filekeeper/objects/ab/tmp_obj_fedcba9876543210 &&
	printf xyz >.filekeeper/.fk-tmp-0011223344556677 &&
	age .filekeeper/objects/tmp_obj_0123456789abcdef .filekeeper/objects/ab/tmp_obj_fedcba9876543210 \
		.filekeeper/.fk-tmp-0011223344556677 &&
	printf fresh >.filekeeper/objects/tmp_obj_aaaaaaaaaaaaaaaa
'

test_expect_success 'a dry run reports what would go and removes nothing' '
	find .filekeeper -type f ! -name "journal.sqlite3*" | LC_ALL=C sort >before &&
	keeper --json gc --dry-run >dry.json &&
	json_get ".dry_run == true and .removed_objects == 3 and .removed_temporary_files == 3" dry.json &&
	json_get ".removed_temporary_bytes == 6 and .kept_objects == 3 and .young_objects == 1" dry.json &&
	find .filekeeper -type f ! -name "journal.sqlite3*" | LC_ALL=C sort >after &&
	test_cmp before after
'

test_expect_success 'gc removes exactly that: the pruned version, the stray, the snapshot and the old temp files' '
	keeper --json gc >gc.json &&
	jq "del(.dry_run)" dry.json >expect &&
	jq "del(.dry_run)" gc.json >actual &&
	test_cmp expect actual &&
	v1=$(printf "version 1\n" | sha /dev/stdin) &&
	for id in $v1 $(sha stray) $(sha snap.txt); do
		test ! -e "$(object_path $id)" || return 1
	done &&
	test ! -e .filekeeper/objects/tmp_obj_0123456789abcdef &&
	test ! -e .filekeeper/objects/ab/tmp_obj_fedcba9876543210 &&
	test ! -e .filekeeper/.fk-tmp-0011223344556677 &&
	test -e .filekeeper/objects/tmp_obj_aaaaaaaaaaaaaaaa &&
	test -e "$(object_path "$(sha fresh)")"
'

test_expect_success 'the objects of unpruned operations are kept, however old; fsck is clean' '
	for v in 2 3 4; do
		test -e "$(object_path "$(printf "version $v\n" | sha /dev/stdin)")" || return 1
	done &&
	rm .filekeeper/objects/tmp_obj_aaaaaaaaaaaaaaaa &&
	keeper --json fsck >fsck.json &&
	json_get ".missing_objects == [] and .damaged_objects == []" fsck.json
'

test_expect_success 'every unpruned operation still undoes' '
	keeper history undo-last >/dev/null &&
	keeper history undo-last >/dev/null &&
	printf "version 2\n" >expect &&
	test_cmp expect a.txt &&
	keeper fsck >/dev/null
'

test_expect_success 'a second gc finds nothing more to remove' '
	keeper --json gc >again.json &&
	json_get ".removed_objects == 0 and .removed_temporary_files == 0" again.json
'

test_expect_success 'storing an old unrecorded blob again renews it: gc keeps it' '
	printf "again\n" >again &&
	keeper hash-object -w again >/dev/null &&
	age "$(object_path "$(sha again)")" &&
	keeper hash-object -w again >/dev/null &&
	keeper --json gc >out &&
	test -e "$(object_path "$(sha again)")"
'

test_expect_success '--grace-period 0 removes an unrecorded blob at once; journal-begin naming it is then refused' '
	keeper --json gc --grace-period 0 >out &&
	json_get ".grace_period_seconds == 0" out &&
	test ! -e "$(object_path "$(sha again)")" &&
	test_expect_code 2 keeper --json journal-begin --kind write \
		--item "{\"path\": \"again\", \"after_hash\": \"$(sha again)\"}" >begin.json &&
	test_error_code INVALID_ARGUMENT begin.json
'

test_expect_success '--grace-period 0 still leaves a temp file written in the last ten minutes: a live writer'"'"'s' '
	printf live >.filekeeper/objects/tmp_obj_bbbbbbbbbbbbbbbb &&
	touch -d "9 minutes ago" .filekeeper/objects/tmp_obj_bbbbbbbbbbbbbbbb &&
	keeper --json gc --grace-period 0 >out &&
	json_get ".removed_temporary_files == 0" out &&
	test -e .filekeeper/objects/tmp_obj_bbbbbbbbbbbbbbbb &&
	touch -d "11 minutes ago" .filekeeper/objects/tmp_obj_bbbbbbbbbbbbbbbb &&
	keeper --json gc --grace-period 0 >out &&
	json_get ".removed_temporary_files == 1" out &&
	test ! -e .filekeeper/objects/tmp_obj_bbbbbbbbbbbbbbbb
'

test_expect_success 'a workspace without state: gc removes nothing and creates nothing' '
	mkdir empty &&
	keeper --root empty --json gc >out &&
	json_get ".removed_objects == 0 and .kept_objects == 0" out &&
	test ! -e empty/.filekeeper
'

test_done
