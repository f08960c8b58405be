"""Helpers the tests share that are not fixtures (those live in the conftest.py files)."""
