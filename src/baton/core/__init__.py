"""The rules: `decide(record, event, workflow, policy) -> Decision` and what it reads and writes.

Pure: no I/O and no clock. Nothing here imports GitHub, the Action or the agents' runtime
(the import contract in pyproject.toml holds that), and the modules the fast path imports
(`rules.labels`, `rules.triage`, `model.commands`) need only the standard library.

Three rooms, each importing only the ones after it: `rules` (`decide` and every rule),
`text` (the words Baton writes), `model` (the plain data both read).
"""
