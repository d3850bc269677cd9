"""The runtime: what runs a compiled program for the API and the CLI, above the standard
library and below both (the layering: vm, compiler -> stdlib -> runtime -> api -> cli).

  runtime.machine  VM (a vm.machine.VM with the standard library as its host), Options
  runtime.run      run options checked and built, model providers, MCP servers, starting
                   and releasing a run
  runtime.threads  in_big_stack: a run on a thread with a deep stack, under its time limit
  runtime.report   error rendering: what a person reads of a failed compile or run

Its modules load on first use, so `syn exec` pays only for what it runs.
"""

# The deepest --max-depth (max_depth=): each call level holds memory (about 0.3 KB), so a
# limit with no end would let unbounded recursion take all of it; 100000 levels take ~30 MB.
MAX_DEPTH = 100000
