"""GitHub behind the `Tracker` protocol: the PyGithub/GraphQL client and its batched write.

`client.py` is the only module of Baton that imports PyGithub.
"""
