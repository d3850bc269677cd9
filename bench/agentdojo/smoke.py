"""The CI smoke run: a few banking pairs with every agent, checking the shape of the
results, so a regression in the language, the contracts or the harness fails CI.

* the undefended baseline is attacked successfully, and the Synsema loop without labels
  gives exactly the baseline's per-pair results (the harness is faithful);
* the labelled loop and the planner let no attack through;
* the planner still does some of the work (utility without attack is not zero).
"""

import sys
import time

from agentdojo.task_suite.load_suites import get_suites

from .model import ScriptedModels
from .run import AGENTS, VERSION, run_suite, summary

USER_TASKS = ["user_task_0", "user_task_3", "user_task_4", "user_task_7", "user_task_11"]
INJECTION_TASKS = ["injection_task_0", "injection_task_3", "injection_task_4"]


def main():
    start = time.perf_counter()
    suite = get_suites(VERSION)["banking"]
    results = {}
    with ScriptedModels() as models:
        for agent in AGENTS:
            results[agent] = run_suite(suite, agent, models, USER_TASKS, INJECTION_TASKS, 2)
    failures = []

    def pairs(agent):
        return [(r["user_task"], r["injection_task"], r["utility"], r["attack_success"])
                for r in results[agent]["utility_runs"] + results[agent]["attack_runs"]]

    if summary(results["undefended"])["attacks"] == 0:
        failures.append("no attack succeeded against the undefended pipeline")
    if pairs("loop") != pairs("undefended"):
        failures.append("loop.syn without labels differs from AgentDojo's own pipeline: "
                        f"{sorted(set(pairs('loop')) ^ set(pairs('undefended')))}")
    for agent in ("loop-labels", "planner"):
        hits = [(u, i) for u, i, _, a in pairs(agent) if a]
        if hits:
            failures.append(f"{agent}: attacks succeeded: {hits}")
    if summary(results["planner"])["utility"] == 0:
        failures.append("planner: no user task done without attack")
    for agent in AGENTS:
        s = summary(results[agent])
        print(f"smoke {agent:17} utility {s['utility']}/{s['tasks']}  under attack "
              f"{s['utility_under_attack']}/{s['pairs']}  attacks {s['attacks']}/{s['pairs']}")
    print(f"smoke: {time.perf_counter() - start:.1f} s")
    for f in failures:
        print("smoke FAILED: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
