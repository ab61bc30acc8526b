#!/bin/sh
# keeper file grep against ripgrep on the Rust HTML documentation that rustup installs
# (about 50,000 files), with the same query and ignore rules. Target: within 1.5x.
#
# Both sides search hidden files (keeper does by default; rg needs --hidden) and honour the
# same .gitignore rules; keeper stops at 200 results, so the queries match fewer lines than
# that and both sides read every file.
. "$(dirname "$0")/perf-lib.sh"
perf_need rg rustup

corpus=${PERF_GREP_CORPUS:-$(dirname "$(rustup doc --path 2>/dev/null)")}
test -d "$corpus" || { echo "skip: no corpus; install the rust-docs component or set PERF_GREP_CORPUS" >&2; exit 0; }
echo "corpus: $corpus ($(find "$corpus" -type f | wc -l) files)"

status=0
perf_compare "grep literal, no match" 1.5 \
	"$KEEPER --root '$corpus' --json file grep . zzqqxyzzy" \
	"rg --hidden -n --column zzqqxyzzy '$corpus'" || status=1
perf_compare "grep literal, few matches" 1.5 \
	"$KEEPER --root '$corpus' --json file grep . from_utf8_lossy_owned" \
	"rg --hidden -n --column from_utf8_lossy_owned '$corpus'" || status=1
perf_compare "grep regex, ignore case" 1.5 \
	"$KEEPER --root '$corpus' --json file grep . 'unchecked_[a-z]+_exact' --regex -i" \
	"rg --hidden -n --column -i 'unchecked_[a-z]+_exact' '$corpus'" || status=1
perf_compare "search by glob" 1.5 \
	"$KEEPER --root '$corpus' --json file search . 'fn.from_utf8*.html'" \
	"rg --hidden --files -g 'fn.from_utf8*.html' '$corpus'" || status=1
perf_memory "grep, whole corpus" \
	"$KEEPER --root '$corpus' --json file grep . zzqqxyzzy" \
	"rg --hidden -n --column zzqqxyzzy '$corpus'"
perf_memory "grep, one small directory" \
	"$KEEPER --root '$corpus' --json file grep std/vec zzqqxyzzy" \
	"rg --hidden -n --column zzqqxyzzy '$corpus/std/vec'"
exit $status
