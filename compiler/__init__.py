"""The compiler: source text -> tokens (lexer) -> tree (grammar) -> resolved tree
(resolve) -> bytecode (codegen), giving a vm.program.Program."""

from synsema.vm.errors import CompileError


def compile_source(source, source_name="<source>"):
    """Compile Synsema source text; raises CompileError with a position on bad input."""
    from synsema.compiler.codegen import generate
    from synsema.compiler.grammar import parse
    from synsema.compiler.lexer import tokenize
    from synsema.compiler.resolve import resolve
    from synsema.stdlib.registry import load_all

    load_all()
    try:
        toks = tokenize(source, source_name)
        tree = parse(toks, source_name)
        program = resolve(tree, source_name)
        return generate(program, tree, source, source_name)
    except RecursionError:
        raise CompileError("the program nests expressions or blocks too deeply to compile",
                           1, 1, source_name) from None
