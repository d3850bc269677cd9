# Everything runs from a project-local virtualenv that this Makefile creates on first use,
# so a fresh clone needs nothing installed by hand (python3 with venv, and make).
PY ?= python3
VENV := .venv
SYN := $(VENV)/bin/syn
STAMP := $(VENV)/.installed
# The demo needs the core alone (ply, msgpack, click, requests): its own stamp, so a first
# `make demo` installs no Ray, MCP SDK or test tools; `make test` adds every extra.
CORE_STAMP := $(VENV)/.installed-core
PIP := $(VENV)/bin/python -m pip install -q --disable-pip-version-check

.PHONY: demo test test-fast bench conformance clean bench-agentdojo test-providers regen test-tier2

$(CORE_STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PY) -m venv $(VENV)
	$(PIP) -e .
	$(VENV)/bin/python -m compileall -q compiler vm stdlib runtime cli *.py
	touch $(CORE_STAMP)

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PY) -m venv $(VENV)
	$(PIP) -e '.[test,batch,ray,mcp,editor,otel,bench]'
	# An editable install never writes .pyc where PYTHONDONTWRITEBYTECODE is set: write
	# them once, or every start compiles every module (README, The syn command).
	$(VENV)/bin/python -m compileall -q compiler vm stdlib runtime cli *.py
	touch $(STAMP) $(CORE_STAMP)

# The main job: a planning agent (syn agent, SPEC 17) replayed offline from its cassette.
# A planner model sees only the request and the tools' catalog and writes a plan (shown on
# stderr), the plan runs under labels and the tools' contracts, and its answer is printed;
# the inbox holds a prompt injection, which changes nothing. The tape was recorded from a
# scripted local server on 127.0.0.1 playing the model, not from a hosted model: the plan
# and the quarantined model's answers are written by hand in tests/test_planner_example.py
# (tests/llm_server.py serves them), which records it again with
# `.venv/bin/python tests/test_planner_example.py record`.
demo: $(CORE_STAMP)
	$(SYN) agent "Pay my landlord the rent amount from her last mail." \
		--tools examples.planner.tools:attacked --labels \
		--cap-set "stdout,stdout=untrusted,tool=*,llm=untrusted@api.openai.com" \
		--cassette examples/planner/agent.cassette.jsonl --cassette-mode replay \
		--show-plan --trace

# The full test suite, shared conformance cases included (when ../shared exists), on one
# worker per core (pytest-xdist), then the check that every .syn in the repository is
# formatted (syn fmt). test-fast skips the tests marked slow (the long property runs, Ray,
# MCP servers): the inner loop; `make test` is what CI runs.
test: $(STAMP)
	$(VENV)/bin/python -m pytest -q -n auto --dist loadgroup
	$(MAKE) test-tier2
	@$(SYN) fmt --check .

# The tests that run programs, again with tier 2 (vm/tier2.py: tasks translated to Python
# functions, labels off and on) forced by SYN_TIER=2 (a CLI the tests start inherits it):
# the shared conformance suite, the VM's, the differential, hostile-file, error and limit
# tests, the labels and non-interference ones. SYN_TIER_STRICT=1: a program tier 2 fails
# to translate fails the test (no fall-back). The non-interference property runs 40 of its
# generated programs here (240 with the loop): each is translated afresh, at about a
# second a program (tests/test_tiers.py compares the tiers on them directly).
TIER2_TESTS := tests/test_vm.py tests/test_conformance.py tests/test_differential.py \
	tests/test_hostile_synb.py tests/test_hostile_cli.py tests/test_hand_crafted_synb.py \
	tests/test_noninterference.py tests/test_run_limits.py tests/test_all_errors.py \
	tests/test_internal_errors.py tests/test_source_lines.py tests/test_fuzz.py \
	tests/test_generated.py tests/test_values_correctness.py tests/test_stdlib_core.py \
	tests/test_api.py tests/test_host_calls.py tests/test_plans.py tests/test_threads.py \
	tests/test_decode_cache.py tests/test_index_local.py tests/test_accumulate.py \
	tests/test_labels.py tests/test_label_leaks.py tests/test_label_precision.py \
	tests/test_label_side_channels.py tests/test_noninterference_containers.py \
	tests/test_net_labels.py tests/test_provider_error_labels.py
test-tier2: $(STAMP)
	SYN_TIER=2 SYN_TIER_STRICT=1 SYN_NI_PROGRAMS=40 $(VENV)/bin/python -m pytest -q -n auto --dist loadgroup $(TIER2_TESTS)

# The same without the tests marked slow (a batch of 200,000 items, ...).
test-fast: $(STAMP)
	$(VENV)/bin/python -m pytest -q -n auto --dist loadgroup -m "not slow"

# Every generated file, from its source (tools/regen.py lists the generators: the VM loops
# and opcode data, the docs' opcode table and example outputs, the parser tables, the
# TextMate grammar, the example cassettes). A test fails while any is stale.
regen: $(STAMP)
	$(VENV)/bin/python tools/regen.py

conformance: $(STAMP)
	SYN=$(CURDIR)/$(SYN) $(VENV)/bin/python ../shared/conformance/run.py

bench: $(STAMP)
	$(VENV)/bin/python -m pytest bench/ --benchmark-only -q

# AgentDojo (bench/agentdojo/README.md): its own venv with the pinned package (~300 MB, so
# it stays out of .venv and `make test`); the run itself is offline (scripted models).
# ARGS narrows it, e.g. make bench-agentdojo ARGS="--suite banking --agent planner".
ADVENV := .venv-agentdojo
$(ADVENV)/.installed: pyproject.toml
	$(PY) -m venv $(ADVENV)
	$(ADVENV)/bin/python -m pip install -q --disable-pip-version-check -e . agentdojo==0.1.35
	touch $@

bench-agentdojo: $(ADVENV)/.installed
	$(ADVENV)/bin/python -m bench.agentdojo $(ARGS)
	$(ADVENV)/bin/python -m bench.agentdojo --table

# The provider wire against a real third-party server (bench/providers/run.py): LiteLLM's
# proxy on 127.0.0.1 answering offline from a mock configuration, both its OpenAI and
# Anthropic routes, the openai and anthropic SDKs as a control. Its own venv: the proxy is
# large (~400 MB), so it stays out of .venv.
PVENV := .venv-providers
$(PVENV)/.installed: pyproject.toml
	$(PY) -m venv $(PVENV)
	$(PVENV)/bin/python -m pip install -q --disable-pip-version-check -e . 'litellm[proxy]==1.108.7' 'openai>=1.0' 'anthropic>=0.30'
	touch $@

test-providers: $(PVENV)/.installed
	$(PVENV)/bin/python bench/providers/run.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .benchmarks
