"""Section detection against hand-labelled filings: precision and recall per section key.

    python -m bench.sections [--data ../shared/data] [--out docs/results/bench_sections.json]

The labels (`eval/data/section_labels.json`) are the zero-based pages where each item heading (and, for two
filings, each numbered note) starts, read by hand from the page texts of four real filings: two FinanceBench
PDFs (a 10-K and a 10-Q) and two EDGAR inline-XBRL HTML filings (a 10-K and a 10-Q). A detected start counts
as correct when the same key starts on the same page in the labels (each label matched once).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "eval" / "data" / "section_labels.json"


def score(data_dir: Path) -> dict:
    """Per-key and overall precision/recall of `detect_sections` on the labelled filings."""
    from finrag.tools.documents.parsing import read_pages
    from finrag.tools.indexing.sections import detect_sections

    labels = json.loads(LABELS.read_text())
    tp: Counter = Counter()
    fp: Counter = Counter()
    fn: Counter = Counter()
    per_filing = []
    for f in labels["filings"]:
        pages = read_pages(data_dir / f["source"])
        found = detect_sections(pages)
        row = {"source": f["source"], "format": f["format"], "form": f["form"]}
        for kind, field in (("item", "items"), ("note", "notes")):
            if field not in f:
                continue
            want = Counter((k, int(p)) for k, p in f[field])
            got = Counter((s.key, s.page) for s in found if s.kind == kind)
            hit = want & got
            for (k, _), n in hit.items():
                tp[(kind, k)] += n
            for (k, _), n in (got - hit).items():
                fp[(kind, k)] += n
            for (k, _), n in (want - hit).items():
                fn[(kind, k)] += n
            row[field] = {"labelled": sum(want.values()), "detected": sum(got.values()), "correct": sum(hit.values()),
                          "missed": sorted(f"{k}@{p}" for (k, p) in (want - hit)),
                          "extra": sorted(f"{k}@{p}" for (k, p) in (got - hit))}
        per_filing.append(row)

    def pr(t: int, f_p: int, f_n: int) -> dict:
        return {"precision": round(t / (t + f_p), 3) if t + f_p else None,
                "recall": round(t / (t + f_n), 3) if t + f_n else None, "tp": t, "fp": f_p, "fn": f_n}

    keys = sorted(set(tp) | set(fp) | set(fn))
    out = {"per_key": {f"{kind}:{k}": pr(tp[(kind, k)], fp[(kind, k)], fn[(kind, k)]) for kind, k in keys},
           "filings": per_filing}
    for kind in ("item", "note"):
        out[f"{kind}s_overall"] = pr(sum(v for (k2, _), v in tp.items() if k2 == kind),
                                     sum(v for (k2, _), v in fp.items() if k2 == kind),
                                     sum(v for (k2, _), v in fn.items() if k2 == kind))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    res = score(Path(a.data))
    text = json.dumps(res, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n")
    print(json.dumps({k: v for k, v in res.items() if k.endswith("overall")}))
    for f in res["filings"]:
        print(f["source"], {k: (v["correct"], v["labelled"], v["detected"], v["missed"], v["extra"])
                            for k, v in f.items() if isinstance(v, dict)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
