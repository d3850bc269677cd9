# Everything runs from a project-local virtualenv that this Makefile creates on first use,
# so a fresh clone needs nothing installed by hand (python3 with venv, and make).
PY ?= python3
VENV := .venv
SYN := $(VENV)/bin/syn
STAMP := $(VENV)/.installed

.PHONY: demo test bench conformance clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -e '.[test,batch,ray,mcp,editor]'
	touch $(STAMP)

# The main job: the example weather agent, a real multi-step tool-calling run replayed
# offline from its recorded cassette, with each step traced to stderr.
demo: $(STAMP)
	$(SYN) run examples/weather_agent.syn --cassette examples/weather_agent.cassette.jsonl --cassette-mode replay --trace

# The full test suite, shared conformance cases included (when ../shared exists).
test: $(STAMP)
	$(VENV)/bin/python -m pytest -q

conformance: $(STAMP)
	SYN=$(CURDIR)/$(SYN) $(VENV)/bin/python ../shared/conformance/run.py

bench: $(STAMP)
	$(VENV)/bin/python -m pytest bench/ --benchmark-only -q

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .benchmarks
