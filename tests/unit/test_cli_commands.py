"""The CLI's subcommand table (`finrag.cli.COMMANDS`): every subcommand's module is loaded only when that
subcommand runs, so `finrag --help` imports none of them (nor the API, the graphs, the server or the harness)."""
from __future__ import annotations

import json
import subprocess
import sys

from finrag.cli import COMMANDS, build_parser, load_command

HEAVY = ("finrag.api", "finrag.graphs", "finrag.server", "finrag.eval", "finrag.fetch", "finrag.index_copy",
         "finrag.demo", "finrag.loader", "finrag.tools.documents.parsing", "finrag.nodes")


def _modules_after(argv: list[str]) -> tuple[int, list[str]]:
    """(exit code, finrag modules imported) of `finrag ARGV` in a fresh interpreter."""
    code = ("import json, sys\nfrom finrag.cli import main\ntry:\n    rc = main(%r)\nexcept SystemExit as e:\n"
            "    rc = e.code\nprint('\\n' + json.dumps([rc, sorted(m for m in sys.modules if m.startswith('finrag'))]))"
            % argv)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    rc, modules = json.loads(out.strip().splitlines()[-1])
    return rc, modules


def test_help_loads_no_subcommand():
    rc, modules = _modules_after(["--help"])
    assert rc == 0
    loaded = [m for m in modules if m in {module for module, _ in COMMANDS.values()} or m.startswith(HEAVY)]
    assert loaded == [], loaded


def test_a_subcommand_loads_its_own_module_only():
    rc, modules = _modules_after(["info", "--help"])
    assert rc == 0
    assert "finrag.cli.info" in modules
    others = [module for name, (module, _) in COMMANDS.items() if name != "info" and module in modules]
    assert others == [], others


def test_every_subcommand_is_listed_and_declares_its_arguments():
    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    assert list(choices) == list(COMMANDS)
    for name in COMMANDS:
        module = load_command(name)
        assert callable(module.add_arguments), name
        assert callable(choices[name].get_default("func")), name
    listing = " ".join(build_parser(load=[]).format_help().split())  # the listing alone needs no module
    assert all(f"{name} {' '.join(line.split())}" in listing for name, (_, line) in COMMANDS.items())
