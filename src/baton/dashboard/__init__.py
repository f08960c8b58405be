"""The lifecycle dashboard: where issues wait and for whom, how often work goes round again, how
many of Baton's pull requests merge and what they cost, what the tests showed (`proofs`), from
the records Baton keeps (`figures`), as a Markdown page GitHub renders (`page`), read and kept
in a pinned issue over the `Tracker` (`collect`, `publish`). docs/dashboard.md explains each
figure."""
