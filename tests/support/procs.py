"""Processes seen through /proc: the children of a process and whether one is still running (a zombie is not).

Used by the kill tests (tests/integration/test_indexing_trust.py) and bench/fault_injection.py."""
from __future__ import annotations

import os
from pathlib import Path


def children(pid: int) -> list[int]:
    """The ids of the processes whose parent is `pid`."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
