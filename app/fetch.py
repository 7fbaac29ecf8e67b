"""`finrag fetch`: filings from SEC EDGAR into a folder (and optionally an index), by ticker or CIK.

    finrag fetch --tickers AAPL,MSFT --forms 10-K,10-Q,8-K,earnings --years 2021-2024 --out filings/ [--index DIR]

SEC's fair-access rules are built in (`finrag.tools.edgar.client`): a User-Agent with your name and e-mail
(`--user-agent` or FINRAG_SEC_USER_AGENT; refused without), at most 10 requests/s, retries with backoff on
429/5xx. `--base-url` points at a mirror (or a test server) that serves SEC's paths. Resumable: filings whose
sidecar is under OUT are skipped. Exit codes as for every command: 0 done, 1 some filings or companies failed
(one line each on stderr), 2 usage error, 130 interrupted.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from finrag.cli import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, _progress
from finrag.cli import main as finrag_main
from finrag.errors import print_error
from finrag.state.settings import ProcessSettings
from finrag.tools.edgar.client import EdgarClient, EdgarError, check_user_agent
from finrag.tools.edgar.fetch import run_fetch
from finrag.tools.edgar.limiter import RateLimiter
from finrag.tools.edgar.listing import parse_forms, parse_years
from finrag.tools.edgar.tickers import parse_ciks

__all__ = ["add_arguments", "cmd_fetch"]


def add_arguments(s: argparse.ArgumentParser) -> None:
    who = s.add_mutually_exclusive_group(required=True)
    who.add_argument("--tickers", help="comma-separated tickers, e.g. AAPL,MSFT,BRK.B")
    who.add_argument("--ciks", help="comma-separated CIKs, e.g. 320193,789019")
    who.add_argument("--tickers-file", metavar="FILE", help="a file with tickers (one per line or comma-separated; "
                                                             "# starts a comment; 'TICKER|...' lines: the first field)")
    s.add_argument("--forms", default="10-K", help="comma-separated: 10-K,10-Q,8-K,earnings (default 10-K)")
    s.add_argument("--years", required=True, help="fiscal years, e.g. 2021-2024 or 2023")
    s.add_argument("--out", required=True, metavar="DIR", help="where the filings and their .json sidecars go")
    s.add_argument("--index", metavar="DIR", default=None, help="also index the fetched filings into this index")
    s.add_argument("--base-url", default=None, help="an EDGAR mirror serving SEC's paths (default: SEC's hosts; "
                                                     "also FINRAG_SEC_BASE_URL)")
    s.add_argument("--user-agent", default=None, help="'Your Name you@example.com' (SEC requires it; also "
                                                       "FINRAG_SEC_USER_AGENT)")
    s.add_argument("--rate", type=float, default=10, help="requests per second (default and maximum 10)")
    s.add_argument("--dry-run", action="store_true", help="list what would be fetched and what it costs in requests "
                                                          "(the listing itself: 1 + 1 per company)")
    s.add_argument("-q", "--quiet", action="store_true")
    s.set_defaults(func=cmd_fetch)


def _tickers(args) -> list[str]:
    if args.tickers_file:
        path = Path(args.tickers_file)
        if not path.is_file():
            raise ValueError(f"no such tickers file: {path}")
        text = "\n".join(line.split("#")[0].split("|")[0]  # 'AAPL|Apple Inc.|...' lines: the first field
                         for line in path.read_text(encoding="utf-8", errors="replace").splitlines())
    else:
        text = args.tickers or ""
    out = [t.strip() for t in text.replace(",", "\n").split() if t.strip()]
    if not out:
        raise ValueError("no tickers given")
    return out


def cmd_fetch(args) -> int:
    try:
        user_agent = check_user_agent(args.user_agent or ProcessSettings().sec_user_agent)  # FINRAG_SEC_USER_AGENT
        forms, years = parse_forms(args.forms), parse_years(args.years)
        companies = parse_ciks(args.ciks.split(",")) if args.ciks else []
        tickers = [] if args.ciks else _tickers(args)
        if not 0 < args.rate <= 10:
            raise ValueError("--rate must be between 0 and 10 requests per second (SEC's limit is 10)")
    except ValueError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print_error(f"--out {out} is a file, not a folder")
        return EXIT_USAGE

    rate = RateLimiter(rate=max(1, round(args.rate)), period=max(1, round(args.rate)) / args.rate)
    try:
        client = EdgarClient(user_agent, args.base_url or ProcessSettings().sec_base_url or None, limiter=rate)
    except ValueError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    with client:
        try:
            rep = run_fetch(client, out, forms, years, tickers=tickers, companies=companies,
                            progress=_progress(args), dry_run=args.dry_run)
        except EdgarError as exc:
            print_error(str(exc))
            return EXIT_FAILED
    for name, why in rep.failed:
        print(f"failed  {name}: {why}", file=sys.stderr)
    print(rep.summary())
    if rep.interrupted:
        print_error("interrupted; fetched filings are kept: run the same command again to resume")
        return EXIT_INTERRUPTED
    code = EXIT_FAILED if rep.failed else EXIT_OK
    if args.index and not rep.interrupted and not args.dry_run:
        idx = finrag_main(["index", str(out), "--index", args.index] + (["-q"] if args.quiet else []))
        code = max(code, idx) if idx != EXIT_FAILED else EXIT_FAILED
    return code
