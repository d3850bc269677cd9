"""Compile errors a newcomer met in a trial: each says where, what went wrong and the fix,
in Synsema's terms (not a generic `expected an expression or statement`)."""

import pytest

from synsema.compiler import compile_source
from synsema.vm.errors import CompileError
from synsema.vm.program import KEYWORDS
from synsema.vm.suggest import suggest


def cerr(src):
    with pytest.raises(CompileError) as info:
        compile_source(src, "n.syn")
    return info.value


CONTINUE = "wrap it in ( ): newlines inside ( ), [ ] and { } are ignored"


@pytest.mark.parametrize("src, line, col, words", [
    # ---- after a complete expression: what may follow it there
    ("let x be 1 let y be 2\n", 1, 12, ["unexpected 'let' after a complete statement",
                                        "one statement per line"]),
    ("print(1) print(2)\n", 1, 10, ["one statement per line", "operator"]),
    ('print("a" "b")\n', 1, 11, ["unexpected text", "expected ',' or ')'"]),
    ("let xs be [1 2]\n", 1, 14, ["expected ',' or ']'"]),
    ('let m be {"a": 1 "b": 2}\n', 1, 18, ["expected ',' or '}'"]),
    ('let m be {"a" 1}\n', 1, 15, ["expected ':' between a key and its value"]),
    ("let v be (1 2)\n", 1, 13, ["expected ')'"]),
    ("let x be 1:\n", 1, 11, ["unexpected ':'; expected end of line"]),
    # ---- an extra word after a header's condition
    ("let x be 1\nwhen x == 1 then\n    print(x)\n", 2, 13,
     ["a `when` line ends with its condition", "remove 'then'"]),
    ("let x be 1\nwhile x < 3 do\n    set x to x + 1\n", 2, 13,
     ["a `while` line ends with its condition", "remove 'do'"]),
    ("for each x in [1] do\n    print(x)\n", 1, 19, ["remove 'do'"]),
    # ---- a line that ends, or starts, in the middle of an expression
    ("let long be 1 +\n    2\n", 1, 15, ["the line ends after '+'", CONTINUE]),
    ("let ok be true and\n", 1, 16, ["the line ends after 'and'", CONTINUE]),
    ("let a be 1\nlet b be a\n    + 1\n", 3, 5, ["cannot continue the one above", CONTINUE]),
    ("let a be 1\n+ 2\n", 2, 1, ["starting with '+'", CONTINUE]),
    ("let f be (x) =>\n    x + 1\n", 1, 14,
     ["a lambda holds one expression, on the same line as '=>'", "(x) => x + 1"]),
    ("let x be\n", 1, 7, ["expected an expression after 'be', on the same line"]),
    # ---- headers have no ':'
    ("task f(x):\n    give x\n", 1, 10, ["headers have no ':'", "after `task`"]),
    ("let c be true\nwhen c:\n    print(1)\n", 2, 7, ["headers have no ':'", "`when`"]),
    ("let c be true\nwhile c:\n    print(1)\n", 2, 8, ["headers have no ':'", "`while`"]),
    ("for each x in [1]:\n    print(x)\n", 1, 18, ["headers have no ':'", "`for each`"]),
    ("when true\n    print(1)\notherwise:\n    print(2)\n", 3, 10,
     ["headers have no ':'", "`otherwise`"]),
    ("try:\n    print(1)\nrecover e\n    print(e)\n", 1, 4, ["headers have no ':'", "`try`"]),
    ("try\n    print(1)\nrecover e:\n    print(e)\n", 3, 10, ["`recover`"]),
    ('test "t":\n    assert(true)\n', 1, 9, ["`test`"]),
    # ---- try / recover
    ("try\n    print(1)\nprint(2)\n", 3, 1,
     ["expected 'recover' here", "the `try` at line 1 needs a `recover NAME` block",
      "`recover err`", "same indentation"]),
    ("try\n    print(1)\n", 1, 1, ["the file ends before 'recover'", "`recover err`"]),
    ("while true\n", 1, 11, ["the file ends where an indented block should follow"]),
    ("try\n    print(1)\nrecover\n    print(2)\n", 3, 8,
     ["`recover` needs a name", "`recover err`"]),
    # ---- other languages' operators
    ("print(true && false)\n", 1, 12, ["unexpected '&&'", "`and`"]),
    ("print(true || false)\n", 1, 12, ["unexpected '||'", "`or`"]),
    ("print(true & false)\n", 1, 12, ["unexpected '&'", "`and`"]),
    ("print(!true)\n", 1, 7, ["'not'"]),
    # ---- the caret is on the Python word the message is about
    ("if 1 == 1\n    print(1)\n", 1, 1, ["'if' is Python"]),
    ("task f(x)\n    return x\n", 2, 5, ["'return' is Python", "give"]),
    ("import json\n", 1, 1, ["Synsema has no imports"]),
    ("when true\n    print(1)\nelse\n    print(2)\n", 3, 1, ["'else' is Python", "otherwise"]),
    ('raise ValueError("x")\n', 1, 1, ["fail(MESSAGE)"]),
    ("for x in [1]\n    print(x)\n", 1, 5, ["expected 'each'", "for each NAME in LIST"]),
])
def test_syntax_errors_say_what_to_write(src, line, col, words):
    e = cerr(src)
    assert (e.line, e.col) == (line, col), e.message
    for w in words:
        assert w in e.message, e.message
    assert "expected an expression or statement" not in e.message


@pytest.mark.parametrize("src, words", [
    ("print(sum([1, 2]))\n", ["'sum' is not declared", "let total be 0",
                              "set total to total + x"]),
    ('print(length("ab"))\n', ["'length' is not declared", "len(x)"]),
    ("print(input())\n", ["'input' is not declared", "--call", "--args", "--tools"]),
    ("exit(1)\n", ["'exit' is not declared", "fail(MESSAGE)", "give"]),
    ("print(enumerate([1]))\n", ["range(len(xs))"]),
    ("print(isinstance(1, 2))\n", ["type_of(x)"]),
    ("print(sorted([2, 1]))\n", ["sort(xs)"]),
    ("print(None)\n", ["Synsema writes nothing"]),
    ("print(True)\n", ["Synsema writes true"]),
])
def test_python_builtins_name_the_synsema_way(src, words):
    e = cerr(src)
    for w in words:
        assert w in e.message, e.message
    assert "did you mean" not in e.message


# SPEC 2: the candidate at the smallest Levenshtein distance, at most 2, ties to the one
# listed first. The Python words (`sum`, `exit`, `input`...) get their own message first.
@pytest.mark.parametrize("name, candidates, want", [
    ("prnt", ["print"], "print"),
    ("bnak", ["bank"], "bank"),
    ("lenght", ["length"], "length"),
    ("c", ["a"], "a"),
    ("ab", ["xy", "ay"], "ay"),
    ("abcdef", ["uvwxyz"], None),
])
def test_suggestions_follow_the_spec_distance(name, candidates, want):
    assert suggest(name, candidates) == want


@pytest.mark.parametrize("src, line, col, words", [
    ("let f be (x) => x + later\nlet later be 1\n", 1, 21,
     ["'later' is not declared yet: its `let` is at line 2",
      "a lambda sees only what is declared above it"]),
    ("print(total)\nlet total be 1\n", 1, 7,
     ["'total' is not declared yet: its `let` is at line 2", "top-level statements"]),
    ("print(y)\nwhen true\n    let y be 1\n", 1, 7, ["not declared yet", "line 3"]),
    ("task f()\n    print(y)\n    let y be 1\n", 2, 11,
     ["'y' is not declared yet: its `let` is at line 3", "in a task", "move the `let` up"]),
    ('test "t"\n    print(y)\n    let y be 1\n', 2, 11, ["line 3", "in a test"]),
    ("task f()\n    let g be () => z\n    let z be 1\n", 2, 20, ["line 3", "lambda"]),
    ("let f be (x) => f(x)\n", 1, 17, ["its own `let`", "make it a task"]),
    ("let x be x + 1\n", 1, 10, ["this `let` declares it"]),
])
def test_declared_later_is_said_wherever_it_is_true(src, line, col, words):
    e = cerr(src)
    assert (e.line, e.col) == (line, col), e.message
    for w in words:
        assert w in e.message, e.message
    assert "did you mean" not in e.message


def test_setting_a_top_level_variable_in_a_test_gives_advice_for_tests():
    e = cerr('let x be 1\ntest "t"\n    set x to 2\n')
    assert (e.line, e.col) == (3, 9)
    assert "cannot set the top-level variable 'x' inside a test" in e.message
    assert "let my_x be x" in e.message and "give" not in e.message
    e = cerr("let x be 1\ntask f()\n    set x to 2\n")
    assert "give the new value back" in e.message


def test_through_the_cli_the_caret_is_on_the_keyword(syn, write):
    write("app.syn", "if 1 == 1\n    print(1)\n")
    p = syn("run", "app.syn")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert lines[0].startswith("app.syn:1:1: error: 'if' is Python")
    assert lines[1:3] == ["    if 1 == 1", "    ^"]


@pytest.mark.parametrize("key", ["to", "in", "each", "true", "for"])
def test_a_field_named_like_a_keyword_points_to_brackets(key):
    e = cerr(f'let mail be {{"{key}": 1}}\nprint(mail.{key})\n')
    assert e.message == (f"'{key}' is a keyword and cannot be used as a name; for a key "
                               f"named like that, use brackets: mail[\"{key}\"]")


@pytest.mark.parametrize("src, says, col", [
    ("print(2 ** 3)\n", "Synsema has no `**`; multiply (x * x), or repeat it in a loop", 9),
    ("print(7 // 2)\n", "Synsema has no `//`; floor(a / b) divides and rounds down", 9),
    ("let f be x => x + 1\n", "a lambda's parameters are in parentheses, even one: (x) => ...",
     10),
])
def test_python_operators_get_the_synsema_spelling(src, says, col):
    e = cerr(src)
    assert (e.message, e.col) == (says, col)


def test_spaced_operators_are_not_taken_for_python_ones():
    e = cerr("print(2 * * 3)\n")
    assert "**" not in e.message


@pytest.mark.parametrize("src, says", [
    ("for each x in [1, 2]\n    print(x)\nprint(x)\n",
     "it is the variable of the `for each` at line 1, which exists only inside the loop"),
    ('try\n    fail("a")\nrecover e\n    print(e)\nprint(e)\n',
     "it names the error of the `recover` at line 3, only inside that block"),
    ("when true\n    let y be 1\nprint(y)\n",
     "its `let` at line 2 is inside a block that has ended"),
])
def test_a_name_used_after_its_block_says_what_declared_it(src, says):
    e = cerr(src)
    assert says in e.message


@pytest.mark.parametrize("src, says", [
    ('let m be {"a": 1}\nset m.x.y to 1\n',
     'cannot set "y" in the item at "x", which is nothing; only lists and maps have items'),
    ('let m be {"a": [1]}\nset m.a.b to 1\n',
     'cannot set "b" in a list: a list\'s items are set by a whole-number index, and fields'),
    ('print([1, 2]["1"])\n', 'list index must be a whole number, got text "1"'),
])
def test_runtime_messages_show_texts_quoted_and_name_the_step(src, says):
    import synsema
    with pytest.raises(synsema.RunError) as e:
        synsema.compile_source(src, "app.syn").run()
    assert says in e.value.message


@pytest.mark.parametrize("src, fix", [
    ('let a be {"b": {"in": 1}}\nprint(a.b.in)\n', 'a.b["in"]'),
    ('let a be [{"in": 1}]\nprint(a[0].in)\n', '["in"] in place of .in'),
])
def test_the_bracket_fix_names_the_whole_path(src, fix):
    e = cerr(src)
    assert e.message.endswith("use brackets: " + fix)


# SPEC 1: map keys are expressions, so `{name: "Ana"}` reads the variable `name`.
@pytest.mark.parametrize("src, col, says", [
    ('print({name: "Ana"})\n', 8,
     "'name' is not declared; map keys are expressions: write \"name\" (quoted) for a text "
     "key"),
    ('let m be {"a": 1, age: 3}\n', 19, "write \"age\" (quoted) for a text key"),
    ('print({type: "x"})\n', 8, "write \"type\" (quoted)"),       # not the type_of hint
    ('let name be 1\nprint({nam: 1})\n', 8,
     "write \"nam\" (quoted) for a text key, or did you mean 'name'?"),
    ('let f be (k) => {k: 1, later: 2}\n', 24, "write \"later\" (quoted) for a text key"),
    # a keyword as a key is refused by the parser, with the same fix
    ('let mail be {to: "a@b.c"}\n', 14,
     "'to' is a keyword and cannot be used as a name; map keys are expressions: write \"to\" "
     "(quoted) for a text key"),
    ('let m be {"a": 1, in: 2}\n', 19, "write \"in\" (quoted)"),
])
def test_an_undeclared_map_key_says_to_quote_it(src, col, says):
    e = cerr(src)
    assert says in e.message, e.message
    assert e.col == col
    assert "did you mean 'lower'" not in e.message        # builtins are no keys


def test_a_declared_name_as_a_key_is_its_value_and_a_value_gets_no_key_hint():
    compile_source('let name be "k"\nprint({name: "Ana"})\n', "n.syn")
    assert "map keys" not in cerr('print({"a": name})\n').message
    # what is known about the name comes first: it was a loop's variable
    e = cerr("for each x in [1]\n    print(x)\nprint({x: 1})\n")
    assert "the variable of the `for each` at line 1" in e.message


# SPEC 3: `set` of an undeclared name is `'x' is not declared; use let`.
@pytest.mark.parametrize("src, name, says", [
    ("set y to 1\n", "y", "'y' is not declared; use let to declare it"),
    ("let xs be 1\nset xz to 1\n", "xz",
     "'xz' is not declared; use let to declare it, or did you mean 'xs'?"),
    ("let m be {}\nset mm[\"a\"] to 1\n", "mm",
     "'mm' is not declared; use let to declare it, or did you mean 'm'?"),
])
def test_set_of_an_undeclared_name_starts_as_the_spec_says(src, name, says):
    e = cerr(src)
    assert e.message == says
    assert e.message.startswith(f"'{name}' is not declared; use let")
    assert "?;" not in e.message


# SPEC 1: the keywords are reserved; each, wherever a name must be, is refused one way.
_NAME_SLOTS = [
    "let K be 1\n",
    "set K to 1\n",
    "for each K in [1]\n    print(1)\n",
    "task K(a)\n    give a\n",
    "task f(K)\n    give 1\n",
    "task f(a, K)\n    give 1\n",
    "let g be (K) => 1\n",
    "let g be (a, K) => 1\n",
    "try\n    print(1)\nrecover K\n    print(1)\n",
]


@pytest.mark.parametrize("slot", _NAME_SLOTS)
@pytest.mark.parametrize("kw", KEYWORDS)
def test_every_keyword_where_a_name_must_be_says_it_is_a_keyword(slot, kw):
    src = slot.replace("K", kw)
    e = cerr(src)
    assert e.message == f"'{kw}' is a keyword and cannot be used as a name", (src, e.message)
    line = src.splitlines()[e.line - 1]
    assert line[e.col - 1:].startswith(kw), (src, e.line, e.col)


def test_runtime_hints_for_python_habits_on_maps_and_names():
    import synsema
    def err(src):
        with pytest.raises(synsema.RunError) as e:
            synsema.compile_source(src, "a.syn").run()
        return e.value.message
    assert "maps have no methods" in err('let d be {"a": 1}\nprint(d.get("a"))\n')
    assert "get(m, k)" in err('let d be {"a": 1}\nprint(d.keys())\n')
    assert "a parameter named text, say" in err('task shout(text)\n    give text(5)\n'
                                                'print(shout("a"))\n')
    assert "use get(m, k, default)" in err('let m be {"a": 1}\nprint(m["b"] + 1)\n')
    assert "use get(m, k, default)" in err('let m be {"a": 1}\nprint(m["b"] * 2)\n')
    assert "get(m, k, default)" not in err('print("a" * 2)\n')
