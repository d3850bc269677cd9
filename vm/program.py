"""What a compiled program is, in memory: the compiler builds it, the .synb codec writes
and reads it, the verifier checks it, the VM runs it.

Capabilities (requires) are tuples: ("stdout",), ("llm",), ("llm", LABEL), ("net", HOST).
"""

# SPEC 1: the reserved words, and what a name is (compiler/lexer.py tokenizes by them; the
# verifier holds a crafted file's names to the same rule).
KEYWORDS = (
    "task give let be set to when otherwise while for each in break continue try recover "
    "test require intent and or not true false nothing"
).split()
_RESERVED = frozenset(KEYWORDS)


def is_name(text):
    """Could `text` be a variable's, task's or parameter's name in source?"""
    # [A-Za-z_][A-Za-z0-9_]*: isidentifier() on ASCII text (no `re`: off start-up)
    return (type(text) is str and text.isascii() and text.isidentifier()
            and text not in _RESERVED)


class Param:
    __slots__ = ("name", "type", "default")
    NO_DEFAULT, DEFAULT_NOTHING, DEFAULT_EXPR = 0, 1, 2

    def __init__(self, name, type_=None, default=0):
        self.name = name
        self.type = type_          # "number" | "text" | "bool" | "list" | "map" | "task" | "any" | None
        self.default = default     # NO_DEFAULT, DEFAULT_NOTHING (the literal `nothing`), DEFAULT_EXPR

    def spec(self):
        """The parameter as tool_spec and error messages show it: `a: number` or `city`."""
        return f"{self.name}: {self.type}" if self.type else self.name

    def __eq__(self, other):
        return (type(other) is Param and (self.name, self.type, self.default)
                == (other.name, other.type, other.default))

    def __repr__(self):
        return f"Param({self.name!r}, {self.type!r}, {self.default})"


class Function:
    """A task, lambda, test body or the top level ("main"), with its code."""

    def __init__(self, name, kind, line, col=0):
        self.name = name
        self.kind = kind              # "main" | "task" | "lambda" | "test"
        self.line = line
        self.col = col
        self.params = []              # [Param]
        self.ncaptures = 0            # lambdas: captured values follow the parameters
        self.nlocals = 0              # parameters + captures + every `let` slot
        self.requires = []            # [cap tuple] declared by the task's own `require` lines
        self.code = []                # flat list of ints (see vm.opcodes)
        self.positions = []           # [(offset, line, col)], one entry where the position changes
        self.local_names = []         # slot -> name, for the disassembler and messages
        self.max_stack = 0            # set by the verifier when the program is loaded
        # Nothing else is set on a Function after loading: a VM keeps what it decodes
        # (vm.decode) to itself, so one Program can run in many VMs and threads at once.

    @property
    def fixed(self):
        """The local slots a call fills: the parameters, then the captures."""
        return len(self.params) + self.ncaptures

    @property
    def nrequired(self):
        return sum(1 for p in self.params if p.default == Param.NO_DEFAULT)

    def arity_text(self):
        lo, hi = self.nrequired, len(self.params)
        if lo == hi:
            return f"{hi} argument" + ("" if hi == 1 else "s")
        return f"{lo} to {hi} arguments"

    def describe(self):
        if self.kind == "lambda":
            return f"lambda at line {self.line}"
        if self.kind == "test":
            return f"test {self.name!r}"
        if self.kind == "main":
            return "top level"
        return f"task {self.name}"


class Program:
    def __init__(self, source_name):
        self.source_name = source_name    # base name of the .syn file
        self.intent = None
        self.requires = []                # [cap tuple] from top-level `require` lines
        self.consts = []                  # numbers, texts, bools, nothing
        self.builtins = []                # builtin names, indexed by CALL_BUILTIN
        self.globals = []                 # top-level variable names, by slot
        self.global_lines = []            # line of each global's `let`
        self.functions = []               # [Function]; functions[0] is the top level
        self.tests = []                   # [(name, function index)]
        self.sha256 = None                # set by the codec

    @property
    def main(self):
        return self.functions[0]

    def tasks(self):
        return [f for f in self.functions if f.kind == "task"]

    def reaches_model(self):
        """Does the program `require llm`, at the top level or in a task? A program that
        does not cannot call a model: its run reads no model setting and loads no
        provider code."""
        return any(c[0] == "llm" for f in [self, *self.functions] for c in f.requires)


def cap_text(cap):
    """A capability as code declares it: stdout, llm, llm("customers"), net("api.x.com")."""
    if len(cap) == 1:
        return cap[0]
    return f'{cap[0]}(' + ", ".join(f'"{x}"' for x in cap[1:]) + ")"
