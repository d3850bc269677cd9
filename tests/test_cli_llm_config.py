"""Provider settings are read only by programs that can reach a model (`require llm`)."""


def test_a_program_without_require_llm_ignores_ambiguous_provider_keys(syn, write):
    write("hi.syn", 'print("hi")\n')
    r = syn("run", "hi.syn", env={"OPENAI_API_KEY": "k1", "ANTHROPIC_API_KEY": "k2"})
    assert r.returncode == 0 and r.stdout == "hi\n", r.stderr


def test_a_program_with_require_llm_is_told_to_choose_a_provider(syn, write):
    write("agent.syn", "require llm\nprint(llm_available())\n")
    r = syn("run", "agent.syn", env={"OPENAI_API_KEY": "k1", "ANTHROPIC_API_KEY": "k2"})
    assert r.returncode == 2 and "SYN_LLM_API" in r.stderr
    assert "k1" not in r.stderr and "k2" not in r.stderr
    r = syn("run", "agent.syn", env={"OPENAI_API_KEY": "k1", "ANTHROPIC_API_KEY": "k2",
                                     "SYN_LLM_API": "anthropic"})
    assert r.returncode == 0 and r.stdout == "true\n", r.stderr


def test_a_task_level_require_llm_counts_too(syn, write):
    write("t.syn", "task ask_it(q)\n    require llm\n    give ask(q)\nprint(1)\n")
    r = syn("run", "t.syn", env={"OPENAI_API_KEY": "k1", "ANTHROPIC_API_KEY": "k2"})
    assert r.returncode == 2 and "SYN_LLM_API" in r.stderr
