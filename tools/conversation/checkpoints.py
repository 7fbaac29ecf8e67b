"""A thread's checkpoints around one turn: where the thread stood before it, and back there when the turn failed.

LangGraph writes a thread's state when a run exits, also when it exits with an error (the state of the steps that
ran: the previous turn moved into `turns`, no new answer), so a turn whose LLM failed left a broken turn behind.
`mark` is the thread's latest checkpoint id before a turn; `roll_back` deletes whatever the failed turn wrote after
it (issue 49 case 8: "a turn that fails leaves the thread as it was", docs/conversations.md).
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

__all__ = ["compact", "mark", "roll_back"]


def mark(saver: Any, thread_id: str) -> Optional[str]:
    """The thread's latest checkpoint id (None: the thread has none yet)."""
    if hasattr(saver, "cursor"):  # the SQLite saver: the id alone, nothing deserialised
        with saver.cursor(transaction=False) as cur:
            row = cur.execute("SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''",
                              (thread_id,)).fetchone()
        return None if not row or row[0] is None else str(row[0])
    tup = saver.get_tuple({"configurable": {"thread_id": thread_id}})
    return None if tup is None else str(tup.config["configurable"]["checkpoint_id"])


def roll_back(saver: Any, thread_id: str, before: Optional[str]) -> None:
    """Delete the thread's checkpoints and pending writes newer than `before` (all of them for None): the SQLite
    saver's tables, or the in-memory saver's dictionaries. Checkpoint ids are time-ordered (UUID6)."""
    if hasattr(saver, "cursor"):  # langgraph.checkpoint.sqlite.SqliteSaver
        with saver.cursor() as cur:
            for table in ("writes", "checkpoints"):
                if before is None:
                    cur.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))
                else:
                    cur.execute(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_id > ?", (thread_id, before))
        return
    storage = getattr(saver, "storage", None)  # langgraph.checkpoint.memory.InMemorySaver
    if storage is None or thread_id not in storage:
        return
    for ns, checkpoints in storage[thread_id].items():
        for cid in [c for c in checkpoints if before is None or c > before]:
            del checkpoints[cid]
            saver.writes.pop((thread_id, ns, cid), None)


def compact(saver: Any, thread_id: str, max_turns: int, drop: Iterable[str]) -> None:
    """The thread's latest checkpoint rewritten in place without the channels `drop` and with at most `max_turns`
    turns (0: no limit; the earliest dropped; the last turn is the state itself): one read and one write of the
    checkpoint, no graph step, so the thread stays finished."""
    tup = saver.get_tuple({"configurable": {"thread_id": thread_id}})
    if tup is None:
        return
    dropped = set(drop)
    values = dict((tup.checkpoint or {}).get("channel_values") or {})
    kept = {k: v for k, v in values.items() if k not in dropped}
    earlier = list(values.get("turns") or [])
    room = max(0, max_turns - 1) if max_turns else len(earlier)
    if len(earlier) > room:
        kept["turns"] = earlier[len(earlier) - room:]
    changed = [k for k in values if k in dropped] + (["turns"] if len(earlier) > room else [])
    if not changed:
        return
    checkpoint = {**tup.checkpoint, "channel_values": kept}
    versions = dict(tup.checkpoint.get("channel_versions") or {})
    # the changed channels at their own versions: SQLite keeps the whole checkpoint, the in-memory saver a value
    # per channel version (rewritten here; a dropped channel's becomes empty)
    changed_versions = {k: versions[k] for k in changed if k in versions}
    where = dict(tup.config["configurable"])
    parent = ((tup.parent_config or {}).get("configurable") or {}).get("checkpoint_id")
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": where.get("checkpoint_ns", "")}}
    if parent:
        config["configurable"]["checkpoint_id"] = parent
    saver.put(config, checkpoint, tup.metadata, changed_versions)  # the same checkpoint id: replaced
