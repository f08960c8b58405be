"""Epics on GitHub: a discovery dialogue, a plan of tasks as sub-issues with "blocked
by" dependencies, a conductor that starts ready tasks within parallel slots, a circuit breaker,
budgets. Pure rules over plain data, like the rest of `core`; `run.py` reads and writes GitHub.

* `route`: the epic's rules for `decide` enter here (`on_epic`), by event kind;
* `phases`: the epic's phases and its memory in the record, shared by the rules below;
* `dialogue`: the discovery dialogue with turn limits, and the specification's approval;
* `planning`: the planning agent's plan checked (`task_graph`), then created as sub-issues;
* `task_graph`: a planning agent's tasks validated as a dependency graph (cycles named);
* `comments`: the epic's commands and replies in each phase (`commands` parses them);
* `passes`: the conductor's pass applied to the record, the breaker, the budget, completion;
* `conductor`: which tasks start, which wait, which are blocked, in which slots;
* `breaker`: the circuit breaker over task failures;
* `tasks`: a task sub-issue's rules tied to its epic.

The epic's model is `core/model/epic.py`, its words `core/text/epic.py` and
`core/text/epic_plan.py`; what agents spent is `core/rules/budget.py`, for any issue.
"""
