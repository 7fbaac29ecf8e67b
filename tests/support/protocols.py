"""Checks that a class implements a protocol's member as the protocol declares it (the index backends' tests)."""
from __future__ import annotations

import inspect


def assert_member_like(mine, theirs, where) -> None:
    """`theirs` is a property where the protocol's member `mine` is one, else a function with the same parameters
    (name, kind and default each); `where` names the member in the failure."""
    if isinstance(mine, property):
        assert isinstance(theirs, property), where
        return
    want = [(p.name, p.kind, p.default) for p in inspect.signature(mine).parameters.values()]
    got = [(p.name, p.kind, p.default) for p in inspect.signature(theirs).parameters.values()]
    assert got == want, where
