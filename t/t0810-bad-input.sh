#!/bin/sh
test_description='bad input everywhere: every keeper command, every flag and argument, fed
values it cannot use

Nothing here lists commands or flags by hand. The script walks `keeper -h` and every group'"'"'s
-h down to the leaf commands, and reads from each leaf'"'"'s -h its positional arguments and its
flags with their value names; the global flags come from `keeper -h`. The leaves found must
be exactly the subcommands `keeper completions bash` knows. For every leaf it builds a base
invocation that succeeds -- each positional filled by its name, and each argument the parser
still calls missing added, by asking the parser until it asks for nothing -- so that in every
bad invocation the one bad value is the only thing wrong.

Then every positional and every value-taking flag gets the empty string, 100 KiB, bytes that
are not UTF-8, -1, 2^64, 0 and text with a space and a newline; a flag or argument that
names a file to read also gets a missing file, a directory, a 21 MiB file, a file that is not
UTF-8, one with NUL bytes, /dev/null and /dev/zero; a flag that takes JSON also gets an array,
null, wrong field types, an unknown field, a duplicate key and 20000 levels of nesting; a
variadic positional gets 5000 values;
every boolean flag gets =yes, an empty =, a non-UTF-8 = and a repeat. Each global flag gets
the same values on three leaves in turn, so that every leaf sees some. Every leaf also reads
bytes that are not UTF-8, 2 MiB and garbage on standard input. (A NUL byte cannot be in argv.)

Every invocation runs with --json. For each one: it ends by itself within a time limit and not
by a signal; its exit code is documented in docs/errors.md; stdout is exactly one JSON object
whose first key is "ok"; a failure is exactly ok and error{code, message, retryable, details}
with a documented code and exit status, and never INTERNAL_ERROR (what a caught panic
becomes); stderr is empty; nothing mentions a panic or a backtrace; no failure, and no success
outside `init` and `workspace` (which report roots and the home by design), mentions the host
path of the test directory; and a failure changed nothing on disk: the workspace, its journal
and objects, the home, the registry and the directories around them. A success may change the
workspace, and the fixture is put back after it.

Invocations that break the contract today are listed in KNOWN_BUGS. The sweep skips them and
each is checked at the end as a known breakage (TAP TODO) asserting what the specification
asks for. Group commands given no subcommand under --json are checked the same way.'
. ./test-lib.sh

# Every argument of every command, fed bad values, takes minutes: the long loop only
# (make test; t/README).
test_require_prereq EXPENSIVE

TAB=$(printf '\t')
B=$TRASH/bad
SPEC=$B/spec
C=$B/cases
IN=$TRASH/in
TMPL=$TRASH/tmpl
mkdir -p "$SPEC" "$C" "$IN" "$TMPL"

# How long one invocation may take. The biggest input of the sweep is dealt with in well under
# a second by the debug build: reaching this is a hang, not slowness. Known hangs get less.
CASE_TIMEOUT=${KEEPER_BAD_INPUT_TIMEOUT:-10}
HANG_TIMEOUT=2

# Invocations that break the contract today, as "LEAF|ARGUMENT|VALUE" patterns (what the sweep
# records for each invocation). The sweep leaves them out; the known breakages at the end
# reproduce each one.
KNOWN_BUGS='
file replace-text|--old|huge
file replace-text|--old-file|devzero
file replace-text|--new-file|devzero
file create|--input|devzero
file write|--input|devzero
file apply-patch|PATCH|devzero
workspace create|--home|*
workspace use|--home|*
'

# --- the values ------------------------------------------------------------------------------

V_empty=
V_huge=$(head -c 102400 /dev/zero | tr "\\000" a)
V_badutf8=$(printf "\377\376")
V_negative=-1
V_overflow=18446744073709551616
V_zero=0
V_text=$(printf "x y\nz.")
V_text=${V_text%.}
V_missing=../in/no-such-file
V_dir=../in
V_bigfile=../in/big
V_latin1file=../in/latin1
V_binaryfile=../in/binary
V_devnull=/dev/null
V_devzero=/dev/zero
V_jsonarray='[]'
V_jsonnull=null
V_jsonwrongtype='{"path": 5, "after_hash": ["sha256:"], "after_mode": -1}'
V_jsonunknown='{"path": "new.txt", "no_such_field": true}'
V_jsondup='{"path": "new.txt", "path": "../escape"}'
V_jsondeep=$(head -c 20000 /dev/zero | tr "\000" "[")$(head -c 20000 /dev/zero | tr "\000" "]")

VALUE_LABELS="empty huge badutf8 negative overflow zero text"
FILE_LABELS="missing dir bigfile latin1file binaryfile devnull devzero"
JSON_LABELS="jsonarray jsonnull jsonwrongtype jsonunknown jsondup jsondeep"
FLAG_LABELS="eq-yes eq-empty eq-badutf8 repeat"
STDIN_LABELS="badutf8 huge garbage"
# Positionals and value names that name a file keeper reads, and value names of JSON texts.
FILE_NAMES="FILE PATCH"
JSON_NAMES="JSON"

# fill LEAF KIND NAME: the good value a base invocation of LEAF gives the positional (KIND pos)
# or the flag with value name NAME (KIND opt). A few leaves need a name that does not exist yet
# or a pending operation; everything else goes by the name. An unknown name is an error, so a
# new argument cannot slip through with no good value.
fill () {
	case "$1|$2|$3" in
	"file create|pos|PATH") echo new.txt ;;
	"file copy|pos|DESTINATION" | "file move|pos|DESTINATION") echo new.txt ;;
	"dir create|pos|PATH") echo newdir ;;
	"dir move|pos|SOURCE" | "dir delete|pos|PATH") echo d ;;
	"dir move|pos|DESTINATION") echo newdir ;;
	"file list|pos|PATH" | "file search|pos|PATH" | "file grep|pos|PATH") echo . ;;
	"workspace create|pos|NAME") echo other ;;
	"file find-up|pos|NAME") echo f.txt ;;
	"workspace create|pos|ROOT") echo ../other ;;
	"journal-commit|pos|OPERATION_ID" | "journal-abort|pos|OPERATION_ID") cat "$TRASH/pending.id" ;;
	*"|pos|OPERATION_ID") cat "$TRASH/committed.id" ;;
	*"|pos|NAME") echo test ;;
	*"|pos|SHELL") echo bash ;;
	*"|pos|PATCH") echo ../in/ok.patch ;;
	*"|pos|GLOB" | *"|opt|PATTERN") echo "*.txt" ;;
	*"|pos|QUERY") echo one ;;
	*"|pos|ID" | *"|opt|ID") cat "$TRASH/blob.id" ;;
	*"|pos|PATH" | *"|pos|PATHS" | *"|pos|SOURCE" | *"|pos|FILE" | *"|pos|OTHER") echo f.txt ;;
	*"|opt|N" | *"|opt|M") echo 1 ;;
	*"|opt|TEXT") echo one ;;
	*"|opt|FILE") echo ../in/ok.txt ;;
	*"|opt|HASH") cat "$TRASH/f.hash" ;;
	*"|opt|POSITION") echo end ;;
	*"|opt|KIND") echo write ;;
	*"|opt|OCTAL") echo 644 ;;
	*"|opt|DURATION") echo 30d ;;
	*"|opt|SIZE") echo 1G ;;
	*)
		echo >&2 "fill: no good value for $1 $2 $3; teach fill about it"
		return 1 ;;
	esac
}

# extra LEAF: flags a base invocation needs beyond what the parser insists on: journal-begin
# parses without an item but refuses an operation of none, and history prune needs one of
# its three cuts (a group the help cannot show as required).
extra () {
	case $1 in
	"history prune") printf '%s\n' "--keep-last=1000" ;;
	journal-begin) printf '%s\n' "--item={\"path\":\"new.txt\",\"after_hash\":\"$(cat "$TRASH/blob.id")\"}" ;;
	esac
}

# --- discovery helpers -----------------------------------------------------------------------

# leaf_spec: reads a command's -h on stdin and prints its arguments, one per line,
# tab-separated:
#   pos NAME req|opt|multi     a positional argument, in order
#   opt --FLAG VALUE-NAME      a flag that takes a value
#   flag --FLAG                a boolean flag
# leaving out --help, --version and the global flags named in $GLOBAL_FLAGS.
leaf_spec () {
	awk -v globals=" $GLOBAL_FLAGS " '
	/^Arguments:/ { sec = "a"; next }
	/^Options:/ { sec = "o"; next }
	/^[^ ]/ { sec = ""; next }
	sec == "a" && /^  [<[]/ {
		tok = $1
		kind = tok ~ /\.\.\.$/ ? "multi" : (tok ~ /^\[/ ? "opt" : "req")
		gsub(/[<>.]/, "", tok); gsub(/\[/, "", tok); gsub(/\]/, "", tok)
		print "pos\t" tok "\t" kind
	}
	# Options sit two spaces in ("-r, --recursive", "-w") or six ("--glob <PATTERN>").
	sec == "o" && (/^  -/ || /^      -/) {
		line = $0
		sub(/^ +/, "", line)
		if (match(line, /^-[A-Za-z], --[a-z0-9-]+/)) f = substr(line, 5, RLENGTH - 4)
		else if (match(line, /^--[a-z0-9-]+/)) f = substr(line, 1, RLENGTH)
		else if (match(line, /^-[A-Za-z]/)) f = substr(line, 1, RLENGTH)
		else next
		rest = substr(line, RSTART + RLENGTH)
		if (f == "--help" || f == "--version") next
		if (index(globals, " " f " ")) next
		if (match(rest, /^ <[A-Z_]+>/)) print "opt\t" f "\t" substr(rest, RSTART + 2, RLENGTH - 3)
		else print "flag\t" f
	}'
}

# missing_args MESSAGE: what a "required arguments were not provided" message asks for, one
# per line, tab-separated: "req --FLAG VALUE-NAME" (VALUE-NAME empty for a boolean), and for a
# group of alternatives such as <--old <TEXT>|--old-file <FILE>> its first alternative:
# "grp |--old|--old-file| --old TEXT".
missing_args () {
	printf "%s\n" "$1" | sed -n "s/^the following required arguments were not provided: //p" |
	awk '{
		s = $0
		while (length(s) > 0) {
			sub(/^ +/, "", s)
			if (s == "") break
			if (substr(s, 1, 3) == "<--") {
				depth = 0
				for (i = 1; i <= length(s); i++) {
					c = substr(s, i, 1)
					if (c == "<") depth++
					else if (c == ">") { depth--; if (depth == 0) break }
				}
				grp = substr(s, 2, i - 2); s = substr(s, i + 1)
				n = split(grp, alts, "|"); names = "|"
				for (k = 1; k <= n; k++) { split(alts[k], w, " "); names = names w[1] "|" }
				split(alts[1], w, " "); v = w[2]; gsub(/[<>]/, "", v)
				print "grp\t" names "\t" w[1] "\t" v
			} else if (substr(s, 1, 2) == "--") {
				split(s, w, " "); f = w[1]; s = substr(s, length(f) + 1); v = ""
				if (match(s, /^ <[A-Z_]+>/)) { v = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH) }
				print "req\t" f "\t" v
			} else {
				print "unparsed\t" s; s = ""
			}
		}
	}'
}

# A leaf's base invocation, $SPEC/ID.base, is one line per word, tab-separated:
#   P KIND VALUE           a positional (KIND req, opt or multi)
#   F |ALTERNATIVES| WORD   a flag word; left out when the flag under test is one of the
#                           alternatives (the flag itself, or another member of its group)

# base_args ID: leaf ID's base invocation as words, one per line.
base_args () {
	cat "$SPEC/$1.leaf" && cut -f3 "$SPEC/$1.base"
}

# complete_base ID: adds to leaf ID's base whatever the parser says is missing, until it says
# nothing is.
complete_base () {
	cb_id=$1
	cb_leaf=$(cat "$SPEC/$cb_id.leaf")
	cb_tries=0
	while test $cb_tries -lt 6
	do
		cb_tries=$((cb_tries + 1))
		set -f
		set -- $(base_args "$cb_id")
		set +f
		keeper --json "$@" </dev/null >"$SPEC/$cb_id.probe" 2>&1
		missing_args "$(jq -r ".error.message // empty" "$SPEC/$cb_id.probe")" >"$SPEC/$cb_id.missing" ||
			return 1
		test -s "$SPEC/$cb_id.missing" || return 0
		if grep "^unparsed" "$SPEC/$cb_id.missing"
		then
			return 1
		fi
		while IFS="$TAB" read -r cb_k cb_a cb_b cb_c
		do
			case $cb_k in
			req) cb_alts="|$cb_a|" cb_flag=$cb_a cb_vname=$cb_b ;;
			grp) cb_alts=$cb_a cb_flag=$cb_b cb_vname=$cb_c ;;
			esac
			if test -n "$cb_vname"
			then
				cb_v=$(fill "$cb_leaf" opt "$cb_vname") || return 1
				printf "F\t%s\t%s=%s\n" "$cb_alts" "$cb_flag" "$cb_v"
			else
				printf "F\t%s\t%s\n" "$cb_alts" "$cb_flag"
			fi
		done <"$SPEC/$cb_id.missing" >>"$SPEC/$cb_id.base" || return 1
	done
	echo >&2 "the parser keeps asking for more:"
	cat >&2 "$SPEC/$cb_id.probe"
	return 1
}

# --- the sweep helpers -----------------------------------------------------------------------

# state: a fingerprint of everything on disk an invocation could touch: the workspace with its
# journal and objects, the home with the registry, the directories around them. SQLite's
# shared-memory index (-shm) is rewritten by every reader and holds no data.
state () {
	find "$TRASH" -path "$B" -prune -o -path "$IN" -prune -o \
		! -name "*-shm" ! -name test-output -printf "%p %s %T@ %m %l\n" | cksum
}

# restore: puts the fixture back as setup left it. The workspace directory itself stays (it is
# the current directory of the script); only what is in it is replaced.
restore () {
	cd "$TRASH" &&
	rm -rf home userhome outside other &&
	mkdir -p ws &&
	find ws -mindepth 1 -maxdepth 1 -exec rm -rf {} + &&
	cp -a "$TMPL"/home "$TMPL"/userhome "$TMPL"/outside "$TMPL"/other "$TRASH"/ &&
	cp -a "$TMPL"/ws/. ws/ &&
	cd "$WS"
}

# is_known KEY: KEY ("LEAF|ARGUMENT|VALUE") matches a pattern of KNOWN_BUGS.
is_known () {
	set -f
	ik_ifs=$IFS
	IFS='
'
	for ik_pattern in $KNOWN_BUGS
	do
		case $1 in
		$ik_pattern) IFS=$ik_ifs; set +f; return 0 ;;
		esac
	done
	IFS=$ik_ifs
	set +f
	return 1
}

# run ID ARGUMENT KIND TARGET LABEL [STDIN]: one bad invocation of leaf ID, with --json.
#   KIND pos:    TARGET is the index of the positional ARGUMENT, which gets LABEL's value
#   KIND opt:    TARGET is a flag (of the leaf or global) that gets LABEL's value
#   KIND flag:   TARGET is a boolean flag, misused as LABEL says
#   KIND stdin:  the base without its optional positionals, with STDIN on standard input
# Appends "N<TAB>EXIT<TAB>CHANGED<TAB>LEAF<TAB>ARGUMENT<TAB>LABEL" to $B/cases.tsv and keeps
# stdout and stderr in $C/N.out and $C/N.err. A known bug is not run but noted in
# $B/skipped.
run () {
	r_id=$1 r_arg=$2 r_kind=$3 r_target=$4 r_label=$5 r_input=${6:-/dev/null}
	r_leaf=$(cat "$SPEC/$r_id.leaf")
	if is_known "$r_leaf|$r_arg|$r_label"
	then
		printf "%s|%s|%s\n" "$r_leaf" "$r_arg" "$r_label" >>"$B/skipped"
		return 0
	fi
	eval "r_value=\${V_$r_label-}"
	set -f
	set -- --json $r_leaf
	r_pos=0
	while IFS="$TAB" read -r r_k r_a r_b
	do
		case $r_k in
		P)
			r_pos=$((r_pos + 1))
			if test "$r_kind" = pos && test "$r_target" = "$r_pos"
			then
				if test "$r_label" = many
				then
					r_i=0
					while test $r_i -lt 5000; do set -- "$@" f.txt; r_i=$((r_i + 1)); done
				else
					set -- "$@" "$r_value"
				fi
			elif test "$r_kind" = stdin && test "$r_a" = opt
			then
				: # standard input stands in for an optional positional
			else
				set -- "$@" "$r_b"
			fi ;;
		F)
			case $r_a in
			*"|$r_target|"*) ;;
			*) set -- "$@" "$r_b" ;;
			esac ;;
		esac
	done <"$SPEC/$r_id.base"
	set +f
	case $r_kind in
	opt)
		# -1 as a word of its own reads as a flag; glued on it is the value.
		case $r_label in
		negative) set -- "$@" "$r_target=$r_value" ;;
		*) set -- "$@" "$r_target" "$r_value" ;;
		esac ;;
	flag)
		case $r_label in
		eq-yes) set -- "$@" "$r_target=yes" ;;
		eq-empty) set -- "$@" "$r_target=" ;;
		eq-badutf8) set -- "$@" "$r_target=$V_badutf8" ;;
		repeat) set -- "$@" "$r_target" "$r_target" ;;
		esac ;;
	esac
	n=$((n + 1))
	timeout "$CASE_TIMEOUT" keeper "$@" <"$r_input" >"$C/$n.out" 2>"$C/$n.err"
	r_rc=$?
	r_changed=0
	if test "$(state)" != "$before"
	then
		test $r_rc -eq 0 || r_changed=1
		restore
		before=$(state)
	fi
	printf "%s\t%s\t%s\t%s\t%s\t%s\n" $n $r_rc $r_changed "$r_leaf" "$r_arg" "$r_label" >>"$B/cases.tsv"
}

# offenders JQ-CONDITION: the invocations of the sweep (one JSON object each, see
# results.jsonl) meeting the condition, as "#N exit leaf argument=<label>: stdout" lines.
offenders () {
	jq -r "select($1) | \"#\\(.n) exit \\(.rc) keeper --json \\(.leaf) \\(.arg)=<\\(.label)>: \\(.stdout[0:300])\"" \
		"$B/results.jsonl"
}

# failure_document CODE FILE: FILE holds exactly one failure document, of CODE. (Unlike
# test_error_code, an empty FILE does not pass: jq 1.6 -e exits 0 when it reads nothing.)
failure_document () {
	jq -s -e --arg code "$1" 'length == 1 and (.[0] |
		(keys_unsorted == ["ok", "error"]) and .ok == false and
		(.error | keys_unsorted == ["code", "message", "retryable", "details"]) and
		.error.code == $code)' "$2" >/dev/null || {
		echo "not one $1 failure document:"
		head -c 300 "$2"
		echo
		return 1
	}
}


# --- setup -----------------------------------------------------------------------------------

test_expect_success 'setup: a file, a directory, a blob, a committed and a pending operation' '
	printf "one\ntwo\nthree\n" >f.txt &&
	mkdir d "$TRASH/other" &&
	keeper file write g.txt --content "committed" >/dev/null &&
	keeper --json history list --limit 1 | jq -r ".operations[0].id" >"$TRASH/committed.id" &&
	printf "published\n" | keeper hash-object -w --stdin >"$TRASH/blob.id" &&
	keeper hash-object -w f.txt >"$TRASH/f.hash" &&
	# Pending, and both committable and abortable: f.txt holds its before and its after.
	keeper journal-begin --kind write --item "{\"path\": \"f.txt\",
		\"before_hash\": \"$(cat "$TRASH/f.hash")\", \"after_hash\": \"$(cat "$TRASH/f.hash")\"}" \
		>"$TRASH/pending.id" &&
	grep -E "^op_[0-9a-f]{16}$" "$TRASH/committed.id" "$TRASH/pending.id" &&
	cp -a "$WS" "$FILEKEEPER_HOME" "$HOME" "$OUTSIDE" "$TRASH/other" "$TMPL"/
'

test_expect_success 'setup: files a flag may be pointed at, and bad standard input' '
	printf "x\n" >"$IN/ok.txt" &&
	cat >"$IN/ok.patch" <<-\EOF &&
	--- a/f.txt
	+++ b/f.txt
	@@ -1,3 +1,3 @@
	-one
	+ONE
	 two
	 three
	EOF
	# 21 MiB of text: above max_write_bytes (20 MiB) and max_patch_bytes (1 MiB).
	yes "a line of text that is long enough to make this file big quickly enough" |
		head -c 22020096 >"$IN/big" &&
	test "$(wc -c <"$IN/big")" -eq 22020096 &&
	printf "caf\351 \377\376\n" >"$IN/latin1" &&
	printf "bin\000ary\000\n" >"$IN/binary" &&
	printf "\377\376 not UTF-8\n" >"$B/stdin.badutf8" &&
	yes "a line of standard input" | head -c 2097152 >"$B/stdin.huge" &&
	printf "{not json\n--- a/f.txt\n+++ b/f.txt\n@@ garbage @@\n-one\n" >"$B/stdin.garbage"
'

# --- discovery -------------------------------------------------------------------------------

test_expect_success 'the global flags, from keeper -h' '
	keeper -h >"$B/top.help" &&
	GLOBAL_FLAGS= leaf_spec <"$B/top.help" | grep -v "^pos" >"$B/globals" &&
	cut -f2 "$B/globals" | tr "\n" " " >"$B/global-flags" &&
	grep -e "	--json$" "$B/globals" &&
	grep -e "	--root	" "$B/globals"
'
GLOBAL_FLAGS=$(cat "$B/global-flags" 2>/dev/null)

# walk WORDS...: records every leaf command below "keeper WORDS" (with its arguments) and
# every group, found through -h.
walk () {
	keeper "$@" -h >"$B/help" || return 1
	if grep -q "^Commands:" "$B/help"
	then
		echo "$*" >>"$B/groups"
		for w_sub in $(awk '/^Commands:/ { c = 1; next } /^[^ ]/ { c = 0 } c && $1 != "help" { print $1 }' "$B/help")
		do
			walk "$@" "$w_sub" || return 1
		done
	else
		leaves=$((leaves + 1))
		echo "$*" >"$SPEC/$leaves.leaf"
		leaf_spec <"$B/help" >"$SPEC/$leaves"
	fi
}

test_expect_success 'every leaf command and its arguments, from -h' '
	leaves=0 &&
	: >"$B/groups" &&
	walk &&
	echo $leaves >"$B/leaves" &&
	test $leaves -ge 40 &&
	cat "$SPEC"/[0-9]* | grep -c "^pos" >"$B/positionals" &&
	cat "$SPEC"/[0-9]* | grep -c "^opt" >"$B/options" &&
	cat "$SPEC"/[0-9]* | grep -c "^flag" >"$B/flags" &&
	test "$(cat "$B/positionals")" -ge 40 &&
	test "$(cat "$B/options")" -ge 40 &&
	test "$(cat "$B/flags")" -ge 20
'
echo "# $(cat "$B/leaves") leaves: $(cat "$B/positionals") positionals, $(cat "$B/options") flags with a value, $(cat "$B/flags") boolean flags; global flags: $GLOBAL_FLAGS"

test_expect_success 'the commands found are exactly the subcommands keeper completions bash knows' '
	# The same definitions seen twice: as the bash script'"'"'s "parent,child)" cases (help
	# subcommands aside) and as the groups and leaves found through -h.
	keeper completions bash |
		sed -n "s/^ *\(keeper[a-z_]*\),\([a-z-]*\))$/\1 \2/p" |
		grep -v "__subcmd__help" | awk "\$2 != \"help\" { print \$2 }" | LC_ALL=C sort >expect &&
	cat "$SPEC"/*.leaf "$B/groups" | awk "NF { print \$NF }" | LC_ALL=C sort >actual &&
	test_cmp expect actual
'

test_expect_success 'every leaf gets a base invocation that the parser accepts' '
	for leaf_file in "$SPEC"/*.leaf
	do
		id=$(basename "$leaf_file" .leaf) &&
		leaf=$(cat "$leaf_file") &&
		grep "^pos" "$SPEC/$id" >positionals
		: >"$SPEC/$id.base" &&
		while IFS="$TAB" read -r k name kind
		do
			good=$(fill "$leaf" pos "$name") &&
			printf "P\t%s\t%s\n" "$kind" "$good" >>"$SPEC/$id.base" || exit 1
		done <positionals &&
		extra "$leaf" >extra &&
		while IFS= read -r word
		do
			printf "F\t||\t%s\n" "$word" >>"$SPEC/$id.base"
		done <extra &&
		# Content comes inline: standard input is closed here, and empty content on it
		# is refused (empty_stdin). Left out when --content or --input is under test.
		case $leaf in
		"file create" | "file write")
			printf "F\t|--content|--input|\t--content=x\n" >>"$SPEC/$id.base" ;;
		esac &&
		complete_base $id || exit 1
	done
'

test_expect_success 'every base invocation succeeds, so in each bad one the bad value is all that is wrong' '
	for leaf_file in "$SPEC"/*.leaf
	do
		id=$(basename "$leaf_file" .leaf) &&
		set -f &&
		set -- $(base_args $id) &&
		set +f &&
		keeper --json "$@" </dev/null >"$B/base.out" 2>"$B/base.err"
		rc=$?
		restore &&
		jq -s -e "length == 1 and .[0].ok == true" "$B/base.out" >/dev/null && test $rc -eq 0 || {
			echo "the base invocation failed (exit $rc): keeper --json $*"
			head -c 600 "$B/base.out"
			echo
			exit 1
		}
	done
'

# --- the sweep -------------------------------------------------------------------------------

test_expect_success 'the sweep: a bad value in every argument, flag and global flag of every leaf' '
	n=0 &&
	: >"$B/cases.tsv" &&
	: >"$B/skipped" &&
	started=$(date +%s) &&
	before=$(state) &&
	for leaf_file in "$SPEC"/*.leaf
	do
		id=$(basename "$leaf_file" .leaf)
		pi=0
		while IFS="$TAB" read -r k name kind
		do
			case $k in
			pos)
				pi=$((pi + 1))
				labels=$VALUE_LABELS
				case " $FILE_NAMES " in *" $name "*) labels="$labels $FILE_LABELS" ;; esac
				test "$kind" = multi && labels="$labels many"
				for label in $labels; do run $id $name pos $pi $label; done ;;
			opt)
				labels=$VALUE_LABELS
				case " $FILE_NAMES " in *" $kind "*) labels="$labels $FILE_LABELS" ;; esac
				case " $JSON_NAMES " in *" $kind "*) labels="$labels $JSON_LABELS" ;; esac
				for label in $labels; do run $id $name opt $name $label; done ;;
			flag)
				for label in $FLAG_LABELS; do run $id $name flag $name $label; done ;;
			esac
		done <"$SPEC/$id"
		for label in $STDIN_LABELS
		do
			run $id stdin stdin - $label "$B/stdin.$label"
		done
	done &&
	# Each global flag with each bad value on three leaves, taking the leaves in turn.
	leaves=$(cat "$B/leaves") &&
	turn=0 &&
	while IFS="$TAB" read -r k name vname
	do
		case $k in
		opt) labels=$VALUE_LABELS ;;
		flag) labels=$FLAG_LABELS ;;
		esac
		for label in $labels
		do
			for i in 1 2 3
			do
				run $((turn % leaves + 1)) $name $k $name $label
				turn=$((turn + 1))
			done
		done
	done <"$B/globals" &&
	echo "$n invocations in $(($(date +%s) - started)) s" >"$B/count" &&
	test $n -ge 1000
'
echo "# $(cat "$B/count"); skipped as known bugs: $(sort -u "$B/skipped" | tr "\n" " ")"

test_expect_success 'the sweep results, one JSON object per invocation' '
	# Each: n, rc, changed, leaf, arg, label, lines (of stdout), doc (stdout parsed when it is
	# exactly one line of JSON), stdout (as text), and whether stderr was empty.
	find "$C" -name "*.err" -size +0 | sed "s|.*/||; s|\.err$||" >"$B/stderr-used" &&
	jq -n -R -c --rawfile tsv "$B/cases.tsv" --rawfile errs "$B/stderr-used" "
		(reduce inputs as \$l ({}; .[input_filename | sub(\".*/\"; \"\") | sub(\"[.]out\$\"; \"\")] += [\$l])) as \$outs |
		(\$errs | split(\"\n\") | map(select(length > 0)) | map({(.): true}) | add // {}) as \$e |
		\$tsv | split(\"\n\")[] | select(length > 0) | split(\"\t\") as \$f |
		(\$outs[\$f[0]] // []) as \$lines |
		{n: (\$f[0] | tonumber), rc: (\$f[1] | tonumber), changed: (\$f[2] == \"1\"),
		 leaf: \$f[3], arg: \$f[4], label: \$f[5], lines: (\$lines | length),
		 doc: (if (\$lines | length) == 1 then (\$lines[0] | try fromjson catch null) else null end),
		 stdout: (\$lines | join(\"\n\")), stderr: (\$e[\$f[0]] // false)}
	" "$C"/*.out >"$B/results.jsonl" &&
	test "$(wc -l <"$B/results.jsonl")" -eq "$(wc -l <"$B/cases.tsv")"
'

# The documented codes and exit statuses: the table of docs/errors.md.
sed -n "s/^| \`\([A-Z_]*\)\` | \([0-9]*\) |.*/\1 \2/p" "$TEST_DIRECTORY/../docs/errors.md" >"$B/codes"
DOCUMENTED=$(jq -R -n -c "[inputs | split(\" \") | {key: .[0], value: (.[1] | tonumber)}] | from_entries" "$B/codes")

test_expect_success 'docs/errors.md documents the codes the checks below go by' '
	test "$(wc -l <"$B/codes")" -eq 31 &&
	echo "$DOCUMENTED" | jq -e ".INVALID_ARGUMENT == 2 and .INTERNAL_ERROR == 1"
'

test_expect_success 'every invocation ended by itself in time, not by a signal' '
	offenders ".rc == 124 or .rc > 128" >out &&
	test_must_be_empty out
'

test_expect_success 'every exit code is 0 or a documented exit status' '
	offenders "(.rc as \$rc | [0] + [$DOCUMENTED[]] | index(\$rc)) == null" >out &&
	test_must_be_empty out
'

test_expect_success 'every stdout is exactly one JSON object whose first key is "ok"' '
	offenders ".lines != 1 or (.doc | type) != \"object\" or (.doc | keys_unsorted[0]) != \"ok\"" >out &&
	test_must_be_empty out
'

test_expect_success 'every failure is exactly ok and error{code, message, retryable, details}' '
	offenders "(.doc | type) == \"object\" and .doc.ok == false and
		((.doc | keys_unsorted) != [\"ok\", \"error\"] or
		 (.doc.error | keys_unsorted) != [\"code\", \"message\", \"retryable\", \"details\"] or
		 (.doc.error.message | type) != \"string\" or (.doc.error.retryable | type) != \"boolean\" or
		 (.doc.error.details | type) != \"object\")" >out &&
	test_must_be_empty out
'

test_expect_success 'every failure carries a documented code and exits with its status' '
	offenders ".doc.ok == false and $DOCUMENTED[.doc.error.code] != .rc" >out &&
	test_must_be_empty out
'

test_expect_success 'no invocation hit INTERNAL_ERROR (a caught panic or a broken invariant)' '
	offenders ".doc.error.code == \"INTERNAL_ERROR\"" >out &&
	test_must_be_empty out
'

test_expect_success 'every success exits 0 (file exists and find-up: 3 for "not there")' '
	offenders ".doc.ok == true and .rc != 0 and
		(.leaf != \"file exists\" or .rc != 3 or .doc.exists != false) and
		(.leaf != \"file find-up\" or .rc != 3 or .doc.found != false)" >out &&
	test_must_be_empty out
'

test_expect_success 'stderr stays empty under --json' '
	offenders ".stderr" >out &&
	test_must_be_empty out
'

test_expect_success 'no output mentions a panic or a backtrace' '
	grep -l -i -e panicked -e RUST_BACKTRACE -e "stack backtrace" -e "src/.*\.rs:[0-9]" "$C"/* >out
	test_must_be_empty out
'

test_expect_success 'no failure, and no success outside init and workspace, mentions a host path' '
	grep -l -F "$TRASH" "$C"/* | sed "s|.*/||; s|\.[a-z]*\$||" | sort -u >leaked
	jq -c --slurpfile r "$B/results.jsonl" -R -n "
		[inputs | tonumber] as \$leaked | \$r[] | select(.n as \$n | \$leaked | index(\$n)) |
		select(.rc != 0 or (.leaf | test(\"^(init|workspace)\") | not)) |
		{n, rc, leaf, arg, value: .label}" leaked >out &&
	test_must_be_empty out
'

test_expect_success 'no failure changed anything on disk' '
	offenders ".changed" >out &&
	test_must_be_empty out
'

test_expect_success 'the sweep covered every leaf and every kind of bad value' '
	jq -r .leaf "$B/results.jsonl" | sort -u | wc -l >covered &&
	test "$(cat covered)" -eq "$(cat "$B/leaves")" &&
	jq -r .label "$B/results.jsonl" | LC_ALL=C sort -u >actual &&
	printf "%s\n" $VALUE_LABELS $FILE_LABELS $JSON_LABELS $FLAG_LABELS $STDIN_LABELS many |
		LC_ALL=C sort -u >expect &&
	test_cmp expect actual
'

# --- known breakages -------------------------------------------------------------------------


# answers EXIT CODE ARGS...: keeper --json ARGS answers within HANG_TIMEOUT seconds with exit
# EXIT and one CODE failure document, and changes nothing on disk.
answers () {
	a_exit=$1 a_code=$2
	shift 2
	restore &&
	a_before=$(state) &&
	timeout $HANG_TIMEOUT keeper --json "$@" </dev/null >"$B/answer.json" 2>"$B/answer.err"
	a_rc=$?
	test $a_rc -ne 124 || { echo "no answer within $HANG_TIMEOUT seconds"; return 1; }
	test $a_rc -eq "$a_exit" || { echo "exit $a_rc, wanted $a_exit"; return 1; }
	failure_document "$a_code" "$B/answer.json" &&
	{ test "$(state)" = "$a_before" || { echo "something changed on disk"; return 1; }; }
}


test_expect_success 'replace-text with 100 KiB of old text that is not in the file answers NO_MATCH' '
	# The nearest-lines ranking diffs the first line of the old text against every line
	# character by character: quadratic, 12 s for 10 KiB in the debug build.
	answers 16 NO_MATCH file replace-text f.txt --first --new x --old "$V_huge"
'

test_expect_success 'an endless file (/dev/zero) as --input is refused, not read forever' '
	answers 21 LIMIT_EXCEEDED file write f.txt --input /dev/zero
'

test_expect_success 'an endless file as the content of file create is refused' '
	answers 21 LIMIT_EXCEEDED file create new.txt --input /dev/zero
'

test_expect_success 'an endless patch file is refused' '
	answers 21 LIMIT_EXCEEDED file apply-patch /dev/zero
'

test_expect_success 'an endless --old-file is refused, without taking all memory' '
	answers 21 LIMIT_EXCEEDED file replace-text f.txt --first --new x --old-file /dev/zero
'

test_expect_success 'an endless --new-file is refused' '
	answers 21 LIMIT_EXCEEDED file replace-text f.txt --first --old one --new-file /dev/zero
'

test_expect_success 'a path over 4096 bytes is named by its size, never echoed' '
	long=$(printf "%05000d" 0) &&
	answers 2 INVALID_ARGUMENT file read "$long" &&
	test "$(jq .error.details.path_bytes "$B/answer.json")" = 5000 &&
	test "$(jq .error.details.max_path_bytes "$B/answer.json")" = 4096 &&
	! grep -q 00000000 "$B/answer.json"
'

test_expect_success 'a failed workspace use or create with a new --home creates no home' '
	answers 23 WORKSPACE_NOT_FOUND --home ../fresh-home workspace use test &&
	test ! -e ../fresh-home &&
	answers 2 INVALID_ARGUMENT --home ../fresh-home workspace create "a b" . &&
	test ! -e ../fresh-home
'

test_expect_success 'every command group given no subcommand under --json is an INVALID_ARGUMENT document' '
	# keeper alone is; keeper file prints its help on stderr, nothing on stdout.
	while IFS= read -r group
	do
		set -f &&
		set -- $group &&
		set +f &&
		test_expect_code 2 keeper --json "$@" >"$B/group.out" 2>"$B/group.err" &&
		failure_document INVALID_ARGUMENT "$B/group.out" || {
			echo "keeper --json $group:"
			head -c 300 "$B/group.err"
			echo
			exit 1
		}
	done <"$B/groups"
'

test_done
