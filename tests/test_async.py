"""`async def` host tools and Program.call_async/run_async (issue 28, item 4)."""

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import synsema

SRC = '''require tool("fetch")
require tool("slow")
task f(x: text)
    give host_tool("fetch")(x)
task g(x: text)
    give host_tool("slow")(x)
'''
seen = []


@synsema.tool
async def fetch(x: str) -> str:
    """Fetch a page."""
    await asyncio.sleep(0.01)
    seen.append((asyncio.get_running_loop(), threading.current_thread()))
    return "got " + x


@synsema.tool
async def slow(x: str) -> str:
    """Take a long time."""
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        seen.append("cancelled")
        raise
    return x


TOOLS = [fetch, slow]
prog = synsema.compile_source(SRC, "a.syn")


def test_an_async_tool_works_from_the_sync_api():
    r = prog.call("f", {"x": "a"}, tools=TOOLS)
    assert r.value == "got a" and r.tool_calls == [("fetch", {"x": "a"}, "ok")]


def test_call_async_runs_async_tools_on_the_callers_loop():
    async def main():
        r = await prog.call_async("f", {"x": "b"}, tools=TOOLS)
        return r, asyncio.get_running_loop()
    r, loop = asyncio.run(main())
    assert r.value == "got b" and seen[-1][0] is loop
    assert asyncio.run(prog.run_async(tools=TOOLS)).value is None


def test_call_async_runs_many_calls_at_once():
    async def main():
        return await asyncio.gather(*(prog.call_async("f", {"x": str(i)}, tools=TOOLS)
                                      for i in range(8)))
    assert [r.value for r in asyncio.run(main())] == [f"got {i}" for i in range(8)]


def test_cancelling_call_async_cancels_the_tool_and_ends_the_run():
    async def main():
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(prog.call_async("g", {"x": "c"}, tools=TOOLS), 0.3)
    seen.clear()
    asyncio.run(main())
    assert seen == ["cancelled"]        # the tool was told, and the await waited for it


def test_a_tool_cancelled_at_the_time_limit_is_a_failed_call():
    seen.clear()
    with pytest.raises(synsema.RunError) as info:
        prog.call("g", {"x": "d"}, tools=TOOLS, timeout=0.3)
    assert "host tool 'slow' failed: cancelled" in info.value.message
    assert info.value.tool_calls == [("slow", {"x": "d"}, "failed")]
    assert seen == ["cancelled"]


def test_the_sync_api_from_inside_an_event_loop_runs_the_tool_on_a_loop_of_its_own():
    async def main():
        return prog.call("f", {"x": "e"}, tools=TOOLS).value
    assert asyncio.run(main()) == "got e"


def test_syn_run_tools_with_an_async_tool(tmp_path):
    (tmp_path / "atools.py").write_text(
        "import asyncio, synsema\n@synsema.tool\nasync def fetch(x: str) -> str:\n"
        "    '''Fetch.'''\n    await asyncio.sleep(0)\n    return 'got ' + x\n")
    (tmp_path / "a.syn").write_text('require tool("fetch")\nprint(host_tool("fetch")("z"))\n')
    p = subprocess.run([str(Path(sys.executable).with_name("syn")), "run", "--tools",
                        "atools:fetch", "a.syn"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, "got z\n", "")
