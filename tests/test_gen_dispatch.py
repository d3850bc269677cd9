"""tools/gen_dispatch.py works on trees (ast): each rewrite it makes of an instruction's
body, on small bodies, and the instruction bodies themselves as valid Python."""

import ast
import textwrap

import pytest

from conftest import load_script

gen = load_script("tools/gen_dispatch.py")


def src(text):
    return gen.parse(textwrap.dedent(text))


def out(stmts):
    return "\n".join(gen.unparse(stmts))


def same(stmts, text):
    """The statements are the Python of `text` (compared as trees, not as layout)."""
    assert ast.dump(ast.Module(stmts, [])) == ast.dump(ast.parse(textwrap.dedent(text))), \
        out(stmts)


# ---- the bodies -------------------------------------------------------------------------

def test_every_body_and_fragment_is_python_and_uses_no_old_markup():
    ns = gen.load()
    for ins in ns["INSTRUCTIONS"]:
        gen.parse(ins["body"] or "")
        assert "$" not in (ins["body"] or "") and "[[" not in (ins["body"] or ""), ins["name"]
    for name, text in ns["FRAGMENTS"].items():
        gen.parse(text)
    gen.parse(ns["LOOP"])


def test_a_body_for_each_loop_has_no_labels_left_in_the_plain_one():
    ns = gen.load()
    for ins in ns["INSTRUCTIONS"]:
        for labels in (False, True):
            names = gen.names_in(gen.body_of(ins, ns["FRAGMENTS"], labels))
            assert "LABELS" not in names and "FRAGMENT" not in names, ins["name"]
            if not labels:
                assert "Labeled" not in names, ins["name"]


# ---- folding ----------------------------------------------------------------------------

def test_folding_keeps_the_branches_of_the_mode():
    body = src("""\
        if LABELS and x:
            a()
        elif y:
            b()
        else:
            c()
        """)
    same(gen.fold_tree(body, True), "if x:\n    a()\nelif y:\n    b()\nelse:\n    c()")
    body = src("if LABELS and x:\n    a()\nelif y:\n    b()\nelse:\n    c()")
    same(gen.fold_tree(body, False), "if y:\n    b()\nelse:\n    c()")
    same(gen.fold_tree(src("if LABELS:\n    a()\nelse:\n    b()"), False), "b()")
    same(gen.fold_tree(src("if LABELS:\n    a()\nelse:\n    b()"), True), "a()")
    same(gen.fold_tree(src("if LABELS:\n    a()"), False), "")


def test_folding_inline_label_parts():
    body = ("if type(x) is list and (not LABELS or type(v) is not Labeled and not vm.pc) "
            "and n:\n    f((a, b) if LABELS else (a,))")
    same(gen.fold_tree(src(body), False), "if type(x) is list and n:\n    f((a,))")
    same(gen.fold_tree(src(body), True),
         "if type(x) is list and type(v) is not Labeled and not vm.pc and n:\n    f((a, b))")


def test_a_decided_test_keeps_a_call_before_it():
    # `f() and False` still calls f: only effect-free operands are dropped.
    same(gen.fold_tree(src("if f() and LABELS:\n    a()"), False), "if f() and False:\n    a()")
    same(gen.fold_tree(src("if type(x) is int and LABELS:\n    a()"), False), "")


def test_known_facts_decide_tests():
    equal, truthy = gen.facts("b", {"name": "CONST"}, 1, {"when": "type(A[1][0]) is int and "
                                                               "A[1][0]"}, {})
    body = src("""\
        if type(a) is int and type(b) is int and b:
            r = a % b
        elif type(a) is Labeled or type(b) is Labeled:
            r = slow(a, b)
        else:
            r = mod(a, b)
        """)
    same(gen.fold_tree(body, equal=equal, truthy=truthy),
         "if type(a) is int:\n    r = a % b\nelif type(a) is Labeled:\n    r = slow(a, b)\n"
         "else:\n    r = mod(a, b)")
    # Without the decoder's word that the constant is not 0, that test stays.
    equal, truthy = gen.facts("b", {"name": "CONST"}, 1, {"when": "type(A[1][0]) is int"}, {})
    same(gen.fold_tree(src("if type(b) is int and b:\n    x()"), equal=equal, truthy=truthy),
         "if b:\n    x()")


def test_a_bool_is_false_or_true():
    equal, _ = gen.facts("c", {"name": "LT", "gives": "bool"}, 0, None, {})
    body = src("if c is False:\n    j()\nelif c is not True:\n    raise E()")
    same(gen.fold_tree(body, equal=equal), "if c is False:\n    j()")


# ---- operands, fragments, renames -------------------------------------------------------

def test_operands_become_fields_of_the_operand_tuple():
    body = src("x = locals_[OP.s]\nJUMP(OP.t)")
    same([gen.Operands(["s", "t"], 2, False).visit(s) for s in body],
         "x = locals_[arg[2]]\nJUMP(arg[3])")
    same([gen.Operands(["s"], 0, True).visit(s) for s in src("v = locals_[OP.s]")],
         "v = locals_[arg]")
    with pytest.raises(ValueError, match="OP.rid: no such decoded field"):
        gen.Operands(["t"], 0, True).visit(src("f(OP.rid)")[0])


def test_fragments_expand_in_place_and_nest():
    frags = {"outer": "a = 1\nFRAGMENT.inner()", "inner": "b = 2"}
    tree = gen.Fragments(frags).visit(ast.Module(src("x()\nFRAGMENT.outer()\ny()"), []))
    same(tree.body, "x()\na = 1\nb = 2\ny()")


def test_renames_touch_variables_only():
    same(gen.rename_tree(src("r = a.r + f(r=a)"), {"r": "v", "a": "b"}), "v = b.r + f(r=b)")


def test_a_threaded_jump_is_not_taken():
    same([gen.Threaded().visit(s) for s in src("JUMP(arg)")], "head = arg")


# ---- the handler passes -----------------------------------------------------------------

def test_jumps():
    same(gen.jumps(src("if c:\n    JUMP(t)\nx()")), "if c:\n    pc = t\n    continue\nx()")


def test_peephole_drops_a_continue_that_ends_the_handler():
    same(gen.peephole(src("if c:\n    pc = t\n    continue\nelse:\n    x()")),
         "if c:\n    pc = t\nelse:\n    x()")
    # Not one that skips what follows.
    same(gen.peephole(src("if c:\n    pc = t\n    continue\nx()")),
         "if c:\n    pc = t\n    continue\nx()")


def test_peephole_inlines_a_value_used_once_next():
    same(gen.peephole(src("a = x.y\nr = a + 1\npush(r)")), "push(x.y + 1)")
    # A pop is a call: it stays where it is, unless it is the whole of the next value.
    same(gen.peephole(src("a = pop()\nr = a + 1\npush(r)")), "a = pop()\npush(a + 1)")
    same(gen.peephole(src("a = pop()\nr = a\npush(r)")), "push(pop())")
    # A call moves only when it is the whole of what the next statement computes...
    same(gen.peephole(src("a = f()\nb = g() + a")), "a = f()\nb = g() + a")
    same(gen.peephole(src("a = f()\npush(a)")), "push(f())")
    # ...and nothing moves past a pop.
    same(gen.peephole(src("a = x.y\nb = pop() + a")), "a = x.y\nb = pop() + a")


def test_peephole_operand_fields_and_unused_pops():
    same(gen.peephole(src("s = arg[0]\nx = locals_[s]\ny = g(locals_[s])\nf(x, y)")),
         "x = locals_[arg[0]]\ny = g(locals_[arg[0]])\nf(x, y)")
    same(gen.peephole(src("a = pop()\nb = stack[-1]\nf()")), "pop()\nf()")


def test_peephole_moves_a_slot_read_past_other_slot_reads():
    same(gen.peephole(src("x = locals_[a]\npush(locals_[b])\nx.append(1)")),
         "push(locals_[b])\nlocals_[a].append(1)")


def test_unpack_reads_the_operand_tuple_once():
    same(gen.unpack(src("f(arg[0], arg[1])\ng(arg[0])"), ["s", "t", "rid"]),
         "s, t, _ = arg\nf(s, t)\ng(s)")
    # Too few reads: left alone.
    body = src("f(arg[0])")
    assert gen.unpack(body, ["s", "t"]) is body
    # A name the body uses already gets the field's number.
    same(gen.unpack(src("s = 1\nf(arg[0], arg[1], s)"), ["s", "t"]),
         "s0, t = arg\ns = 1\nf(s0, t, s)")


def test_aliases():
    same(gen.aliases(src("x = y\nf(x)\ng(x)")), "f(y)\ng(y)")
    # Not when y changes after.
    same(gen.aliases(src("x = y\ny = g()\nf(x)")), "x = y\ny = g()\nf(x)")
    # A number is propagated the same way.
    same(gen.aliases(src("n = 1\nf(n)")), "f(1)")
    # Up to x's next assignment in the same block.
    same(gen.aliases(src("x = y\nf(x)\nx = z()\ng(x)")), "f(y)\nx = z()\ng(x)")
    # Not when x is set again deeper (both values reach the read after).
    body = "x = y\nif c:\n    x = z()\nf(x)"
    same(gen.aliases(src(body)), body)


def test_sink_all_moves_the_use_into_each_branch():
    same(gen.sink_all(src("if c:\n    r = a\nelse:\n    r = b\npush(r)")),
         "if c:\n    push(a)\nelse:\n    push(b)")
    # Not without an else (r would be unset), nor when r is read again.
    body = "if c:\n    r = a\npush(r)"
    same(gen.sink_all(src(body)), body)
    body = "if c:\n    r = a\nelse:\n    r = b\npush(r)\nf(r)"
    same(gen.sink_all(src(body)), body)


def test_sink_test_tests_where_the_bool_is_made():
    body = "if c1:\n    c = a < b\nelse:\n    c = lt(a, b)\nif c is False:\n    JUMP(t)"
    same(gen.sink_test(src(body), {"c"}),
         "if c1:\n    if not a < b:\n        JUMP(t)\nelif not lt(a, b):\n    JUMP(t)")
    same(gen.sink_test(src("c = f(x)\nif c is False:\n    JUMP(t)"), {"c"}),
         "if not f(x):\n    JUMP(t)")
    # Only for a value known to be a bool.
    body = "c = f(x)\nif c is False:\n    JUMP(t)"
    same(gen.sink_test(src(body), set()), body)


def test_split_fast_gives_the_int_path_its_own_tail():
    body = """\
        if type(a) is int and type(b) is int:
            r = a + b
        elif type(a) is Labeled:
            r = slow(a, b)
        else:
            r = add(a, b)
        if type(r) is Labeled:
            g(r)
        push(r)
        """
    same(gen.split_fast(src(body), set()), """\
        if type(a) is int and type(b) is int:
            r = a + b
            push(r)
        else:
            if type(a) is Labeled:
                r = slow(a, b)
            else:
                r = add(a, b)
            if type(r) is Labeled:
                g(r)
            push(r)
        """)


def test_guarded_records_the_part_that_raised():
    same(gen.guarded(src("r = x[i]"), 2),
         "try:\n    r = x[i]\nexcept Exception:\n    vm.part = 2\n    raise")


# ---- the loader's facts -----------------------------------------------------------------

def test_a_decoding_follows_the_operand_kinds_unless_the_instruction_says():
    codes = {"CONST": 1, "JUMP_IF_FALSE": 30, "JUMP": 29, "JUMP_BACK": 100, "X": 7}
    assert gen.decoder(dict(name="CONST", code=1, operands=("const k",)), codes) == \
        "lambda a, c: (1, c.consts[a[0]])"
    assert gen.decoder(dict(name="X", code=7, operands=()), codes) == "lambda a, c: (7, None)"
    assert gen.decoder(dict(name="JUMP_IF_FALSE", code=30, operands=("jump t", "rid rid")),
                       codes) == \
        "lambda a, c: (30, (c.at[a[0]], a[1]) if c.labels else c.at[a[0]])"
    assert gen.decoder(dict(name="JUMP", code=29, operands=("jump t",),
                            decode="(JUMP_BACK if c.at[a[0]] <= c.here else JUMP, 0)"),
                       codes) == "lambda a, c: (100 if c.at[a[0]] <= c.here else 29, 0)"


def test_opcode_constants_are_assignments_editors_can_see():
    from synsema.vm import opcodes as O
    from synsema.vm import optable
    tree = ast.parse(open(optable.__file__).read())
    assigned = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                for t in n.targets if isinstance(t, ast.Name) and
                isinstance(n.value, ast.Constant) and type(n.value.value) is int}
    for op in O.OPS:
        assert assigned[op.name] == op.code == getattr(O, op.name)
    for name, code in O.INTERNAL.items():
        assert assigned[name] == code == getattr(O, name)
    assert "globals()" not in open(O.__file__).read()
