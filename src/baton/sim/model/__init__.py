"""One model of GitHub's state and the rules GitHub follows, for the two fakes: the in-memory
`Tracker` (`sim/memory_github.py`) and the HTTP fake of the tests."""
