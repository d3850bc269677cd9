"""SPEC 9 and 12: the same rules hold for `syn exec` of a .synb crafted by hand.

Every capability check happens in the builtins at the moment of use, against the set the
manifest and the ceiling give, "never through trust in the compiler or in the bytecode".
These tests compile a program, then edit its manifest, a task's requires or its code
before encoding it, as an attacker with a hex editor would, and run it with `syn exec`.
"""

import textwrap

import pytest

from synsema.compiler import compile_source
from synsema.vm import codec
from synsema.vm import opcodes as O
from synsema.vm.program import Function, Program


def build(src, edit=None):
    prog = compile_source(textwrap.dedent(src), "app.syn")
    if edit:
        edit(prog)
    return prog


def instrs(func):
    return list(O.iter_instructions(func.code))


def task(prog, name):
    return next(f for f in prog.functions if f.name == name and f.kind == "task")


@pytest.fixture
def exec_synb(syn, tmp_path):
    """exec_synb(program, *options) -> CompletedProcess of `syn exec` on its .synb."""
    counter = [0]

    def run(prog, *options):
        counter[0] += 1
        path = tmp_path / f"crafted{counter[0]}.synb"
        path.write_bytes(codec.encode(prog))
        return syn("exec", path, *options)
    return run


def test_code_calls_http_get_without_declaring_net(exec_synb):
    def edit(p):
        p.requires = []
    prog = build('require net("evil.com")\nlet r be http_get("https://evil.com/x")\n', edit)
    r = exec_synb(prog)
    assert r.returncode == 1
    assert 'http_get needs net("evil.com"); the program runs with [stdout]' in r.stderr
    r = exec_synb(prog, "--labels")
    assert r.returncode == 1 and 'http_get needs net("evil.com")' in r.stderr


def test_manifest_host_swapped_for_another_does_not_cover_the_call(exec_synb):
    def edit(p):
        p.requires = [("net", "api.weather.com")]
    prog = build('require net("evil.com")\nlet r be http_get("https://evil.com/x")\n', edit)
    r = exec_synb(prog, "--cap-set", "stdout,net=api.weather.com")
    assert r.returncode == 1
    assert ('http_get needs net("evil.com"); the program runs with [net("api.weather.com"), '
            'stdout]') in r.stderr


def test_task_require_that_the_manifest_lacks(exec_synb):
    src = '''\
        task steal()
            require net("api.weather.com")
            give http_get("https://evil.com/")
        let r be call_tool(steal, {})
    '''

    def edit(p):
        task(p, "steal").requires = [("net", "evil.com"), ("stdout",), ("llm", "c")]
    prog = build(src, edit)
    assert prog.requires == []
    r = exec_synb(prog)
    assert r.returncode == 1
    assert "http_get needs net(\"evil.com\"); tool 'steal' runs with [stdout]" in r.stderr
    # called normally it has the caller's set, which lacks net too
    prog2 = build(src.replace("call_tool(steal, {})", "steal()"), edit)
    r = exec_synb(prog2, "--labels")
    assert r.returncode == 1 and 'http_get needs net("evil.com")' in r.stderr


def test_manifest_requires_net_but_the_ceiling_refuses(exec_synb):
    def edit(p):
        p.requires = [("net", "evil.com"), ("llm", "customers")]
    prog = build('print("started")\n', edit)
    r = exec_synb(prog, "--cap-set", "stdout,net=api.weather.com,llm")
    assert r.returncode == 3
    assert 'net("evil.com")' in r.stderr and 'llm("customers")' in r.stderr
    assert "started" not in r.stdout
    r = exec_synb(prog, "--labels", "--cap-set", "stdout,net=*.evil.com,llm=customers@h.com")
    assert r.returncode == 3 and 'net("evil.com")' in r.stderr
    assert 'llm("customers")' not in r.stderr


def test_print_in_a_tool_with_no_requires(exec_synb):
    def edit(p):
        task(p, "loud").requires = []
    prog = build('''\
        task loud(x)
            require stdout
            print("tool says " + x)
        call_tool(loud, {"x": "hi"})
    ''', edit)
    r = exec_synb(prog)
    assert r.returncode == 1 and r.stdout == ""
    assert "print needs stdout; tool 'loud' runs with []" in r.stderr
    r = exec_synb(prog, "--labels")
    assert r.returncode == 1 and r.stdout == ""


def test_requires_on_the_top_level_function_grant_nothing(exec_synb):
    def edit(p):
        p.requires = []
        p.functions[0].requires = [("net", "evil.com")]
    prog = build('require net("evil.com")\nlet r be http_get("https://evil.com/")\n', edit)
    r = exec_synb(prog)
    # refused at load, or denied at use: never the network
    assert r.returncode == 1
    assert "not a valid .synb" in r.stderr or 'needs net("evil.com")' in r.stderr


def test_crafted_llm_require_checked_offline(exec_synb):
    def edit(p):
        p.requires = [("llm",)]
    prog = build('require llm("c")\nlet p be private("x", "c")\nlet a be ask(p)\n', edit)
    r = exec_synb(prog, "--labels")
    assert r.returncode == 3 and "label_violation" in r.stderr
    assert 'require llm("c")' in r.stderr

    def edit2(p):
        p.requires = []
    r = exec_synb(build('require llm\nlet a be ask("x")\n', edit2))
    assert r.returncode == 1 and "ask needs llm" in r.stderr


def test_print_without_stdout_in_ceiling_crafted_manifest(exec_synb):
    def edit(p):
        p.requires = [("llm",)]
    prog = build('print("hi")\n', edit)
    r = exec_synb(prog, "--cap-set", "llm")
    assert r.returncode == 1 and r.stdout == "" and "print needs stdout" in r.stderr

    def edit2(p):
        p.requires = [("stdout",)]
    r = exec_synb(build('print("hi")\n', edit2), "--cap-set", "llm")
    assert r.returncode == 3 and "stdout" in r.stderr


@pytest.mark.parametrize("cap", [("fs", "/etc"), ("net",), ("stdout", "x"), ("llm", 1),
                                 ("declassify", "c")])
def test_malformed_manifest_capability_is_refused(exec_synb, cap):
    def edit(p):
        p.requires = [cap]
    r = exec_synb(build('print("hi")\n', edit))
    assert r.returncode == 1 and "not a valid .synb" in r.stderr
    assert "Traceback" not in r.stderr


def test_manifest_host_pattern_must_be_a_valid_host(exec_synb):
    def edit(p):
        p.requires = [("net", "*.")]
    prog = build('require net("x.com")\ntry\n    http_get("http://nonexistent.invalid./")\n'
                 'recover e\n    print(e)\n', edit)
    r = exec_synb(prog)
    assert r.returncode == 1 and "not a valid .synb" in r.stderr


def test_unknown_builtin_name_is_refused(exec_synb):
    def edit(p):
        p.builtins[p.builtins.index("print")] = "system"
    r = exec_synb(build('print("hi")\n', edit))
    assert r.returncode == 1 and "not a valid .synb" in r.stderr and "system" in r.stderr


def test_internal_opcode_in_a_file_is_refused(exec_synb):
    """CALL_VM_BUILTIN (101) and other decoder-only opcodes never appear in a file."""
    def edit(p):
        code = p.functions[0].code
        off = next(o for o, op, _ in instrs(p.functions[0]) if op.name == "CALL_BUILTIN")
        code[off] = O.INTERNAL["CALL_VM_BUILTIN"]
    r = exec_synb(build('print("hi")\n', edit))
    assert r.returncode == 1 and "not a valid .synb" in r.stderr


def test_program_built_from_scratch(exec_synb):
    """A Program assembled by hand, no compiler: http_get with an empty manifest."""
    p = Program("scratch.syn")
    main = Function("<top level>", "main", 1, 1)
    p.functions.append(main)
    p.consts = ["https://evil.com/"]
    p.builtins = ["http_get"]
    main.code = [O.CONST, 0, O.CALL_BUILTIN, 0, 1, O.POP, O.CONST, 0, O.RETURN]
    main.positions = [(0, 1, 1)]
    r = exec_synb(p)
    assert r.returncode == 1 and 'http_get needs net("evil.com")' in r.stderr
    r = exec_synb(p, "--cap-set", "*")
    assert r.returncode == 1 and 'http_get needs net("evil.com")' in r.stderr


def test_labels_hold_for_crafted_code_explicit_flow(exec_synb):
    """Removing the private() call's effect is impossible: labels live in the VM."""
    prog = build('let s be private("x", "c")\nprint(s)\n')
    r = exec_synb(prog, "--labels")
    assert r.returncode == 3 and "label_violation" in r.stderr


def test_crafted_pc_release_cannot_end_a_labelled_branch_early(exec_synb):
    def edit(p):
        main = p.functions[0]
        ins = instrs(main)
        when_rid = next(a[1] for _, op, a in ins if op.name == "JUMP_IF_FALSE")
        and_release = [o for o, op, a in ins if op.name == "PC_RELEASE"][0]
        main.code[and_release + 1] = when_rid          # release the when's pc, not the and's
    prog = build('let s be private(true, "c")\nwhen s\n    let b be true and true\n'
                 '    print("secret is true")\n', edit)
    r = exec_synb(prog, "--labels")
    assert r.returncode == 3 and "label_violation" in r.stderr, r.stdout


def test_crafted_redeclare_cannot_bypass_no_sensitive_upgrade(exec_synb):
    def edit(p):
        main = p.functions[0]
        ins = instrs(main)
        off = next(o for o, op, _ in ins if op.name == "DECLARE_LOCAL")
        main.code[off] = O.DECLARE_GLOBAL
        main.code[off + 1] = p.globals.index("x")
    prog = build('let x be 0\nlet s be private(true, "c")\nwhen s\n    let y be 1\n'
                 'print(labels_of(x))\n', edit)
    r = exec_synb(prog, "--labels")
    # Refused either way: by the loader (the declaration no longer comes first on every
    # path) or, were it loaded, by no-sensitive-upgrade at run time.
    assert ((r.returncode == 3 and "label_violation" in r.stderr)
            or (r.returncode == 1 and r.stderr.startswith("not a valid .synb:"))), r.stdout


# SPEC 2: tasks and tests see the top-level variables declared outside every block. One
# declared in a block may not have been set, and whether it was is which way a branch went:
# a task reading it after a labelled branch would answer that with its `not set yet` error.

BLOCKS = [
    ("when s\n    let y be 1\n", 3),
    ("while s\n    let y be 1\n    break\n", 3),
    ("for each y in [1]\n    print(y)\n", 2),
    ("try\n    let y be 1\nrecover e\n    print(e)\n", 3),
    ("try\n    print(1)\nrecover y\n    print(y)\n", 4),
]


@pytest.mark.parametrize("block, line", BLOCKS)
def test_tasks_and_tests_do_not_see_a_variable_declared_in_a_block(block, line):
    from synsema.vm.errors import CompileError
    hint = (f"'y' is not declared here: it is declared at line {line} inside a top-level "
            "block, and tasks and tests see only the top-level variables declared outside "
            "every block; declare it before the block")
    head = 'let s be private(true, "c")\n' + block
    for user in ("task f()\n    give y\n", 'test "t"\n    assert_eq(y, 1)\n',
                 "task f()\n    let g be () => y\n    give g()\n"):
        with pytest.raises(CompileError) as e:
            compile_source(head + user, "app.syn")
        assert hint in str(e.value), str(e.value)


def test_tasks_see_top_level_variables_declared_anywhere_outside_blocks(exec_synb):
    # Below the task, and after blocks; lambdas inside a block see the block's variables.
    prog = build('''\
        task f()
            give x + 1
        when true
            let y be 2
            let g be () => y
            print(g())
        let x be 40
        print(f())
    ''')
    r = exec_synb(prog)
    assert (r.returncode, r.stdout) == (0, "2\n41\n"), r.stderr
    r = exec_synb(prog, "--labels")
    assert (r.returncode, r.stdout) == (0, "2\n41\n"), r.stderr


def test_crafted_task_reading_a_block_variable_is_refused(exec_synb):
    """The same rule holds for a file whose task names such a variable anyway."""
    def edit(p):
        f = task(p, "f")
        f.code = [O.LOAD_GLOBAL, p.globals.index("y"), O.RETURN]
        f.positions = [(0, 4, 5)]
    prog = build('let s be private(true, "c")\nwhen s\n    let y be 1\ntask f()\n'
                 '    give 0\ntry\n    print(f())\nrecover e\n    print("unset")\n', edit)
    for options in ((), ("--labels",)):
        r = exec_synb(prog, *options)
        assert r.returncode == 1 and r.stdout == "", r.stdout
        assert r.stderr.startswith("not a valid .synb: in task f, offset 0: LOAD_GLOBAL "
                                   "names top-level variable 'y'"), r.stderr


@pytest.mark.parametrize("body", ["let z be 1",
                                  "for each z in [1, 2]\n                    print(1)"])
def test_a_crafted_let_of_a_parameter_under_a_labelled_branch_is_a_checked_set(exec_synb,
                                                                               body):
    # The call declared the parameter's slot: a `let` of it (only a crafted file has one,
    # here made from `let z`, its slot dropped) is a `set`, refused under a labelled
    # branch (no sensitive upgrade), whether alone or the loop variable of a `for each`.
    def edit(p):
        f = task(p, "f")
        z = f.local_names.index("z")
        off = next(o for o, op, a in instrs(f) if op.name == "DECLARE_LOCAL" and a[0] == z)
        f.code[off + 1] = 0
        f.nlocals -= 1
        f.local_names = f.local_names[:z]
    prog = build(f'''\
        task f(x)
            when private(true, "c")
                {body}
            give x
        print(declassify(f(5), "shown"))
    ''', edit)
    r = exec_synb(prog, "--labels")
    assert r.returncode == 3 and "label_violation" in r.stderr, (r.stdout, r.stderr)
    assert exec_synb(prog).returncode == 0
