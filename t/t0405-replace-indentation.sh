#!/bin/sh
test_description='keeper file replace-text: indentation at the normalised stage

When the old text matches only with indentation and trailing whitespace ignored, the old and
new texts are paired line by line. A line the new text leaves unchanged is written exactly as
the file has it; a changed line takes the indentation of the file line it replaces plus the
change the caller made to it; an inserted line is placed relative to its nearest paired
neighbour. A change of indentation is carried over only when the old text'"'"'s indentation
follows the file'"'"'s; otherwise, and for tabs against spaces that cannot be converted, the
edit is NO_MATCH (exit 16) naming the line of the new text, the file line and a reason, and
neither the file nor the journal changes. Python files are compiled after each edit.'
. ./test-lib.sh

# replaced FILE ARGS...: `keeper --json file replace-text FILE ARGS...` succeeds at the
# normalised stage; its result is left in out.json.
replaced () {
	file=$1
	shift
	keeper --json file replace-text "$file" "$@" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	test "$(json_get .match_stage out.json)" = normalised &&
	test "$(json_get .after_hash out.json)" = "$(sha "$file")" || {
		echo >&2 "replace-text $file $* did not apply at the normalised stage:"
		cat >&2 out.json
		return 1
	}
}

# The edited Python files are compiled by python3 at the end (PYTHON): an indentation fix that
# broke the code would fail there.
PYTHONPYCACHEPREFIX=$TRASH/pycache
export PYTHONPYCACHEPREFIX

test_expect_success 'an old text with its indentation stripped keeps the changed body line in the function' '
	printf "def f():\n    return 1\n\ndef g():\n    return 2\n" >code.py &&
	replaced code.py --old "def g():
return 2" --new "def g():
return 42" --first &&
	printf "def f():\n    return 1\n\ndef g():\n    return 42\n" >expect &&
	test_cmp expect code.py
'

test_expect_success 'the warning names the matched lines and what was kept and re-indented' '
	json_get ".warnings[0]" out.json >warning &&
	grep -F "(lines 4-5)" warning &&
	grep -F "1 line kept exactly as the file has it" warning &&
	grep -F "result line 5 (4 spaces)" warning
'

test_expect_success 'a changed line keeps the file'"'"'s level when the old text uses other levels' '
	printf "if x:\n    a()\n    b()\n" >ind.py &&
	replaced ind.py --old "if x:
  a()" --new "if x:
  a2()" --first &&
	printf "if x:\n    a2()\n    b()\n" >expect &&
	test_cmp expect ind.py
'

test_expect_success 'an unchanged line stays where the file has it when the old text misplaces it' '
	printf "def f(x):\n    if x:\n        log(x)\n        return 1\n    return 0\n" >nest.py &&
	replaced nest.py --old "    if x:
        log(x)
    return 1
" --new "    if x:
        log(x, level=2)
    return 1
" --first &&
	printf "def f(x):\n    if x:\n        log(x, level=2)\n        return 1\n    return 0\n" >expect &&
	test_cmp expect nest.py
'

test_expect_success 'a blank line holding spaces in the old text changes no other line'"'"'s indentation' '
	printf "class A:\n    def f(self):\n        return 1\n\n    def __reduce__(self):\n        return (A, ())\n" >blank.py &&
	replaced blank.py --old "        return 1
    
    def __reduce__(self):" --new "        return 2
    
    def __reduce__(self):" --first &&
	printf "class A:\n    def f(self):\n        return 2\n\n    def __reduce__(self):\n        return (A, ())\n" >expect &&
	test_cmp expect blank.py
'

test_expect_success 'new lines nested with 2 spaces against a 4-space file land on the file'"'"'s levels' '
	printf "class A:\n    def f(self, x, y):\n        if x:\n            pass\n" >scale.py &&
	replaced scale.py --old "def f(self, x, y):
  if x:
    pass" --new "def f(self, x, y):
  if x:
    if y:
      return y
    pass" --first &&
	printf "class A:\n    def f(self, x, y):\n        if x:\n            if y:\n                return y\n            pass\n" >expect &&
	test_cmp expect scale.py
'

test_expect_success 'a line inserted where the stripped old text gives no level is NO_MATCH naming it' '
	printf "def f():\n    return 1\n\ndef g():\n    x = 2\n    return x\n" >strip.py &&
	save strip.py &&
	refused 16 NO_MATCH file replace-text strip.py --old "def g():
x = 2
return x" --new "def g():
x = 2
return x
print(x)" --first &&
	test "$(json_get .error.details.reason refusal.json)" = indentation_ambiguous &&
	test "$(json_get .error.details.line refusal.json)" = 4 &&
	test "$(json_get .error.details.file_line refusal.json)" = 6 &&
	test "$(json_get .error.details.path refusal.json)" = strip.py &&
	json_get .error.details.recovery refusal.json >recovery &&
	grep -F "exact indentation" recovery
'

test_expect_success 'a refused indentation changes neither the file nor the journal' '
	untouched strip.py
'

test_expect_success 'a deeper level in spaces against a tab-indented file is NO_MATCH when it cannot be converted' '
	printf "if (a) {\n\tfoo();\n\tbar();\n}\n" >tabs.c &&
	save tabs.c &&
	refused 16 NO_MATCH file replace-text tabs.c --old "    foo();
    bar();" --new "    foo();
        baz();
    bar();" --first &&
	test "$(json_get .error.details.reason refusal.json)" = tabs_and_spaces &&
	untouched tabs.c
'

test_expect_success 'a changed block with fewer lines than the differently indented lines it replaces is NO_MATCH' '
	printf "def f():\n    if a:\n        log()\n    return 1\n" >block.py &&
	save block.py &&
	refused 16 NO_MATCH file replace-text block.py --old "log()
return 1" --new "return 2" --first &&
	test "$(json_get .error.details.reason refusal.json)" = indentation_ambiguous &&
	test "$(json_get .error.details.line refusal.json)" = 1 &&
	test "$(json_get .error.details.file_line refusal.json)" = 3 &&
	untouched block.py
'

test_expect_success 'the same block changed line for line keeps each line at its own level' '
	replaced block.py --old "log()
return 1" --new "log(2)
return 2" --first &&
	printf "def f():\n    if a:\n        log(2)\n    return 2\n" >expect &&
	test_cmp expect block.py
'

test_expect_success 'a deletion that could keep either of two differently indented equal lines is NO_MATCH' '
	printf "    if c:\n        a()\n    x()\n    a()\n" >which.py &&
	save which.py &&
	refused 16 NO_MATCH file replace-text which.py --old "a()
x()
a()" --new "a()" --first &&
	test "$(json_get .error.details.reason refusal.json)" = pairing_ambiguous &&
	untouched which.py
'

test_expect_success 'two levels of indentation do not show a ratio: a line needing one is NO_MATCH' '
	printf "class A:\n    def f(self): \n        x = 1\n        return x\n" >ratio.py &&
	save ratio.py &&
	refused 16 NO_MATCH file replace-text ratio.py --old "def f(self):
        x = 1
        return x" --new "def f(self):
        x = 1
        if x:
            z()
        return x" --first &&
	test "$(json_get .error.details.reason refusal.json)" = indentation_ambiguous &&
	test "$(json_get .error.details.line refusal.json)" = 4 &&
	json_get .error.message refusal.json | grep -F "only two levels" &&
	untouched ratio.py
'

test_expect_success 'blank lines the new text drops at the end of the old text are NO_MATCH, not kept' '
	printf "x = 0\n    foo()\n    more()\n\n\ny = 1\n" >edges.py &&
	save edges.py &&
	refused 16 NO_MATCH file replace-text edges.py --old "foo()
more()


" --new "bar()
" --first &&
	test "$(json_get .error.details.reason refusal.json)" = blank_edge_lines &&
	test "$(json_get .error.details.file_line refusal.json)" = 3 &&
	json_get .error.details.recovery refusal.json | grep -F "by their numbers" &&
	untouched edges.py
'

test_expect_success 'blank lines the new text keeps at the end of the old text stay as the file has them' '
	replaced edges.py --old "foo()
more()


" --new "bar()


" --first &&
	printf "x = 0\n    bar()\n\n\ny = 1\n" >expect &&
	test_cmp expect edges.py
'

test_expect_success 'an unchanged line whose trailing spaces the caller removed is written without them' '
	printf "def f():\n    return x  \n    y\n" >trail.py &&
	replaced trail.py --old "return x  
y" --new "return x
y" --first &&
	printf "def f():\n    return x\n    y\n" >expect &&
	test_cmp expect trail.py
'

test_expect_success 'a new text at the file'"'"'s own indentation over a stripped old text is NO_MATCH, not moved twice' '
	printf "def f():\n    foo()\n    bar()\n" >frame.py &&
	save frame.py &&
	refused 16 NO_MATCH file replace-text frame.py --old "foo()
bar()" --new "    foo()
    baz()
    bar()" --first &&
	test "$(json_get .error.details.reason refusal.json)" = indentation_ambiguous &&
	untouched frame.py
'

test_expect_success 'deleting a line and one of two equal lines the file indents apart is NO_MATCH' '
	printf "def f():\n    if x:\n        log()\n        return\n    return\n" >twice.py &&
	save twice.py &&
	refused 16 NO_MATCH file replace-text twice.py --old "log()
return
return" --new "return" --first &&
	test "$(json_get .error.details.reason refusal.json)" = pairing_ambiguous &&
	untouched twice.py
'

test_expect_success 'the same deletion sent at the file'"'"'s own levels applies: the kept line tells itself apart' '
	printf "def f(x):\n    if x:\n        log() \n        return\n    return\n" >levels.py &&
	replaced levels.py --old "    if x:
        log()
        return
    return" --new "    return" --first &&
	printf "def f(x):\n    return\n" >expect &&
	test_cmp expect levels.py
'

test_expect_success 'a final line end on the new text only is NO_MATCH, not a line lost' '
	printf "a:\n    x()\n\n    y()\nz()\n" >end.txt &&
	save end.txt &&
	printf "x()\n" >new-with-end &&
	refused 16 NO_MATCH file replace-text end.txt --old "x()

y()" --new-file new-with-end --first &&
	test "$(json_get .error.details.reason refusal.json)" = final_line_end &&
	untouched end.txt
'

test_expect_success 'with one level shown, a change off the file'"'"'s steps of indentation is NO_MATCH, not 6 spaces in a 4-space file' '
	printf "class A:\n    def f(self):\n        x = 1\n        y = 2\n" >steps.py &&
	save steps.py &&
	refused 16 NO_MATCH file replace-text steps.py --old "  x = 1
  y = 2" --new "  x = 1
y = 2" --first &&
	test "$(json_get .error.details.reason refusal.json)" = indentation_ambiguous &&
	test "$(json_get .error.details.file_line refusal.json)" = 4 &&
	untouched steps.py
'

test_expect_success 'a change by whole steps of the file'"'"'s indentation applies' '
	replaced steps.py --old "  x = 1
  y = 2" --new "  x = 1
  if y:
      y = 2" --first &&
	printf "class A:\n    def f(self):\n        x = 1\n        if y:\n            y = 2\n" >expect &&
	test_cmp expect steps.py
'

test_expect_success PYTHON 'every Python file edited above (or left alone by a refusal) still compiles' '
	for f in code.py ind.py nest.py blank.py scale.py strip.py block.py ratio.py trail.py frame.py twice.py levels.py steps.py
	do
		python3 -m py_compile "$f" || return 1
	done
'

test_done
