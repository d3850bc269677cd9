"""Synsema: an English-like scripting language for LLM agents.

The folders are the pipeline: compiler/ (source -> tokens -> tree -> resolved tree ->
bytecode), vm/ (opcode table, .synb files, verifier, the loop), stdlib/ (builtins),
cli/ (the `syn` command).
"""
__version__ = "0.1.0"
LANGUAGE_LEVEL = "0.6.46"
