"""Replay a scripted issue against the in-memory GitHub: `baton simulate` and `baton demo`.

`format` is the scenario file (docs/scenarios.md) and its reading; `player` plays it step by
step through the same `webhooks.parse` → `run.handle` path as a real run; `holding` reads what
GitHub then holds of the issue's work, `narration` says it, and `expect` checks it; `epic`
plays a scenario whose agents are scripted (`agents:`) with Baton's dispatched runs drained
after each step (`baton demo --epic`).
"""
