#!/bin/sh
# The CI smoke run of the AgentDojo bench (bench/agentdojo/smoke.py): builds
# .venv-agentdojo when it is missing, then runs a few banking and travel pairs with every
# agent (the Synsema plan agent plan-syn too), against both attackers (scripted and strong).
set -e
cd "$(dirname "$0")/../.."
make -s .venv-agentdojo/.installed
exec .venv-agentdojo/bin/python -m bench.agentdojo.smoke
