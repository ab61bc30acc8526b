#!/bin/sh
test_description='attack suite: hostile paths through keeper --json and through filekeeper-mcp

A table of probes, one line each (expected code, operations, path, what it tries), attacks
confinement: ".." in every position, absolute paths outside, the sibling that shares the
root'"'"'s prefix (/x/ws-evil for root /x/ws), symlinked files and directories leading out, link
chains and loops, a symlinked parent of the target, dangling links, NUL bytes, very long names
and paths, a non-UTF-8 directory name, Unicode look-alikes of "." and "/", .filekeeper/ under
other spellings, every credential-shaped name, FIFOs, sockets and devices. Every probe runs
each of its operations through keeper --json and, in one server session, through the matching
MCP tool. For each run: the exact stable code (and the documented exit code for the CLI), the
failure envelope, details.path naming the caller'"'"'s own path, no host path in the output,
nothing outside the root and nothing in the workspace changed, no operation recorded, and no
write target created.

The first run of this suite found five bugs, all fixed since: dir create judged every
ancestor as a write target; a name above NAME_MAX was a STORAGE_ERROR; writes through a link to
a directory with a non-UTF-8 name landed in its U+FFFD twin; a link chain leaving the
workspace was refused as a plain link; and a non-UTF-8 request line ended the MCP session.

After the table: hard links to an outside file (the specification has no rule refusing them;
every write replaces the inside name atomically, so the outside file must keep its bytes),
recursive listing and searching that must not descend through an escaping link, a non-UTF-8
path argument to keeper, writes through a link to a directory whose name is not UTF-8 (they
must not land in its U+FFFD twin), and a non-UTF-8 request line to filekeeper-mcp.'
. ./test-lib.sh

# Every probe through both surfaces takes minutes: the long loop only (make test; t/README).
test_require_prereq EXPENSIVE,MCP_SDK
EVIL=${WS}-evil
R=$TRASH/probe
ROWS=$R/rows.jsonl
RUNS=$R/runs.jsonl
TARGETS=$R/targets
SNAP=$R/snapshot.sh
mkdir -p "$R"

# probe CODE OPS PATH DESCRIPTION: one line of the table. OPS is a comma-separated list of
# read info list write create delete move-from move-to copy-from copy-to mkdir rmdir edit
# patch (move-to and copy-to use src.txt as the source; patch is a unified diff whose header
# names PATH). CODE is what the specification asks for. A read probe refused for where its
# path leads also runs read-bytes and diff (all_ops, below).
probe () {
	jq -nc --arg code "$1" --arg ops "$2" --arg path "$3" --arg desc "$4" --arg surfaces both \
		'{code: $code, desc: $desc,
		  ops: ($ops | split(",")), path: $path, surfaces: $surfaces}' >>"$ROWS"
}

# probe_jq CODE OPS JQ-EXPRESSION DESCRIPTION: a probe whose path a shell variable cannot hold
# (a NUL byte, 60,000 bytes); the expression computes it.
probe_jq () {
	probe_jq_through both "$@"
}

# probe_mcp_jq CODE OPS JQ-EXPRESSION DESCRIPTION: the same, through MCP only, for a path no
# command line can carry.
probe_mcp_jq () {
	probe_jq_through mcp "$@"
}

probe_jq_through () {
	jq -nc --arg surfaces "$1" --arg code "$2" --arg ops "$3" --arg desc "$5" \
		"{code: \$code, desc: \$desc,
		  ops: (\$ops | split(\",\")), path: ($4), surfaces: \$surfaces}" >>"$ROWS"
}

NAME256='"n" * 256'
PATH4097='"d/" * 2048 + "x"'
PATH60K='"p/" * 30000'
NUL_PATH='"a\u0000b"'
NONUTF8=$(printf 'nu\377')
TWIN=$(printf 'nu\357\277\275')

define_probes () {
	: >"$ROWS" &&

	# ".." in every position: refused by its letters, before the file system is consulted,
	# even where it would come back inside.
	probe PATH_OUTSIDE_WORKSPACE read,list,rmdir .. "the parent itself" &&
	probe PATH_OUTSIDE_WORKSPACE read,write,delete,edit,patch ../outside/victim "a leading .. onto an outside file" &&
	probe PATH_OUTSIDE_WORKSPACE write,create,move-to,copy-to,mkdir ../outside/new "a leading .. onto a new outside name" &&
	probe PATH_OUTSIDE_WORKSPACE read,write,delete sub/../../outside/victim ".. in the middle, climbing out" &&
	probe PATH_OUTSIDE_WORKSPACE read,write sub/../sub/f ".. in the middle, landing back inside" &&
	probe PATH_OUTSIDE_WORKSPACE list,rmdir sub/.. "a trailing .." &&
	probe PATH_OUTSIDE_WORKSPACE rmdir sub/../ "a trailing ../" &&
	probe PATH_OUTSIDE_WORKSPACE read,write ./../outside/victim ".. after ./" &&
	probe PATH_OUTSIDE_WORKSPACE write sub//..//..//outside/victim ".. between doubled slashes" &&
	probe PATH_OUTSIDE_WORKSPACE read,write,delete ../ws/sub/f "out and back in through the root's own name" &&
	probe PATH_OUTSIDE_WORKSPACE read,write "$WS/../outside/victim" "an absolute path with .." &&
	probe PATH_OUTSIDE_WORKSPACE read "$WS/sub/../sub/f" "an absolute path inside with .." &&
	probe PATH_OUTSIDE_WORKSPACE move-from,copy-from ../outside/victim "an outside file as the source of a move or copy" &&
	probe PATH_OUTSIDE_WORKSPACE read ../../../../../../../../etc/passwd "many .. onto /etc/passwd" &&

	# Absolute paths outside the root, the sibling sharing its prefix among them.
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE read,write,delete,edit,move-from,copy-from,patch "$OUTSIDE/victim" "an absolute outside file" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE write,create,move-to,copy-to,mkdir "$OUTSIDE/new" "an absolute new outside name" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE list,rmdir "$OUTSIDE/dir" "an absolute outside directory" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE read,write /etc/passwd "/etc/passwd" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE list,rmdir / "the file system root" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE read "//$OUTSIDE/victim" "an absolute path with extra leading slashes" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE read,write "/proc/self/root$OUTSIDE/victim" "a /proc magic link onto an outside file" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE read,write,delete,copy-from "$EVIL/f" "the sibling-prefix trick: root /x/ws, path /x/ws-evil/f" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE write,create,move-to,mkdir "$EVIL/new" "a new name in the prefix sibling" &&
	probe ABSOLUTE_PATH_OUTSIDE_WORKSPACE list,rmdir "$EVIL" "the prefix sibling itself" &&

	# Symbolic links whose target leaves the root.
	probe SYMLINK_ESCAPE_REFUSED read,write,delete,edit,move-from,copy-from,patch out-file "a relative link to an outside file" &&
	probe SYMLINK_ESCAPE_REFUSED read,write,info abs-out-file "an absolute link to an outside file" &&
	probe SYMLINK_ESCAPE_REFUSED read,write null-link "a link to /dev/null" &&
	probe SYMLINK_ESCAPE_REFUSED read,write,delete,edit out-dir/victim "a file below a relative link to an outside directory" &&
	probe SYMLINK_ESCAPE_REFUSED write,create,move-to,copy-to out-dir/new "a new name below a link to an outside directory" &&
	probe SYMLINK_ESCAPE_REFUSED list,rmdir out-dir "a link to an outside directory itself" &&
	probe SYMLINK_ESCAPE_REFUSED read,write,create abs-out/victim "a file below an absolute link to an outside directory" &&
	probe SYMLINK_ESCAPE_REFUSED read,write evil-link/f "an absolute link into the prefix sibling" &&
	probe SYMLINK_ESCAPE_REFUSED read,write evil-rel/f "a relative link into the prefix sibling" &&
	probe SYMLINK_ESCAPE_REFUSED read,write "$WS/out-dir/victim" "an absolute path inside, spelled through an escaping link" &&
	probe SYMLINK_ESCAPE_REFUSED read,write,delete sub/p/inner "a symlinked parent of the target leading out" &&
	probe SYMLINK_ESCAPE_REFUSED write,create sub/p/new "a new name under a symlinked parent leading out" &&
	probe SYMLINK_ESCAPE_REFUSED read,write deep/a/b/up/victim "a symlinked parent three levels down, climbing out" &&
	probe SYMLINK_ESCAPE_REFUSED read,write hop/victim "a chain of two links whose second climbs out" &&
	probe SYMLINK_ESCAPE_REFUSED write hop/new "a new name through the two-link chain" &&
	probe SYMLINK_ESCAPE_REFUSED read c1 "a chain of three links, the last leading out" &&
	# A one-hop link out is SYMLINK_ESCAPE_REFUSED as a write target too; a chain is judged by
	# its first hop only, and called a plain symlink write target.
	probe SYMLINK_ESCAPE_REFUSED write,delete c1 "the three-link chain out as a write target" &&
	probe SYMLINK_ESCAPE_REFUSED read,write,create,move-to,copy-to dangle-out "a dangling link to a new outside name" &&
	probe SYMLINK_ESCAPE_REFUSED write,create dangle-abs "a dangling absolute link to a new outside name" &&
	probe SYMLINK_ESCAPE_REFUSED write,mkdir dangle-deep "a dangling link into a missing outside directory" &&
	probe SYMLINK_ESCAPE_REFUSED read out-fifo "a link to an outside FIFO (refused without opening it)" &&

	# Links that stay inside but cannot be followed or written.
	probe INVALID_ARGUMENT read loop "a link to itself" &&
	probe INVALID_ARGUMENT read,write la/x "a two-link loop as the parent" &&
	probe SYMLINK_WRITE_REFUSED write,create loop "a looping link as a write target" &&
	probe PATH_NOT_FOUND read dangle "a dangling link inside, read" &&
	probe SYMLINK_WRITE_REFUSED write,create,move-to dangle "a dangling link inside as a write target" &&

	# Filekeeper's own state, under every spelling that reaches it.
	probe PATH_IS_STATE_PATH list,rmdir .filekeeper "the state directory" &&
	probe PATH_IS_STATE_PATH list,rmdir .filekeeper/ "the state directory with a trailing slash" &&
	probe PATH_IS_STATE_PATH read,write,delete,move-from,copy-from .filekeeper/journal.sqlite3 "the journal" &&
	probe PATH_IS_STATE_PATH write,create,move-to,copy-to,patch .filekeeper/planted "a new name in the state directory" &&
	probe PATH_IS_STATE_PATH write ./.filekeeper/planted "./.filekeeper/" &&
	probe PATH_IS_STATE_PATH write,create .filekeeper//planted ".filekeeper//" &&
	probe PATH_IS_STATE_PATH write .filekeeper/./planted ".filekeeper/./" &&
	probe PATH_IS_STATE_PATH write,create "$WS/.filekeeper/planted" "the absolute spelling" &&
	probe PATH_IS_STATE_PATH write "$WS//.filekeeper/planted" "the absolute spelling with a doubled slash" &&
	probe PATH_IS_STATE_PATH write "$TRASH/ws-alias/.filekeeper/planted" "an absolute path through an outside alias of the root" &&
	probe PATH_IS_STATE_PATH read,write st/planted "a relative link to .filekeeper" &&
	probe PATH_IS_STATE_PATH write st-abs/planted "an absolute link to .filekeeper" &&
	probe PATH_IS_STATE_PATH write sub/up/.filekeeper/planted "a link to the root, then .filekeeper" &&
	# The name is matched without regard to case: on a file system that folds case,
	# .FILEKEEPER is the state directory itself (decisions.md).
	probe PATH_IS_STATE_PATH write .FILEKEEPER/planted "another case of .filekeeper" &&

	# Credential-shaped write targets: one per pattern of the specification and of
	# plumbing/src/sensitive.rs, and the ways of reaching one.
	probe SENSITIVE_PATH_REFUSED write,delete,edit,move-from .env ".env" &&
	probe SENSITIVE_PATH_REFUSED write,create,move-to,copy-to,patch .env.local ".env.*" &&
	probe SENSITIVE_PATH_REFUSED write .ENV ".env in capitals" &&
	probe SENSITIVE_PATH_REFUSED write sub/.env.production ".env.* in a subdirectory" &&
	probe SENSITIVE_PATH_REFUSED write server.pem "*.pem" &&
	probe SENSITIVE_PATH_REFUSED write tls.key "*.key" &&
	probe SENSITIVE_PATH_REFUSED write id_rsa "id_rsa" &&
	probe SENSITIVE_PATH_REFUSED write id_dsa "id_dsa" &&
	probe SENSITIVE_PATH_REFUSED write id_ecdsa "id_ecdsa" &&
	probe SENSITIVE_PATH_REFUSED write id_ed25519 "id_ed25519" &&
	probe SENSITIVE_PATH_REFUSED write id_ecdsa_sk "id_ecdsa_sk" &&
	probe SENSITIVE_PATH_REFUSED write id_ed25519_sk "id_ed25519_sk" &&
	probe SENSITIVE_PATH_REFUSED write bundle.p12 "*.p12" &&
	probe SENSITIVE_PATH_REFUSED write bundle.PFX "*.pfx, in capitals" &&
	probe SENSITIVE_PATH_REFUSED write authorized_keys "authorized_keys" &&
	probe SENSITIVE_PATH_REFUSED write .netrc ".netrc" &&
	probe SENSITIVE_PATH_REFUSED write,create .ssh/known_hosts "anything under .ssh/" &&
	probe SENSITIVE_PATH_REFUSED write .gnupg/pubring.kbx "anything under .gnupg/" &&
	probe SENSITIVE_PATH_REFUSED write,copy-to .aws/credentials "anything under .aws/" &&
	probe SENSITIVE_PATH_REFUSED mkdir .gnupg "creating a credential directory" &&
	probe SENSITIVE_PATH_REFUSED write keys/new-key "a link to .ssh/ as the parent" &&

	# dir create checks every prefix of its path as a write target of its own: a refusal names
	# the prefix instead of the caller's path, and any symlinked directory on the way (even one
	# leading inside) is SYMLINK_WRITE_REFUSED instead of what lies beyond it.
	probe SYMLINK_ESCAPE_REFUSED mkdir out-dir/new "dir create below a link to an outside directory" &&
	probe SYMLINK_ESCAPE_REFUSED mkdir sub/p/new "dir create under a symlinked parent leading out" &&
	probe SYMLINK_ESCAPE_REFUSED mkdir hop/new "dir create through the two-link chain out" &&
	probe INVALID_ARGUMENT mkdir la/x "dir create under a two-link loop" &&
	probe PATH_IS_STATE_PATH mkdir .filekeeper/planted "dir create in the state directory" &&
	probe PATH_IS_STATE_PATH mkdir sub/up/.filekeeper/planted "dir create through a link to the root into .filekeeper" &&
	probe SENSITIVE_PATH_REFUSED mkdir .ssh/known_hosts "dir create under .ssh/" &&

	# Special files: refused for reads and writes without being opened (no hang).
	probe SPECIAL_FILE_REFUSED read,write,delete,move-from,copy-from,info,edit fifo "a FIFO" &&
	probe SPECIAL_FILE_REFUSED read,write,delete,move-from sock "a Unix socket" &&
	probe SPECIAL_FILE_REFUSED read fifo-link "a link to a FIFO inside" &&
	probe NOT_A_DIRECTORY read,write fifo/x "a FIFO as a parent directory" &&

	# Bytes and lengths.
	probe_jq INVALID_ARGUMENT patch "$NUL_PATH" "a NUL byte in a patch header path" &&
	probe_mcp_jq INVALID_ARGUMENT read,write,delete '"sub/f\u0000/../../outside/victim"' "a NUL byte in a path argument (argv cannot carry one)" &&
	probe_jq INVALID_ARGUMENT read,write "$NAME256" "a 256-byte name, above NAME_MAX" &&
	probe_jq INVALID_ARGUMENT read,write "$PATH4097" "a 4,097-byte path" &&
	probe_jq INVALID_ARGUMENT read,write "$PATH60K" "a 60,000-byte path (never echoed back)" &&
	probe INVALID_ARGUMENT write nl/new.txt "a new file through a link to a directory with a non-UTF-8 name" &&
	probe INVALID_ARGUMENT delete,move-from nl/f "a file through a link to a directory with a non-UTF-8 name" &&

	# Look-alikes are names, never separators or parents.
	probe PATH_NOT_FOUND read,write "．．/outside/victim" "fullwidth full stops (U+FF0E) for .." &&
	probe PATH_NOT_FOUND read,write "‥/outside/victim" "a two-dot leader (U+2025) for .." &&
	probe PATH_NOT_FOUND read,delete "..∕outside∕victim" "division slashes (U+2215) for /" &&
	probe PATH_NOT_FOUND read "．．／outside／victim" "fullwidth solidus (U+FF0F) for /" &&
	probe PATH_NOT_FOUND write "%2e%2e/outside/victim" "a URL-encoded .." &&
	probe PATH_NOT_FOUND read,write ".../outside/victim" "three dots, a name" &&
	probe PATH_NOT_FOUND read '..\outside\victim' "backslashes, not separators here" &&
	probe PATH_NOT_FOUND write ".fіlekeeper/planted" "a Cyrillic і in .filekeeper"
}

test_expect_success 'setup: an outside tree, a prefix sibling, and a workspace full of traps' '
	mkdir "$OUTSIDE/dir" "$EVIL" &&
	echo outside >"$OUTSIDE/victim" &&
	echo outside >"$OUTSIDE/dir/inner" &&
	echo evil >"$EVIL/f" &&
	mkfifo "$OUTSIDE/fifo-out" &&
	ln -s "$WS" "$TRASH/ws-alias" &&
	mkdir -p sub deep/a/b s1 .ssh &&
	echo inside >sub/f &&
	echo "SECRET=1" >.env &&
	echo "Host *" >.ssh/config &&
	ln -s ../outside/victim out-file &&
	ln -s "$OUTSIDE/victim" abs-out-file &&
	ln -s /dev/null null-link &&
	ln -s ../outside out-dir &&
	ln -s "$OUTSIDE" abs-out &&
	ln -s "$EVIL" evil-link &&
	ln -s ../ws-evil evil-rel &&
	test "$(cd evil-rel && pwd -P)" = "$(cd "$EVIL" && pwd -P)" &&
	ln -s ../../outside/dir sub/p &&
	ln -s ../../../../outside deep/a/b/up &&
	ln -s s1/l2 hop &&
	ln -s ../../outside s1/l2 &&
	ln -s c2 c1 &&
	ln -s s1/c3 c2 &&
	ln -s ../../outside/victim s1/c3 &&
	ln -s nowhere dangle &&
	ln -s ../outside/nothere dangle-out &&
	ln -s "$OUTSIDE/new-abs" dangle-abs &&
	ln -s ../outside/newdir/x dangle-deep &&
	ln -s ../outside/fifo-out out-fifo &&
	ln -s loop loop &&
	ln -s lb la &&
	ln -s la lb &&
	ln -s .filekeeper st &&
	ln -s "$WS/.filekeeper" st-abs &&
	ln -s .. sub/up &&
	ln -s .ssh keys &&
	mkfifo fifo &&
	ln -s fifo fifo-link &&
	"$PY" -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" sock &&
	test -S sock &&
	mkdir "$NONUTF8" &&
	echo raw >"$NONUTF8/f" &&
	ln -s "$NONUTF8" nl &&
	ln -s ../outside "$TWIN" &&
	keeper --json file write src.txt --content "source
" >"$R/out.json" &&
	json_get .operation_id "$R/out.json" &&
	test -d .filekeeper
'

# A device node needs privileges (CI runs as root); without them the probe is left out.
if mknod dev c 1 3 2>/dev/null
then
	HAVE_DEVICE=yes
fi

test_expect_success 'setup: the probe table' '
	define_probes &&
	if test -n "$HAVE_DEVICE"
	then
		probe SPECIAL_FILE_REFUSED read,write,delete dev "a character device"
	fi &&
	n=$(wc -l <"$ROWS") &&
	test "$n" -ge 40 &&
	jq -s -e "[.[] | select(.surfaces == \"both\")] | length >= 40" "$ROWS" &&
	jq -s -e "all(.[]; (.ops | length) > 0 and (.ops - [\"read\", \"info\", \"list\", \"write\",
		\"create\", \"delete\", \"move-from\", \"move-to\", \"copy-from\", \"copy-to\", \"mkdir\",
		\"rmdir\", \"edit\", \"patch\"] | length) == 0)" "$ROWS"
'

# JQ_RUN: how one operation of a probe on path $p is spelled for keeper (cli_for) and for the
# MCP server (mcp_for), the diff a patch probe applies, and which operations would create $p.
JQ_RUN='
def patch_for($p): "--- a/\($p)\n+++ b/\($p)\n@@ -1 +1 @@\n-outside\n+pwned\n";
def cli_for($op; $p): {
	read: ["file", "read", $p], info: ["file", "info", $p], list: ["file", "list", $p],
	"read-bytes": ["file", "read-bytes", $p],
	"diff-old": ["file", "diff", $p, "src.txt"], "diff-new": ["file", "diff", "src.txt", $p],
	write: ["file", "write", $p, "--content", "pwned\n"],
	create: ["file", "create", $p, "--content", "pwned\n"],
	delete: ["file", "delete", $p],
	"move-from": ["file", "move", $p, "moved.txt"], "move-to": ["file", "move", "src.txt", $p],
	"copy-from": ["file", "copy", $p, "copied.txt"], "copy-to": ["file", "copy", "src.txt", $p],
	mkdir: ["dir", "create", $p, "--parents"],
	rmdir: ["dir", "delete", $p, "--recursive", "--confirm-recursive"],
	edit: ["file", "replace-text", $p, "--old", "outside", "--new", "pwned", "--all"],
	patch: ["file", "apply-patch"]
}[$op];
def mcp_for($op; $p): {
	read: {tool: "file_read", arguments: {path: $p}},
	info: {tool: "file_info", arguments: {path: $p}},
	"read-bytes": {tool: "file_read_bytes", arguments: {path: $p}},
	"diff-old": {tool: "file_diff", arguments: {path: $p, other: "src.txt"}},
	"diff-new": {tool: "file_diff", arguments: {path: "src.txt", other: $p}},
	list: {tool: "directory_list", arguments: {path: $p}},
	write: {tool: "file_write", arguments: {path: $p, content: "pwned\n"}},
	create: {tool: "file_create", arguments: {path: $p, content: "pwned\n"}},
	delete: {tool: "file_delete", arguments: {path: $p}},
	"move-from": {tool: "file_move", arguments: {source: $p, destination: "moved.txt"}},
	"move-to": {tool: "file_move", arguments: {source: "src.txt", destination: $p}},
	"copy-from": {tool: "file_copy", arguments: {source: $p, destination: "copied.txt"}},
	"copy-to": {tool: "file_copy", arguments: {source: "src.txt", destination: $p}},
	mkdir: {tool: "directory_create", arguments: {path: $p, parents: true}},
	rmdir: {tool: "directory_delete", arguments: {path: $p, recursive: true}},
	edit: {tool: "file_replace_text", arguments: {path: $p, old: "outside", new: "pwned", policy: "all"}},
	patch: {tool: "file_apply_patch", arguments: {patch: patch_for($p)}}
}[$op];
def creates: . as $op | ["write", "create", "move-to", "copy-to", "mkdir", "patch"] | index($op) != null;
# A read probe that must be refused for where its path leads is run through the other reads
# that take a path too: read-bytes, and diff with the path as either side.
def all_ops: .ops + (if (.ops | index("read")) and (.code | IN("PATH_OUTSIDE_WORKSPACE",
		"ABSOLUTE_PATH_OUTSIDE_WORKSPACE", "SYMLINK_ESCAPE_REFUSED"))
	then ["read-bytes", "diff-old", "diff-new"] else [] end);
'

test_expect_success 'setup: every probe expanded into one run per operation and surface' '
	jq -c -s --arg ws "$WS" "$JQ_RUN"'"'"'
		to_entries[] | (.key + 1) as $probe | .value as $row | ($row | all_ops)[] as $op | $row | {
			probe: $probe, op: $op, path, code, desc, surfaces,
			cli: (if $row.surfaces == "both" then cli_for($op; $row.path) else null end),
			mcp: mcp_for($op; $row.path),
			patch: (if $op == "patch" then patch_for($row.path) else null end),
			target: (if ($op | creates) and ($row.path | test("\u0000") | not)
				and ($row.path | utf8bytelength) <= 4096
				then (if ($row.path | startswith("/")) then $row.path else "\($ws)/\($row.path)" end)
				else null end)
		}'"'"' "$ROWS" >"$RUNS" &&
	test "$(jq -s "[.[] | select(.cli)] | length" "$RUNS")" -ge 80 &&
	# The write targets that do not exist now; none may exist after any probe.
	jq -r "select(.target) | .target" "$RUNS" | sort -u |
	while IFS= read -r t
	do
		test -e "$t" || test -h "$t" || printf "%s\n" "$t"
	done >"$TARGETS" &&
	grep -F -x -e "$OUTSIDE/new" -e "$WS/.filekeeper/planted" -e "$WS/.env.local" "$TARGETS" >"$R/found" &&
	test_line_count = 3 "$R/found"
'

# The snapshot: everything a refused probe must leave as it was, with non-printing bytes made
# visible (cat -v) so a non-UTF-8 name is plain text: the journal's operation count, the
# outside tree and the prefix sibling in full, the workspace apart from .filekeeper/, the
# names beside the root, and any write target that has come to exist.
cat >"$SNAP" <<EOF
#!/bin/sh
LC_ALL=C
export LC_ALL
cd "$WS" || exit 1
{
	echo "operations: \$(sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*) FROM operations")"
	find "$OUTSIDE" "$EVIL" -printf "%p %y %m %s %T@ %l\n" | sort
	find "$OUTSIDE" "$EVIL" -type f -exec sha256sum {} + | sort
	find . -path ./.filekeeper -prune -o -printf "%p %y %m %s %T@ %l\n" | sort
	find . -path ./.filekeeper -prune -o -type f -exec sha256sum {} + | sort
	find "$TRASH" -mindepth 1 -maxdepth 1 -printf "%f\n" | sort
	while IFS= read -r target
	do
		if test -e "\$target" || test -h "\$target"
		then
			echo "created: \$target"
		fi
	done <"$TARGETS"
} | cat -v
EOF

test_expect_success 'setup: the snapshot sees the outside files, the traps and the journal' '
	sh "$SNAP" >"$R/baseline" &&
	grep -F "$OUTSIDE/victim f" "$R/baseline" &&
	grep -F "$EVIL/f f" "$R/baseline" &&
	grep -F "./out-dir l" "$R/baseline" &&
	grep -F "./nuM-^?" "$R/baseline" &&
	grep "^operations: 1$" "$R/baseline" &&
	! grep "^created: " "$R/baseline"
'

# run_cli N ARG...: runs `keeper --json ARG...` as run N (cli-N.patch, if any, on stdin),
# snapshots the tree, and appends the outcome to cli-results.jsonl: exit code, the document
# (null when stdout is not one JSON document), whether the snapshot changed since the previous
# run (the diff is kept in cli-N.diff) and whether stderr names a host path (cli-N.err).
run_cli () {
	n=$1
	shift
	stdin=/dev/null
	if test -f "$R/cli-$n.patch"
	then
		stdin=$R/cli-$n.patch
	fi
	timeout 60 keeper --json "$@" <"$stdin" >"$R/cli-$n.doc" 2>"$R/cli-$n.err"
	code=$?
	sh "$SNAP" >"$R/after" </dev/null || return 1
	changed=false
	if ! cmp -s "$R/prev" "$R/after"
	then
		changed=true
		diff -u "$R/prev" "$R/after" >"$R/cli-$n.diff"
	fi
	host=false
	if grep -q -F "$TRASH" "$R/cli-$n.err"
	then
		host=true
	fi
	jq -c -n --rawfile doc "$R/cli-$n.doc" --argjson n "$n" --argjson exit "$code" \
		--argjson changed "$changed" --argjson stderr_host "$host" \
		'{n: $n, exit: $exit, changed: $changed, stderr_host: $stderr_host,
		  doc: ($doc | fromjson? // null)}' >>"$R/cli-results.jsonl" &&
	mv "$R/after" "$R/prev"
}

test_expect_success 'every run goes through keeper --json, with a snapshot after each' '
	# One line per run: run_cli N ARG..., every word quoted for the shell by jq. A patch goes
	# to a file of its own: no shell variable can hold the NUL byte of one probe.
	jq -r -s "to_entries[] | (.key + 1) as \$n | .value | select(.cli) |
		\"run_cli \(\$n) \(.cli | map(@sh) | join(\" \"))\"" "$RUNS" >"$R/cli-script" &&
	for n in $(jq -s -r "to_entries[] | select(.value.cli and .value.patch) | .key + 1" "$RUNS")
	do
		jq -j -s ".[$n - 1].patch" "$RUNS" >"$R/cli-$n.patch" || exit 1
	done &&
	: >"$R/cli-results.jsonl" &&
	cp "$R/baseline" "$R/prev" &&
	. "$R/cli-script" &&
	test "$(wc -l <"$R/cli-results.jsonl")" -eq "$(jq -s "map(select(.cli)) | length" "$RUNS")" &&
	jq -s -e "all(.[]; .exit < 124)" "$R/cli-results.jsonl"
'

test_expect_success 'every run goes through one filekeeper-mcp session, with a snapshot after each' '
	jq -c "{tool: .mcp.tool, arguments: .mcp.arguments}" "$RUNS" >"$R/mcp-requests" &&
	sh "$SNAP" >"$R/mcp-baseline" &&
	timeout 600 "$PY" "$MCP/probe.py" "$WS" sh "$SNAP" <"$R/mcp-requests" >"$R/mcp.jsonl" &&
	test "$(wc -l <"$R/mcp.jsonl")" -eq "$(wc -l <"$RUNS")" &&
	# The snapshot before each call is the one after the call before it.
	jq -c -s --rawfile baseline "$R/mcp-baseline" "
		([\$baseline] + map(.after)) as \$snaps | to_entries[] | .key as \$k | .value |
		{n: (\$k + 1), is_error, protocol_error, doc: .structured,
		 changed: (\$snaps[\$k] != \$snaps[\$k + 1]), before: \$snaps[\$k], after: \$snaps[\$k + 1]}" \
		"$R/mcp.jsonl" >"$R/mcp-results.jsonl"
'

# The documented exit code of each error code, from the table in docs/errors.md.
sed -n "s/^| \`\([A-Z_]*\)\` | \([0-9]*\) |.*/\1 \2/p" "$TEST_DIRECTORY/../docs/errors.md" |
jq -R -n "[inputs | split(\" \") | {key: .[0], value: (.[1] | tonumber)}] | from_entries" >"$R/exits.json"

# JQ_VERDICT: each run through one surface ($surface, results in $results) judged against its
# probe: the code (and for keeper its documented exit code), the failure envelope, details.path
# naming the caller's own path (a path too long to echo has none), a small document, no host
# path beyond that, and nothing changed. One object per run with the list of what went wrong.
JQ_VERDICT='
	$results[] as $x | $runs[$x.n - 1] as $r | $x.doc as $d |
	[
		(if $surface == "cli" then
			(if $x.exit != $exits[0][$r.code] then
				"exit \($x.exit), documented \($exits[0][$r.code])" else empty end),
			(if $x.stderr_host then "a host path on stderr" else empty end)
		 else
			(if $x.is_error != true or $x.protocol_error != null then
				"not a tool error: \($x.protocol_error // {})" else empty end)
		 end),
		(if ($d | type) != "object" or ($d | keys_unsorted) != ["ok", "error"] or $d.ok != false
			or ($d.error | keys_unsorted) != ["code", "message", "retryable", "details"]
			or ($d.error.retryable | type) != "boolean" or ($d.error.details | type) != "object"
		 then "not a failure envelope: \($d | tojson | .[:300])"
		 elif $d.error.code != $r.code then "\($d.error.code) (wanted \($r.code)): \($d | tojson | .[:300])"
		 else empty end),
		(if ($r.path | utf8bytelength) > 4096 then
			(if $d.error.details.path? != null then "details.path echoes a huge path" else empty end)
		 elif $d.error.details.path? != $r.path then
			"details.path is \($d.error.details.path? | tojson | .[:200]), not the given path"
		 else empty end),
		(($d | tojson | utf8bytelength) as $size |
			if $size >= 2048 then "a \($size)-byte document echoes the argument" else empty end),
		(if ($d | del(.error.details.path?) | tojson | contains($trash)) then
			"a host path in the output" else empty end),
		(if $x.changed then "the refused call changed the tree, the journal or a target" else empty end)
	] as $failures |
	{probe: $r.probe, surface: $surface, n: $x.n, op: $r.op, failures: $failures,
	 got: (if ($d | type) != "object" then "(no document)" elif $d.ok == true then "ok"
		else $d.error.code end)}
'

test_expect_success 'setup: every run judged against its probe' '
	for s in cli mcp
	do
		jq -c -n --arg surface "$s" --arg trash "$TRASH" --slurpfile runs "$RUNS" \
			--slurpfile results "$R/$s-results.jsonl" --slurpfile exits "$R/exits.json" \
			"$JQ_VERDICT" || exit 1
	done >"$R/verdicts.jsonl" &&
	test "$(wc -l <"$R/verdicts.jsonl")" -eq $(($(wc -l <"$R/cli-results.jsonl") + $(wc -l <"$RUNS")))
'

test_expect_success 'no run through either surface shows a host path, beyond the caller'"'"'s own path' '
	for n in $(jq -r "select(.surface == \"cli\") | .n" "$R/verdicts.jsonl")
	do
		jq -c "del(.error.details.path?)" "$R/cli-$n.doc" 2>/dev/null || cat "$R/cli-$n.doc"
		cat "$R/cli-$n.err"
	done >"$R/cli-outputs" &&
	jq -c ".doc | del(.error.details.path?)" "$R/mcp-results.jsonl" >"$R/mcp-outputs" &&
	test "$(wc -l <"$R/mcp-outputs")" -eq "$(wc -l <"$RUNS")" &&
	test_no_host_path "$R/cli-outputs" &&
	test_no_host_path "$R/mcp-outputs"
'

# check_probe P: every run of probe P (line P of the table), through each surface, was refused
# as the table says; what went wrong is shown run by run, with the snapshot diff if any.
check_probe () {
	grep -q "^{\"probe\":$1," "$R/verdicts.jsonl" &&
	jq -r "select(.probe == $1 and .failures != []) |
		\"\(.surface) \(.n) \(.op): \(.failures | join(\"; \"))\"" \
		"$R/verdicts.jsonl" >"$R/failures-$1" &&
	while read -r s n what
	do
		echo "$s $what"
		# The snapshot diff, when the call changed something.
		if test "$s" = cli
		then
			cat "$R/cli-$n.diff" 2>/dev/null || :
		else
			sed -n "${n}p" "$R/mcp-results.jsonl" | jq -r ".before" >"$R/before" &&
			sed -n "${n}p" "$R/mcp-results.jsonl" | jq -r ".after" >"$R/after" &&
			diff -u "$R/before" "$R/after" || :
		fi
	done <"$R/failures-$1" &&
	test ! -s "$R/failures-$1"
}

jq -r -s 'to_entries[] | .value as $row |
	"probe \(.key + 1): \($row.desc) (\($row.ops | join(" ")); \(if $row.surfaces == "both" then "keeper+mcp" else $row.surfaces end)) -> \($row.code)"' \
	"$ROWS" >"$R/titles"
p=0
while read -r title
do
	p=$((p + 1))
	test_expect_success "$title" "check_probe $p"
done <"$R/titles"

# The table, for the log: each run's expected code and what each surface answered.
jq -r -n --slurpfile v "$R/verdicts.jsonl" --slurpfile runs "$RUNS" '
	"# probe op         expected                         keeper                           filekeeper-mcp",
	($runs | to_entries[] | (.key + 1) as $n | .value as $r |
		([$v[] | select(.surface == "cli" and .n == $n) | .got] | first // "-") as $cli |
		([$v[] | select(.surface == "mcp" and .n == $n) | .got] | first // "-") as $mcp |
		"# \($r.probe | tostring | .[0:5] + (" " * (5 - length))) \($r.op + (" " * (10 - ($r.op | length)))) \($r.code + (" " * (32 - ($r.code | length)))) \($cli + (" " * (32 - ($cli | length)))) \($mcp)")
' 2>/dev/null | tee "$R/table"

test_expect_success 'at least 40 distinct probes ran through both surfaces' '
	jq -s -e "[.[] | select(.surfaces == \"both\") | .probe] | unique | length >= 40" "$RUNS" &&
	test "$(wc -l <"$R/cli-results.jsonl")" -ge 80
'
echo "# $(wc -l <"$ROWS") probes, $(wc -l <"$R/cli-results.jsonl") keeper runs, $(wc -l <"$RUNS") MCP calls"

test_expect_success 'after the whole table, the outside tree is exactly as it was set up' '
	sh "$SNAP" >"$R/final" &&
	grep -F -e "$OUTSIDE" -e "$EVIL" "$R/baseline" >"$R/expect" &&
	grep -F -e "$OUTSIDE" -e "$EVIL" "$R/final" >"$R/actual" &&
	test_cmp "$R/expect" "$R/actual" &&
	echo outside >"$R/expect" &&
	test_cmp "$R/expect" "$OUTSIDE/victim" &&
	test -p "$OUTSIDE/fifo-out"
'

# Walking the whole workspace: the escaping links are listed as links, never descended.

test_expect_success 'a recursive list, a path search and a content search never descend through an escaping link' '
	echo OUTSIDE-MARKER >"$OUTSIDE/dir/marked" &&
	keeper --json file list . --recursive >"$R/list.json" &&
	json_get .ok "$R/list.json" &&
	! grep -F -e marked -e inner "$R/list.json" &&
	test "$(jq -r ".entries[] | select(.path == \"out-dir\") | .target_kind" "$R/list.json")" = outside &&
	keeper --json file search . "*marked*" >"$R/search.json" &&
	test "$(jq ".entries | length" "$R/search.json")" = 0 &&
	keeper --json file grep . OUTSIDE-MARKER >"$R/grep.json" &&
	test "$(jq ".matches | length" "$R/grep.json")" = 0 &&
	printf "%s\n" "{\"tool\": \"directory_list\", \"arguments\": {\"path\": \".\", \"recursive\": true}}" \
		"{\"tool\": \"file_search\", \"arguments\": {\"path\": \".\", \"pattern\": \"*marked*\"}}" \
		"{\"tool\": \"content_search\", \"arguments\": {\"path\": \".\", \"query\": \"OUTSIDE-MARKER\"}}" |
	timeout 120 "$PY" "$MCP/call.py" "$WS" >"$R/walk.jsonl" &&
	test "$(jq -s "map(.structured.ok) | all" "$R/walk.jsonl")" = true &&
	jq -c .structured "$R/walk.jsonl" >"$R/walk.docs" &&
	! grep -F -e marked -e inner "$R/walk.docs" &&
	test "$(jq -s ".[1].structured.entries | length" "$R/walk.jsonl")" = 0 &&
	test "$(jq -s ".[2].structured.matches | length" "$R/walk.jsonl")" = 0 &&
	rm -f "$OUTSIDE/dir/marked"
'

# Hard links. The specification refuses ".." and links that lead out, but a hard link has no
# target to judge: it is a regular file whose name is inside. What it does promise is that a
# whole-file write goes to a temporary file renamed over the name, so a write, an edit or a
# delete replaces or removes the inside name and never touches the shared inode's bytes.

# hardlinked NAME: a fresh hard link NAME inside to the outside file hl-victim.
hardlinked () {
	rm -f "$1" &&
	ln "$OUTSIDE/hl-victim" "$1" &&
	test "$(stat -c %h "$OUTSIDE/hl-victim")" -ge 2
}

test_expect_success 'setup: an outside file with hard links to it inside' '
	echo "outside, hard-linked" >"$OUTSIDE/hl-victim" &&
	cp -p "$OUTSIDE/hl-victim" "$R/hl-victim.orig" &&
	stat -c "%i %Y %s %a" "$OUTSIDE/hl-victim" >"$R/hl-victim.stat"
'

# hl_victim_intact: the outside file holds its bytes, inode, mtime and mode.
hl_victim_intact () {
	cmp "$R/hl-victim.orig" "$OUTSIDE/hl-victim" &&
	stat -c "%i %Y %s %a" "$OUTSIDE/hl-victim" >"$R/hl-victim.now" &&
	test_cmp "$R/hl-victim.stat" "$R/hl-victim.now"
}

test_expect_success 'keeper: reading a hard link returns the shared bytes, as for any inside file' '
	hardlinked hl-read &&
	keeper --json file read hl-read >"$R/out.json" &&
	test "$(json_get .content "$R/out.json")" = "outside, hard-linked" &&
	hl_victim_intact
'

test_expect_success 'keeper: write, edit, delete and move of hard links leave the outside file alone' '
	hardlinked hl-write &&
	hardlinked hl-edit &&
	hardlinked hl-delete &&
	hardlinked hl-move &&
	keeper --json file write hl-write --content "pwned
" >"$R/out.json" && json_get .operation_id "$R/out.json" &&
	keeper --json file replace-text hl-edit --old outside --new pwned --all >"$R/out.json" &&
	json_get .operation_id "$R/out.json" &&
	keeper --json file delete hl-delete >"$R/out.json" && json_get .operation_id "$R/out.json" &&
	keeper --json file move hl-move hl-moved >"$R/out.json" && json_get .operation_id "$R/out.json" &&
	echo pwned >"$R/expect" &&
	test_cmp "$R/expect" hl-write &&
	grep "^pwned, hard-linked$" hl-edit &&
	test ! -e hl-delete &&
	hl_victim_intact &&
	test "$(stat -c %h hl-write)" = 1 &&
	test "$(stat -c %h hl-edit)" = 1
'

test_expect_success 'keeper: undoing those operations leaves the outside file alone too' '
	for i in 1 2 3 4
	do
		keeper --json history undo-last >"$R/out.json" &&
		json_get .operation_id "$R/out.json" || exit 1
	done &&
	test -f hl-delete &&
	test -f hl-move &&
	hl_victim_intact
'

test_expect_success 'filekeeper-mcp: read, write, edit, delete and move of hard links leave the outside file alone' '
	for n in read write edit delete move
	do
		hardlinked "hl-mcp-$n" || exit 1
	done &&
	cat >"$R/hl.req" <<-\EOF &&
	{"tool": "file_read", "arguments": {"path": "hl-mcp-read"}}
	{"tool": "file_write", "arguments": {"path": "hl-mcp-write", "content": "pwned\n"}}
	{"tool": "file_replace_text", "arguments": {"path": "hl-mcp-edit", "old": "outside", "new": "pwned", "policy": "all"}}
	{"tool": "file_delete", "arguments": {"path": "hl-mcp-delete"}}
	{"tool": "file_move", "arguments": {"source": "hl-mcp-move", "destination": "hl-mcp-moved"}}
	EOF
	timeout 120 "$PY" "$MCP/call.py" "$WS" <"$R/hl.req" >"$R/hl.jsonl" &&
	test "$(jq -s "map(.structured.ok) | all" "$R/hl.jsonl")" = true &&
	test "$(jq -s -r ".[0].structured.content" "$R/hl.jsonl")" = "outside, hard-linked" &&
	echo pwned >"$R/expect" &&
	test_cmp "$R/expect" hl-mcp-write &&
	grep "^pwned, hard-linked$" hl-mcp-edit &&
	test ! -e hl-mcp-delete &&
	hl_victim_intact &&
	rm -f "$R/hl.req" "$R/hl.jsonl" "$R/out.json" "$R/expect"
'

# Non-UTF-8 arguments. Paths are text on every surface; bytes that are not UTF-8 cannot name
# anything and are refused before the file system is consulted.

test_expect_success 'keeper: a non-UTF-8 path argument is INVALID_ARGUMENT, exit 2, without a host path' '
	for op in read write delete
	do
		case $op in
		write) set -- file write "$NONUTF8" --content x ;;
		*) set -- file "$op" "$NONUTF8" ;;
		esac &&
		test_expect_code 2 keeper --json "$@" >"$R/out.json" &&
		test_error_code INVALID_ARGUMENT "$R/out.json" &&
		test_no_host_path "$R/out.json" || exit 1
	done &&
	test "$(cat "$NONUTF8/f")" = raw &&
	rm -f "$R/out.json"
'

# A directory whose name is not UTF-8 has no exact spelling as text. A link to it is followed
# correctly while resolving, but the path a mutation records and applies is the lossy spelling
# (U+FFFD for the byte). When a directory of that spelling exists as well, the change lands in
# it, and a refused rewrite "restores" a file there that never existed. Expected: refused with
# INVALID_ARGUMENT, or done where the link leads; never anything in the twin.

# twin_untouched DIR: the twin of directory DIR (nv or mv, then byte 0xff) is still empty.
twin_untouched () {
	twin=$(printf "%s\357\277\275" "$1") &&
	ls -A "$twin" >"$R/twin" &&
	test_line_count = 0 "$R/twin"
}

test_expect_success 'setup: two non-UTF-8 directories, each with an empty U+FFFD twin and a link to it' '
	for d in nv mv
	do
		mkdir "$(printf "%s\377" $d)" "$(printf "%s\357\277\275" $d)" &&
		echo raw >"$(printf "%s\377" $d)/f" &&
		ln -s "$(printf "%s\377" $d)" ${d}l || exit 1
	done
'

test_expect_success 'keeper: writes through a link to a non-UTF-8 directory never land in its twin' '
	keeper --json file write nvl/new.txt --content x >"$R/new.json"
	keeper --json file write nvl/f --content changed >"$R/rewrite.json"
	twin_untouched nv &&
	test_error_code INVALID_ARGUMENT "$R/new.json" &&
	test_error_code INVALID_ARGUMENT "$R/rewrite.json" &&
	grep -x raw "$(printf "nv\377")/f"
'

test_expect_success 'filekeeper-mcp: writes through a link to a non-UTF-8 directory never land in its twin' '
	printf "%s\n" "{\"tool\": \"file_write\", \"arguments\": {\"path\": \"mvl/new.txt\", \"content\": \"x\"}}" \
		"{\"tool\": \"file_write\", \"arguments\": {\"path\": \"mvl/f\", \"content\": \"changed\"}}" >"$R/twin.req" &&
	timeout 120 "$PY" "$MCP/call.py" "$WS" <"$R/twin.req" >"$R/twin.jsonl" &&
	twin_untouched mv &&
	jq -c -s ".[0].structured" "$R/twin.jsonl" >"$R/new.json" &&
	jq -c -s ".[1].structured" "$R/twin.jsonl" >"$R/rewrite.json" &&
	test_error_code INVALID_ARGUMENT "$R/new.json" &&
	test_error_code INVALID_ARGUMENT "$R/rewrite.json" &&
	grep -x raw "$(printf "mv\377")/f"
'

# A JSON text cannot hold such bytes, so an MCP client that sends them sends a line that is not
# JSON. The server answers that with a parse error (-32700) and goes on serving, as it does for
# every other malformed line.
test_expect_success 'filekeeper-mcp: a request line with non-UTF-8 bytes gets a parse error and the session goes on' '
	{
		printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t0800\",\"version\":\"1\"}}}" \
			"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" &&
		printf "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"file_read\",\"arguments\":{\"path\":\"nu\377/f\"}}}\n" &&
		printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"file_read\",\"arguments\":{\"path\":\"sub/f\"}}}"
	} >"$R/raw.in" &&
	timeout 60 filekeeper-mcp --root "$WS" <"$R/raw.in" >"$R/raw.out" &&
	jq -s -e "any(.[]; .id == null and .error.code == -32700)" "$R/raw.out" &&
	jq -s -e "any(.[]; .id == 3 and .result.structuredContent.ok == true)" "$R/raw.out"
'

test_done
