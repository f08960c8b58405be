"""GitHub behind the `Tracker` role protocols (`tracker`): one module per role (`issues`,
`issue_writes` with `labels` and `batch_write`, `git`, `pulls`, `sub_issues`), their GraphQL
documents (`graphql/`), composed as `client.GitHubTracker` over one `transport`.

`transport.py` is the only module of Baton that imports PyGithub.
"""
