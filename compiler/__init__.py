"""The compiler: source text -> tokens (lexer) -> tree (grammar) -> resolved tree
(resolve) -> bytecode (codegen), giving a vm.program.Program."""

import gc

from synsema.vm.errors import CompileError
from synsema.vm.pystack import deep_recursion


def compile_source(source, source_name="<source>"):
    """Compile Synsema source text; raises CompileError with a position on bad input."""
    return compile_tree(source, source_name)[1]


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
