"""Descriptions everywhere (issue 28, item 7): a task's doc comment describes it and its
parameters (compiler.doc, shared by the LSP hover and `syn serve --mcp`); a Python tool
without a docstring is a synsema.ToolWarning where it is declared."""

import warnings

import pytest

import synsema
from synsema.cli.lsp import analyse
from synsema.compiler.doc import task_doc

SRC = '''-- unrelated comment

-- Look up the weather of a city.
-- It answers in Celsius.
-- city: the city's name,
--   as the user wrote it
-- days: how many days ahead
-- note: not a parameter, so part of the text above
task forecast(city: text, days: number = 0)
    give city
'''


def test_a_doc_comment_describes_the_task_and_each_parameter():
    lines = SRC.splitlines()
    about, params = task_doc(lines, 9, ["city", "days"])
    assert params == {"city": "the city's name, as the user wrote it",
                      "days": "how many days ahead note: not a parameter, so part of the "
                              "text above"}
    assert about == "Look up the weather of a city.\nIt answers in Celsius."
    assert task_doc(lines, 1, ["x"]) == ("", {})
    assert task_doc(["task f(x)"], 1, ["x"]) == ("", {})


def test_the_hover_still_shows_the_doc_comment():
    a, _ = analyse(SRC)
    hover = a.hover(("task", 1))
    assert "Look up the weather of a city." in hover and "days: how many days ahead" in hover


def test_a_python_tool_without_a_docstring_warns_where_it_is_declared():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @synsema.tool
        def bare(x: int) -> int:
            return x
        line = bare.__code__.co_firstlineno             # the decorator (or def) line
    assert [w.category for w in caught] == [synsema.ToolWarning]
    assert issubclass(synsema.ToolWarning, UserWarning)
    assert "host tool 'bare' has no docstring" in str(caught[0].message)
    assert caught[0].filename == __file__ and caught[0].lineno in (line, line + 1)


@pytest.mark.parametrize("declare", [
    lambda: synsema.tool(name="one", description="Adds one.")(lambda x: x),
    lambda: synsema.Toolbox("t").add(_documented),
])
def test_a_described_tool_does_not_warn(declare):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        declare()


def _documented(x: int) -> int:
    """Add one."""
    return x + 1
