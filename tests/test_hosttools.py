"""Host tools declared in Python (SPEC 15.1): signatures, docstrings, value conversion,
toolboxes and `--tools MODULE:NAME` targets (stdlib/hosttools.py)."""

import collections
import dataclasses
import datetime
import enum
import subprocess
import sys
import textwrap
import typing
from typing import Any, Literal, Optional

import pytest

import synsema
from synsema.stdlib import hosttools as H
from synsema.stdlib.hosttools import (HostTool, ToolError, ToolTargetError, catalog_entry,
                                      to_synsema)
from synsema.stdlib.tooldocs import parse_docstring
from synsema.stdlib.toolbox import Toolbox, collect, load_target
from synsema.vm.errors import SynError
from synsema.vm.values import TRUE_KEY, Closure
from synsema.vm.program import Function


def spec(fn):
    return fn.__synsema_tool__


def params(fn):
    return [(p.name, p.type, p.has_default, p.default) for p in spec(fn).params]


# ---- the root package ------------------------------------------------------------------

def test_root_package_exposes_the_api_lazily():
    code = ("import sys, synsema; assert 'synsema.stdlib.hosttools' not in sys.modules; "
            "assert synsema.tool is synsema.stdlib.hosttools.tool; "
            "assert synsema.Toolbox and synsema.HostTool; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        synsema.nope


# ---- declaring -------------------------------------------------------------------------

def test_decorator_with_and_without_arguments_keeps_the_function():
    @synsema.tool
    def add(a: int, b: int = 1) -> int:
        return a + b

    @synsema.tool(name="math.mul", result_labels=["untrusted"])
    def mul(a: int, b: int) -> int:
        return a * b

    assert add(2) == 3 and add(2, b=5) == 7 and mul(3, 4) == 12
    assert isinstance(spec(add), HostTool) and spec(add).name == "add"
    assert spec(mul).name == "math.mul" and spec(mul).result_labels == {"untrusted"}
    assert spec(add).fn is add and repr(spec(mul)) == "<host tool math.mul>"
    with pytest.raises(AttributeError, match="immutable"):
        spec(add).name = "x"


def test_bound_method_gets_the_callable_host_tool():
    class Bank:
        def balance(self, account: str) -> int:
            return len(account)

    t = synsema.tool(Bank().balance, name="bank.balance")
    assert isinstance(t, HostTool) and t("abc") == 3
    assert [p.name for p in t.params] == ["account"]


def test_each_python_type_maps_to_its_synsema_type():
    @synsema.tool
    def f(s: str, i: int, x: float, b: bool, l: list, li: list[int], t: tuple,
          tt: tuple[int, ...], d: dict, dd: dict[str, int], a: Any, n, o: object,
          li2: typing.List[str], num: int | float):
        pass

    assert [p.spec() for p in spec(f).params] == [
        "s: text", "i: number", "x: number", "b: bool", "l: list", "li: list", "t: list",
        "tt: list", "d: map", "dd: map", "a: any", "n: any", "o: any", "li2: list",
        "num: number"]
    assert not any(p.has_default for p in spec(f).params)


def test_optional_gets_default_nothing_unless_python_gives_another():
    @synsema.tool
    def f(a: int | None, b: Optional[str], c: Optional[list[int]] = [1, 2],
          d: str | None = "x", e: int = None, g: bool = True, h: tuple = (1, "a")):
        pass

    assert params(f) == [("a", "number", True, None), ("b", "text", True, None),
                         ("c", "list", True, [1, 2]), ("d", "text", True, "x"),
                         ("e", "number", True, None), ("g", "bool", True, True),
                         ("h", "list", True, [1, "a"])]


def test_string_annotations_are_resolved(tmp_path, monkeypatch):
    (tmp_path / "strann.py").write_text(textwrap.dedent('''
        from __future__ import annotations
        import synsema
        Number = int

        @synsema.tool
        def f(a: int, b: list[str] | None, c: Number = None) -> dict:
            pass
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = __import__("strann")
    try:
        assert [p.spec() for p in spec(mod.f).params] == ["a: number", "b: list", "c: number"]
    finally:
        del sys.modules["strann"]


def test_unresolvable_string_annotation_is_a_registration_error():
    def f(a: "Missing"):  # noqa: F821
        pass
    with pytest.raises(ToolError, match=r"host tool 'f': cannot read its annotations "
                                        r"\(NameError: name 'Missing' is not defined\); "
                                        r"define or import every name"):
        synsema.tool(f)


def test_literal_and_enum_are_text_or_number_with_choices():
    class Color(enum.Enum):
        RED = "red"
        GREEN = "green"

    class Level(enum.IntEnum):
        LOW = 1
        HIGH = 2

    @synsema.tool
    def f(unit: Literal["c", "f"], color: Color, level: Level = Level.LOW,
          n: Literal[1, 2] = 1, flag: Optional[Literal[True]] = None):
        return [unit, color, level, n]

    ps = spec(f).params
    assert [p.spec() for p in ps] == ["unit: text", "color: text", "level: number",
                                      "n: number", "flag: bool"]
    assert ps[0].choices == ("c", "f") and ps[1].choices == ("red", "green")
    assert ps[2].default == 1 and ps[2].has_default
    assert spec(f).invoke({"unit": "c", "color": "green", "level": 2.0}) == ["c", "green", 2, 1]
    with pytest.raises(SynError, match=r"'unit' must be one of \"c\", \"f\", got \"k\""):
        spec(f).invoke({"unit": "k", "color": "red"})
    with pytest.raises(SynError, match=r"'color' must be one of \"red\", \"green\", got \"blue\""):
        spec(f).invoke({"unit": "c", "color": "blue"})


def test_enum_parameter_receives_the_member():
    class Color(enum.Enum):
        RED = "red"

    got = []

    @synsema.tool
    def f(color: Color):
        got.append(color)

    spec(f).invoke({"color": "red"})
    assert got == [Color.RED]


@pytest.mark.parametrize("source, message", [
    ("def f(*args): pass",
     r"host tool 'f': parameter '\*args' cannot be declared; .*name each parameter "
     r"\(or take one list: args: list\)"),
    ("def f(**kw): pass",
     r"host tool 'f': parameter '\*\*kw' cannot be declared; .*take one map: kw: dict"),
    ("def f(a, /, b): pass",
     r"host tool 'f': parameter 'a' is positional-only; .*remove the '/'"),
    ("def f(a: set[int]): pass",
     r"host tool 'f': parameter 'a' has the type set\[int\], which Synsema has no type "
     r"for; use str, int"),
    ("def f(a: int | str): pass", r"parameter 'a' has the type int \| str, which Synsema"),
    ("def f(a: datetime.date): pass", r"parameter 'a' has the type datetime.date"),
    ("def f(a: Literal['x', 1]): pass", r"parameter 'a' has the type"),
    ("def f(a=object()): pass",
     r"host tool 'f': parameter 'a': its default <object object at .*> is not a Synsema "
     r"value \(type object\); use None as the default"),
    ("def f(a={'k': {1, 2}}): pass",
     r"its default .* is not a Synsema value \(type set at \[\"k\"\]\)"),
])
def test_registration_errors_name_the_tool_the_parameter_and_the_fix(source, message):
    scope = {"Literal": Literal, "datetime": datetime}
    exec(source, scope)
    with pytest.raises(ToolError, match=message):
        synsema.tool(scope["f"])


@pytest.mark.parametrize("kwargs, message", [
    ({"name": "bank..send"}, r"host tool name 'bank..send' is not a dotted identifier"),
    ({"name": "1bank"}, r"'1bank' is not a dotted identifier like 'bank.send_money'"),
    ({"name": "send-money"}, r"not a dotted identifier"),
    ({"result_labels": "untrusted"},
     r"host tool 'f': result_labels must be a list of label names, got the text "
     r"'untrusted'; write \['untrusted'\]"),
    ({"result_labels": ["a b"]}, r"result_labels has 'a b', which is not a label name"),
    ({"accepts": {"amont": ["x"]}},
     r"host tool 'f': accepts names 'amont', which is not one of its parameters; "
     r"did you mean 'amount'\?"),
    ({"accepts": {"zzzzzz": ["x"]}}, r"not one of its parameters \(use \"\*\" for every"),
    ({"accepts": {"amount": "x"}}, r"accepts\['amount'\] must be a list of label names"),
    ({"accepts": ["amount"]}, r"accepts must be a map from parameter names"),
])
def test_name_and_label_errors(kwargs, message):
    def f(amount: int):
        pass
    with pytest.raises(ToolError, match=message):
        synsema.tool(f, **kwargs)


def test_lambda_needs_a_name():
    with pytest.raises(ToolError, match=r"'<lambda>' is not a dotted identifier.*name="):
        synsema.tool(lambda x: x)
    assert spec(synsema.tool(lambda x: x, name="ident")).name == "ident"
    with pytest.raises(ToolError, match="a host tool must be a function, got a value of "
                                        "type int"):
        synsema.tool(5)


def test_accepts_merges_star_into_every_parameter():
    @synsema.tool(accepts={"amount": ["untrusted"], "*": ["public-ish"]})
    def send(recipient: str, amount: float):
        pass

    t = spec(send)
    assert t.accepts["recipient"] == {"public-ish"}
    assert t.accepts["amount"] == {"untrusted", "public-ish"}
    assert t.accepts_all == {"public-ish"}

    @synsema.tool
    def plain(a):
        pass
    assert spec(plain).accepts["a"] == frozenset() and spec(plain).accepts_all == frozenset()


# ---- docstrings ------------------------------------------------------------------------

def test_sphinx_docstring():
    @synsema.tool
    def read_file(file_path: str, encoding: str = "utf-8", limit: int = 0):
        """Read a file from the user's drive,
        relative to the home folder.

        Second paragraph, not part of the description.

        :param file_path: the file's path
        :param str encoding: the text encoding,
            as Python names it
        :param int limit:
        :returns: the text
        :raises OSError: when it cannot be read
        """

    t = spec(read_file)
    assert t.description == ("Read a file from the user's drive, relative to the home "
                             "folder.")
    assert [p.description for p in t.params] == [
        "the file's path", "the text encoding, as Python names it", ""]


def test_google_docstring():
    @synsema.tool
    def search(query: str, max_results: int = 10, filters: Optional[dict] = None):
        """Search the web.
        Args:
            query (str): What to search for. Long descriptions
                continue on the next lines.
            max_results: How many results
                to give.

            filters (dict, optional): Key/value filters: site, lang.
        Returns:
            list: the results
        """

    t = spec(search)
    assert t.description == "Search the web."
    assert [p.description for p in t.params] == [
        "What to search for. Long descriptions continue on the next lines.",
        "How many results to give.", "Key/value filters: site, lang."]


def test_numpy_docstring():
    @synsema.tool
    def resample(x: list, y: list, rate: float = 1.0):
        """Resample a series.

        Parameters
        ----------
        x, y : list
            The points,
            in order.
        rate : float, optional
            Samples per second.

        Returns
        -------
        list
            The new points.
        """

    assert [p.description for p in spec(resample).params] == [
        "The points, in order.", "The points, in order.", "Samples per second."]


def test_docstring_edge_cases():
    assert parse_docstring("") == ("", {})
    assert parse_docstring(":param a: only fields") == ("", {"a": "only fields"})
    assert parse_docstring("Do it.\nArgs:\n    a: the a") == ("Do it.", {"a": "the a"})
    assert parse_docstring("Note: colons are fine.\n") == ("Note: colons are fine.", {})

    @synsema.tool(description="Given by hand")
    def f(a):
        """From the docstring."""
    assert spec(f).description == "Given by hand"


# ---- results -----------------------------------------------------------------------------

@dataclasses.dataclass
class Point:
    x: int
    y: float
    tags: list = dataclasses.field(default_factory=list)


class Color(enum.Enum):
    RED = "red"


class FakeModelV2:
    """Duck-typed like a pydantic v2 model."""

    def __init__(self, **fields):
        self.fields = fields

    def model_dump(self, mode="python"):
        assert mode == "json"
        return dict(self.fields)


class FakeModelV1:
    __fields__ = {"a": None}

    def __init__(self, **fields):
        self.fields = fields

    def dict(self):
        return dict(self.fields)


def test_result_conversion_of_each_kind():
    Pair = collections.namedtuple("Pair", "left right")

    class Sub(str):
        pass

    assert to_synsema("a", "t") == "a" and to_synsema(3, "t") == 3
    assert to_synsema(2.5, "t") == 2.5 and to_synsema(None, "t") is None
    assert to_synsema(True, "t") is True and type(to_synsema(Sub("x"), "t")) is str
    assert to_synsema((1, [2, (3,)]), "t") == [1, [2, [3]]]
    assert to_synsema({"a": 1, 2: "b", 2.5: "c"}, "t") == {"a": 1, 2: "b", 2.5: "c"}
    converted = to_synsema({True: 1}, "t")
    assert list(converted) == [TRUE_KEY]
    assert to_synsema(Point(1, 2.0, ["a"]), "t") == {"x": 1, "y": 2.0, "tags": ["a"]}
    assert to_synsema(FakeModelV2(a=1, p=[Point(0, 0)]), "t") == {
        "a": 1, "p": [{"x": 0, "y": 0, "tags": []}]}
    assert to_synsema(FakeModelV1(a={"b": (1,)}), "t") == {"a": {"b": [1]}}
    assert to_synsema(Color.RED, "t") == "red"
    assert to_synsema({Color.RED: enum.IntEnum("N", "ONE")(1)}, "t") == {"red": 1}
    assert to_synsema(datetime.date(2024, 5, 1), "t") == "2024-05-01"
    assert to_synsema(datetime.datetime(2024, 5, 1, 9, 30), "t") == "2024-05-01T09:30:00"
    assert to_synsema(Pair(1, "b"), "t") == {"left": 1, "right": "b"}


def test_bool_stays_bool_and_int_stays_int():
    out = to_synsema([True, 1, 0, False, 1.0], "t")
    assert [type(x) for x in out] == [bool, int, int, bool, float]


@pytest.mark.parametrize("value, what", [
    ({1, 2}, "type set"),
    (object(), "type object"),
    (Point, "type type"),
    ({"rows": [1, 2, b"x"]}, r'type bytes at \["rows"\]\[2\]'),
    ([Point(1, {3})], r"type set at \[0\]\.y"),
    ({(1, 2): "a"}, "a map key of type tuple"),
])
def test_unsupported_results_name_the_type(value, what):
    with pytest.raises(SynError, match=r"^host tool 'bank.x' returned a value Synsema "
                                       rf"cannot hold \({what}\)$"):
        to_synsema(value, "bank.x")


def test_cycles_and_depth_are_refused():
    xs = [1]
    xs.append(xs)
    with pytest.raises(SynError, match=r"cannot hold \(a cycle: it contains itself at \[1\]\)"):
        to_synsema(xs, "t")
    shared = [1]
    assert to_synsema([shared, shared], "t") == [[1], [1]]      # shared, not a cycle
    deep = []
    for _ in range(H.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(SynError, match=r"nested deeper than 100 levels"):
        to_synsema(deep, "t")
    ok = []
    for _ in range(H.MAX_DEPTH - 1):
        ok = [ok]
    assert to_synsema(ok, "t") == ok


# ---- invoking ------------------------------------------------------------------------------

def test_invoke_converts_arguments_and_fills_defaults():
    seen = {}

    @synsema.tool
    def f(xs: list, t: tuple, m: dict, n: int, opt: str | None, d: str = "x", free=None):
        seen.update(xs=xs, t=t, m=m, n=n, opt=opt, d=d, free=free)
        xs.append("changed")
        return {"n": n}

    xs = [1, [2]]
    m = {"a": [1], TRUE_KEY: 2}
    assert spec(f).invoke({"xs": xs, "t": [1, 2], "m": m, "n": 6.0}) == {"n": 6}
    assert xs == [1, [2]]                         # the caller's list is not changed
    assert seen["t"] == (1, 2) and seen["m"] == {"a": [1], True: 2}
    assert type(seen["n"]) is int and seen["opt"] is None and seen["d"] == "x"
    with pytest.raises(SynError, match=r"host tool 'f': 'n' must be a whole number, got 2.5"):
        spec(f).invoke({"xs": [], "t": [], "m": {}, "n": 2.5})
    with pytest.raises(SynError, match=r"host tool 'f' has no parameter 'mm'; did you mean 'm'\?"):
        spec(f).invoke({"mm": 1})


def test_keyword_only_parameters_are_named_arguments():
    @synsema.tool
    def f(a: int, *, b: int = 2, c: str):
        return [a, b, c]

    assert [p.spec() for p in spec(f).params] == ["a: number", "b: number", "c: text"]
    assert spec(f).invoke({"c": "x", "a": 1}) == [1, 2, "x"]


def test_invoke_refuses_task_values():
    task = Closure(Function("add", "task", 1))

    @synsema.tool
    def f(a):
        return a
    with pytest.raises(SynError, match=r"host tool 'f' cannot take 'a': it holds a task value "
                                       r"\(<task add>\) at \[1\]; pass data Python can hold"):
        spec(f).invoke({"a": [1, task]})


def test_invoke_turns_exceptions_and_bad_results_into_synsema_errors():
    @synsema.tool
    def read_file(file_path: str) -> str:
        raise FileNotFoundError(f"no such file '{file_path}'\nsecond line")

    @synsema.tool
    def bad():
        return {1, 2}

    with pytest.raises(SynError) as e:
        spec(read_file).invoke({"file_path": "a.txt"})
    assert e.value.message == ("host tool 'read_file' failed: FileNotFoundError: "
                               "no such file 'a.txt'")
    with pytest.raises(SynError, match=r"^host tool 'bad' returned a value Synsema cannot "
                                       r"hold \(type set\)$"):
        spec(bad).invoke({})


# ---- catalogs ------------------------------------------------------------------------------

def test_catalog_entry_has_tool_specs_keys_and_parameter_descriptions():
    @synsema.tool(name="weather.get")
    def get_weather(city: str, unit: Literal["c", "f"] = "c", days=1):
        """Current weather for a city.

        :param city: the city's name
        """

    entry = catalog_entry(spec(get_weather))
    assert entry == {"name": "weather.get", "describe": "Current weather for a city.",
                     "params": ["city: text", "unit: text", "days: any"],
                     "optional": ["unit", "days"],
                     "param_describe": {"city": "the city's name",
                                        "unit": 'one of "c", "f"'}}
    assert list(entry) == ["name", "describe", "params", "optional", "param_describe"]
    assert catalog_entry(spec(get_weather), "Weather")["describe"] == "Weather"


    @synsema.tool
    def convert(unit: Literal["c", "f"]):
        """Convert.

        Args:
            unit: the target unit
        """
    assert catalog_entry(spec(convert))["param_describe"] == {
        "unit": 'the target unit (one of "c", "f")'}


# ---- toolboxes and collect -------------------------------------------------------------------

def test_toolbox_prefixes_names_it_declares():
    bank = Toolbox("bank")

    @bank.tool
    def send_money(to: str, amount: float):
        return amount

    @bank.tool(name="get_balance")
    def balance():
        return 1

    @bank.tool(name="audit.log")
    def log(line: str):
        pass

    def plain(x: int):
        return x

    added = bank.add(plain)

    @synsema.tool
    def elsewhere():
        pass
    bank.add(elsewhere)

    assert [t.name for t in bank] == ["bank.send_money", "bank.get_balance", "audit.log",
                                      "bank.plain", "elsewhere"]
    assert len(bank) == 5 and "bank.plain" in bank and added.name == "bank.plain"
    assert bank["bank.send_money"] is spec(send_money) and send_money("x", 2) == 2
    assert not hasattr(plain, "__synsema_tool__")
    with pytest.raises(KeyError, match="did you mean 'bank.plain'"):
        bank["bank.plan"]
    bank.add(elsewhere)                                        # the same tool again: fine
    with pytest.raises(ToolError, match=r"two host tools are named 'bank.plain': "
                                        r".*plain and .*<lambda>; give one of them another name"):
        bank.add(synsema.tool(lambda x: x, name="bank.plain"))
    with pytest.raises(ToolError, match="not a dotted identifier"):
        Toolbox("bad name")


def test_toolbox_from_a_list_and_merge():
    @synsema.tool
    def a():
        pass

    @synsema.tool
    def b():
        pass

    one = Toolbox("one", [a])
    assert [t.name for t in one] == ["a"]
    both = Toolbox.merge(one, [b])
    assert [t.name for t in both] == ["a", "b"] and both.name is None
    unnamed = Toolbox()

    @unnamed.tool
    def c():
        pass
    assert [t.name for t in unnamed] == ["c"]


def test_collect_accepts_each_form_and_refuses_duplicates_and_others():
    @synsema.tool
    def a():
        pass

    @synsema.tool(name="a")
    def other_a():
        pass

    tb = Toolbox("tb")

    @tb.tool
    def b():
        pass

    assert list(collect(a)) == ["a"] and list(collect(spec(a))) == ["a"]
    assert list(collect([a, (tb,), a])) == ["a", "tb.b"]
    assert collect(tb)["tb.b"] is spec(b)
    with pytest.raises(ToolError, match=r"two host tools are named 'a': "
                                        r"test_hosttools\..*\.a and test_hosttools\..*other_a"):
        collect([a, other_a])

    def undecorated():
        pass
    with pytest.raises(ToolError, match=r"the function 'undecorated' is not a host tool; "
                                        r"give a function decorated with @synsema.tool"):
        collect([a, undecorated])
    with pytest.raises(ToolError, match=r"a value of type int \(5\) is not a host tool"):
        collect(5)


# ---- --tools MODULE:NAME ------------------------------------------------------------------

@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A working directory for tool modules; sys.path and sys.modules restored after."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def write(folder, name, source):
    (folder / f"{name}.py").write_text(textwrap.dedent(source))


def test_load_target_finds_a_module_in_the_working_directory(workdir):
    write(workdir, "mytools_ok", '''
        import synsema
        bank = synsema.Toolbox("bank")

        @bank.tool
        def send(amount: float):
            return amount

        @synsema.tool
        def read(path: str):
            return path

        everything = [read, bank]
        class Holder:
            box = bank
    ''')
    assert list(load_target("mytools_ok:bank")) == ["bank.send"]
    assert list(load_target("mytools_ok:everything")) == ["read", "bank.send"]
    assert list(load_target("mytools_ok:read")) == ["read"]
    assert list(load_target(" mytools_ok : Holder.box ")) == ["bank.send"]
    assert str(workdir) in sys.path


@pytest.mark.parametrize("target, message", [
    ("mytools", r"--tools needs MODULE:NAME \(for example mytools:toolbox\), got 'mytools'"),
    ("mytools:", r"--tools needs MODULE:NAME"),
    (":bank", r"--tools needs MODULE:NAME"),
    ("mytools.py:bank", r"write the module's import name, not a file \(for example "
                        r"mytools:bank, run from its folder\)"),
    ("no_such_module_xyz:bank", r"--tools no_such_module_xyz:bank: no module named "
                                r"'no_such_module_xyz' \(looked in .* and the Python path\)"),
    ("tools_err:bank", r"--tools tools_err:bank: importing 'tools_err' failed: "
                       r"ZeroDivisionError: division by zero$"),
    ("tools_dep:bank", r"importing 'tools_dep' failed: ModuleNotFoundError: No module named "
                       r"'not_installed_dep'"),
    ("tools_syntax:bank", r"importing 'tools_syntax' failed: SyntaxError: "),
    ("tools_exit:bank", r"importing 'tools_exit' failed: SystemExit: 3"),
    ("tools_decl:bank", r"--tools tools_decl:bank: host tool 'f': parameter '\*args'"),
    ("tools_fine:bnak", r"--tools tools_fine:bnak: module 'tools_fine' has no 'bnak'; "
                        r"did you mean 'bank'\?$"),
    ("tools_fine:zzzzzz", r"module 'tools_fine' has no 'zzzzzz'$"),
    ("tools_fine:number", r"--tools tools_fine:number: a value of type int \(5\) is not a "
                          r"host tool; give a function decorated with @synsema.tool, a list "
                          r"of them, or a synsema.Toolbox"),
    ("tools_fine:helper", r"the function 'helper' is not a host tool"),
    ("tools_fine:dups", r"two host tools are named 'x'"),
])
def test_load_target_errors(workdir, target, message):
    write(workdir, "tools_err", "x = 1 / 0\n")
    write(workdir, "tools_dep", "import not_installed_dep\n")
    write(workdir, "tools_syntax", "def (:\n")
    write(workdir, "tools_exit", "import sys\nsys.exit(3)\n")
    write(workdir, "tools_decl", '''
        import synsema
        @synsema.tool
        def f(*args):
            pass
    ''')
    write(workdir, "tools_fine", '''
        import synsema
        bank = synsema.Toolbox("bank")
        number = 5
        def helper():
            pass
        dups = [synsema.tool(lambda: 1, name="x"), synsema.tool(lambda: 2, name="x")]
    ''')
    with pytest.raises(ToolTargetError, match=message) as e:
        load_target(target)
    assert isinstance(e.value, ToolError) and "\n" not in str(e.value)


def test_a_host_tool_without_parameter_descriptions_has_tool_specs_four_keys():
    @synsema.tool(name="plain.send")
    def send(to: str, memo: str = ""):
        """Send it."""
        return to

    entry = catalog_entry(spec(send))
    assert list(entry) == ["name", "describe", "params", "optional"]      # SPEC 5


def test_a_return_annotation_adds_returns_and_nothing_else():
    @synsema.tool(name="plain.send")
    def send(to: str, memo: str = "") -> str:
        """Send it."""
        return to

    entry = catalog_entry(spec(send))
    assert list(entry) == ["name", "describe", "params", "optional", "returns"]
    assert entry["returns"] == {"type": "string"}
