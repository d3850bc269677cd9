"""The compiler: source text -> tokens (lexer) -> tree (grammar) -> resolved tree
(resolve) -> bytecode (codegen), giving a vm.program.Program."""

import gc

from synsema.vm.errors import CompileError, PlanRejected
from synsema.vm.pystack import deep_recursion


def compile_source(source, source_name="<source>"):
    """Compile Synsema source text; raises CompileError with a position on bad input."""
    return compile_tree(source, source_name)[1]


def compile_plan(source, source_name="<plan>"):
    """Compile a plan (SPEC 17): Synsema in plan mode. Raises PlanRejected with every
    error found, in source order: the plan rules broken (compiler.plans) and the first
    error of the ordinary stages."""
    from synsema.compiler.codegen import generate
    from synsema.compiler.grammar import parse
    from synsema.compiler.lexer import tokenize
    from synsema.compiler.plans import Problems, check_tokens, check_tree
    from synsema.compiler.resolve import resolve
    from synsema.stdlib.registry import load_all

    load_all()
    problems = Problems(source_name)
    was_enabled = gc.isenabled()
    gc.disable()
    toks = None
    try:
        with deep_recursion():
            try:
                toks = tokenize(source, source_name)
                tree = parse(toks, source_name)
            except CompileError as e:
                if toks is not None:
                    check_tokens(toks, (e.line, e.col), problems)
                problems.add(e.line, e.col, e.message)
                raise PlanRejected(problems.sorted()) from None
            check_tree(tree, problems)
            try:
                program = resolve(tree, source_name, plan=True)
                if not problems.found:
                    return generate(program, tree, source, source_name)
            except CompileError as e:
                problems.add_other(e.line, e.col, e.message)
            raise PlanRejected(problems.sorted())
    except RecursionError:
        raise PlanRejected([CompileError("the plan nests expressions or blocks too deeply "
                                         "to compile", 1, 1, source_name)]) from None
    finally:
        if was_enabled:
            gc.enable()


def compile_tree(source, source_name="<source>"):
    """(the resolved tree, the compiled program) of Synsema source text, for tools that
    read the tree as well (syn lsp); raises CompileError as compile_source does."""
    from synsema.compiler.codegen import generate
    from synsema.compiler.grammar import parse
    from synsema.compiler.lexer import tokenize
    from synsema.compiler.resolve import resolve
    from synsema.stdlib.registry import load_all

    load_all()
    # The stages walk the tree recursively: a sum of N terms is N levels deep. Python's
    # default limit (1000) would refuse a sum CPython itself compiles; pure Python calls
    # do not grow the C stack, so a higher limit is safe while compiling (vm.pystack puts
    # the host's back after).
    # Compiling allocates many small objects that all live until it ends (tokens, tree
    # nodes): the cyclic garbage collector would keep scanning them for nothing.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with deep_recursion():
            toks = tokenize(source, source_name)
            tree = parse(toks, source_name)
            program = resolve(tree, source_name)
            return tree, generate(program, tree, source, source_name)
    except RecursionError:
        raise CompileError("the program nests expressions or blocks too deeply to compile",
                           1, 1, source_name) from None
    finally:
        if was_enabled:
            gc.enable()
