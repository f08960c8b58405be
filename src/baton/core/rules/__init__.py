"""The rules: `decide` (`rules.route`), every rule of the workflow as one pure function of plain
data, and the rules it asks.

No I/O and no clock (the time is the event's `at`). The result is a `Decision` that `apply`
carries out. This package imports nothing itself, so the fast path's `triage` and `labels`
(and the `core.model.commands` they read a comment with) load no pydantic. Each group of rules
has a module, in the order a reader meets them:

* `admission`: a trigger label or a status label from a maintainer, or an opened issue when the
  config enters every issue;
* `reports`: a proposed next state applies only if the table allows it, otherwise the PM rules
  pick; failures climb the retry ladder (the same agent with feedback, then a fresh context,
  then a human);
* `humans`: replies and approvals in waiting states, escalation commands;
* `relabels`: forced relabels, refused ones, unknown status labels, the trigger label;
* `context`: what every rule shares, the moves, loop detection and max iterations
  (which escalate to a human), the retry ladder and escalation;
* `lifecycle`: reopened and closed issues, dispatched runs, and time: waiting states that
  outlive their timeout move on, silent agents are dispatched again;
* `pull_requests`: the issue's own pull request steering it along the workflow's routes:
  approvers' reviews, the merge or close, failing checks on the branch head;
* `work_product`: the branch made on entering a state that changes code, the pull request
  marked ready and its description kept current, and the move into the ready state refused
  when GitHub would not open it;
* `conclude`: labels that disagree with the record are repaired, and the repair is reported;
  every rule's draft becomes a `Decision` there, its work product projected like its labels;
* `route`: `decide` itself, which sends each event to the rule for its kind;
* `spending`, `budget`: what agents spent, and a budget that holds the next agent;
* `repo_breaker`: the repository-wide circuit breaker;
* `epic/`: an epic's rules and its tasks';
* and the rules these ask: `authority` (who may do what), `pm_rules` (the PM rules: the first
  whose `when` holds picks the next state), `catchup` (missed comments),
  `labels` and `triage` (the fast path's).
"""
