"""GitHub in memory and the scenarios played on it: `baton demo` and `baton simulate`."""
