"""Epics: seed 002 on GitHub. A discovery dialogue, a plan of tasks as sub-issues with "blocked
by" dependencies, a conductor that starts ready tasks within parallel slots, a circuit breaker,
budgets. Pure rules over plain data, like the rest of `core`; `run.py` reads and writes GitHub.

* `model`: the epic's memory in its record, a task's link to its epic, the orders and
  observations that travel between the two;
* `plan`: a planning agent's tasks validated as a dependency graph (cycles named);
* `discovery`: the dialogue with turn limits, and the specification's approval;
* `conductor`: which tasks start, which wait, which are blocked, in which slots;
* `breaker`: seed 002's circuit breaker over task failures;
* `budget`: what agents spent and whether a budget stops the next one;
* `render`: the task table and the plan's mermaid graph for the record comment;
* `commands`: the epic's comment commands.

The epic's and the tasks' rules for `decide` are `core/rules/epic/route.py` and `tasks.py`.
"""
