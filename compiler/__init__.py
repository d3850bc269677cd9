"""The compiler: source text -> tokens (lexer) -> tree (grammar) -> resolved tree
(resolve) -> bytecode (codegen), giving a vm.program.Program."""

import gc
from contextlib import contextmanager

from synsema.vm.errors import CompileError, PlanRejected
from synsema.vm.pystack import deep_recursion


def compile_source(source, source_name="<source>"):
    """Compile Synsema source text; raises CompileError with a position on bad input."""
    return compile_tree(source, source_name)[1]


def compile_plan(source, source_name="<plan>"):
    """Compile a plan (SPEC 17): Synsema in plan mode. Raises PlanRejected with every
    error found, in source order: the plan rules broken (compiler.plans) and the errors
    of the ordinary stages, each going on after an error (compiler.problems)."""
    from synsema.compiler.codegen import generate
    from synsema.compiler.parser import parse
    from synsema.compiler.lexer import tokenize
    from synsema.compiler.plans import Problems as PlanProblems
    from synsema.compiler.plans import check_tree
    from synsema.compiler.problems import Problems
    from synsema.compiler.resolve import resolve
    problems = Problems()
    rules = PlanProblems(source_name)
    tree = program = None
    with _compiling(source_name):
        try:
            toks = tokenize(source, source_name, problems)
            tree = parse(toks, source_name, problems)
            if tree is not None:
                check_tree(tree, rules, complete=not problems.errors)
            program = resolve(tree, source_name, problems, plan=True)
        except CompileError as e:           # what no stage goes on after
            problems.add(e)
        except RecursionError:
            problems.add(_too_deep(source_name))
        for e in problems.errors:
            rules.add_other(e.line, e.col, e.message)
        if rules.found or program is None:
            if not rules.found:
                rules.add(1, 1, "the plan could not be compiled")
            raise PlanRejected(rules.sorted())
        return generate(program, tree, source, source_name)

def compile_tree(source, source_name="<source>"):
    """(the resolved tree, the compiled program) of Synsema source text, for tools that
    read the tree as well (syn lsp); raises CompileError as compile_source does: the
    first error, with every error found (`errors`, in line order)."""
    tree, program, problems = _front(source, source_name)
    problems.raise_any()
    from synsema.compiler.codegen import generate
    with _compiling(source_name):
        return tree, generate(program, tree, source, source_name)


def analyse_source(source, source_name="<source>"):
    """(the tree, as far as it parses and resolves, or None; every error found, in line
    order) of Synsema source text, compiling nothing: for editors, which answer from a
    document that does not compile."""
    tree, _, problems = _front(source, source_name)
    try:
        problems.raise_any()
    except CompileError as e:
        return tree, e.errors
    return tree, []


def _front(source, source_name):
    """(tree or None, resolved program or None, Problems): lexer, parser and resolver,
    each recording its errors and going on (compiler.problems)."""
    from synsema.compiler.parser import parse
    from synsema.compiler.lexer import tokenize
    from synsema.compiler.problems import Problems
    from synsema.compiler.resolve import resolve
    problems = Problems()
    tree = program = None
    with _compiling(source_name):
        try:
            toks = tokenize(source, source_name, problems)
            tree = parse(toks, source_name, problems)
            program = resolve(tree, source_name, problems)
        except CompileError as e:           # what no stage goes on after
            problems.add(e)
        except RecursionError:
            problems.add(_too_deep(source_name))
    return tree, program, problems


def _too_deep(source_name):
    return CompileError("the program nests expressions or blocks too deeply to compile",
                        1, 1, source_name)


@contextmanager
def _compiling(source_name):
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
            yield
    except RecursionError:
        raise _too_deep(source_name) from None
    finally:
        if was_enabled:
            gc.enable()
