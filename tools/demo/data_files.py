"""Loading the static tables of the demo corpus from `tools/demo/data/`.

The YAML files there (companies, filing texts, financial-statement rows, question templates) ship as
package data (`"finrag.tools.demo" = ["data/*"]` in pyproject.toml) and sit next to this module in
both editable and regular installs. Loaded tables are cached and shared: treat them as read-only.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

__all__ = ["DATA_DIR", "load_data"]

DATA_DIR = Path(__file__).resolve().parent / "data"


@lru_cache(maxsize=None)
def load_data(name: str) -> Any:
    """The parsed content of `data/<name>` (a YAML file), loaded once."""
    with (DATA_DIR / name).open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)
