"""The embedding API and program files given values of the wrong kind (SPEC 16: every
failure is a synsema.Error): a usage error that says what was expected, never a raw Python
exception, a silent misreading (a text of labels read as its characters) or a host's file
descriptor closed (audit=True). A program path that never ends (/dev/zero) is refused at
a size."""

import pytest

import synsema

PROGRAM = synsema.compile_source("task go(x)\n    give x\n", "g.syn")


@pytest.mark.parametrize("keywords, says", [
    ({"labels": True, "args_labels": "customers"}, "args_labels must be a list of label names"),
    ({"cap_set": 5}, "cap_set must be a text of ceiling items"),
    ({"cap_set": [1, 2]}, "or a list of them\\), got a list with an item that is not a text"),
])
def test_api_settings_of_the_wrong_type_are_usage_errors(keywords, says):
    with pytest.raises(synsema.UsageError, match=says) as e:
        PROGRAM.call("go", {"x": 1}, **keywords)
    assert e.value.exit_code == 2


def test_api_cap_set_may_be_a_list_of_items():
    assert PROGRAM.call("go", {"x": 1}, cap_set=["stdout", "llm"]).value == 1
    with pytest.raises(synsema.Refused):
        synsema.compile_source("require llm\nprint(1)\n", "n.syn").run(cap_set=["stdout"])


def test_api_call_needs_a_task_name():
    with pytest.raises(synsema.UsageError, match="call needs the name of a task"):
        PROGRAM.call(None)


@pytest.mark.parametrize("make, says", [
    (lambda: synsema.Provider(url=5), "url= must be a text, got int"),
    (lambda: synsema.Provider(model=["m"]), "model= must be a text, got list"),
    (lambda: synsema.compile_source(b"print(1)\n"), "needs the source as a text"),
    (lambda: synsema.compile_source(None), "needs the source as a text"),
    (lambda: synsema.compile_source("print(1)\n", 5), "name= must be a text"),
    (lambda: PROGRAM.call("go", {"x": 1}, audit=True), "audit= must be the path of a file"),
    (lambda: PROGRAM.call("go", {"x": 1}, audit=1), "audit= must be the path of a file"),
    (lambda: PROGRAM.call("go", {"x": 1}, provider="x"), "provider must be a synsema.Provider"),
    (lambda: PROGRAM.run(cap_set="bogus"), r"cap_set: 'bogus' is not a capability"),
])
def test_api_values_of_the_wrong_kind_are_usage_errors(make, says):
    with pytest.raises(synsema.UsageError, match=says):
        make()


def test_audit_true_leaves_the_hosts_stdout_open(capfd):
    with pytest.raises(synsema.UsageError):
        PROGRAM.call("go", {"x": 1}, audit=True)
    print("still here")
    assert capfd.readouterr().out == "still here\n"


@pytest.mark.parametrize("opener", [synsema.compile_file, synsema.load])
def test_a_program_file_that_never_ends_is_refused_at_a_size(opener):
    with pytest.raises(OSError, match="more than the 16 MiB a program file may hold"):
        opener("/dev/zero")


@pytest.mark.parametrize("command", ["run", "exec", "check", "outline", "dis", "test", "fmt"])
def test_every_command_refuses_an_endless_program_file(syn, command):
    r = syn(command, "/dev/zero", timeout=30)
    assert r.returncode == 2
    assert "cannot read /dev/zero: it holds more than the 16 MiB" in r.stderr


def test_a_task_parameter_cannot_come_from_outside():
    prog = synsema.compile_source("task go(f: task, x = 1)\n    give f(x)\n"
                                  "task opt(x, f: task = nothing)\n    give x\n", "g.syn")
    with pytest.raises(synsema.ArgumentError, match="'f' is a task parameter, and a task "
                                                    "cannot come from outside the program"):
        prog.call("go", {})
    assert prog.call("opt", {"x": 2}).value == 2      # an optional one may stay unset


AGENT = synsema.compile_source('print("top")\ntask answer(q: text, n: number = 1)\n    give q\n',
                               "c1.syn")


def test_a_bad_argument_labelled_by_args_labels_is_withheld():
    with pytest.raises(synsema.ArgumentError) as e:
        AGENT.call("answer", {"q": 3}, labels=True, args_labels=["cust"])
    assert e.value.message == ("c1.syn: error: bad arguments for task 'answer': (message "
                               "withheld: labelled cust)")
    assert e.value.labels == {"cust"}
    # which keys there are is the host's own (SPEC 14 labels values): said as it is
    with pytest.raises(synsema.ArgumentError, match="has no parameter 'r'"):
        AGENT.call("answer", {"r": 3}, labels=True, args_labels=["cust"])


def test_a_failed_call_keeps_what_the_top_level_printed():
    with pytest.raises(synsema.ArgumentError) as e:
        AGENT.call("answer", {"q": 3})
    assert e.value.output == "top\n"


@pytest.mark.parametrize("bad", [3, None, 2.5, ["a.synb"]])
def test_a_program_path_that_is_not_a_path_is_a_usage_error(bad):
    # An int would be taken by open() as a file descriptor of the host's, and closed.
    for fn in (synsema.load, synsema.compile_file):
        with pytest.raises(synsema.UsageError, match="a program path must be a str"):
            fn(bad)
