"""Fixed-size character chunking with page spans (the paper's 2,500/1,250 default).

A document's pages are joined with a newline; each chunk is a window
`[start, start + size)` moved by `step = size - overlap`. Each chunk records
the zero-based pages its first and last character fall on.

Embedding uses *segments*: the stretches `[k*step, (k+1)*step)`. With the
default 50% overlap a chunk is exactly two consecutive segments, and each
segment is shared with the neighbouring chunk, so every stretch of text is
embedded once yet every chunk's vector covers all of its text (see
tools/indexing/embedders.py for why: the offline embedder reads only 256 tokens).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

CHUNK_SIZE = 2500
"""Default chunk length in characters (the paper's); an index records the chunking it was built with."""

CHUNK_OVERLAP = 1250
"""Default overlap between neighbouring chunks in characters (the paper's 50%)."""


@dataclass(frozen=True)
class Chunk:
    """One window of a document: its position (`ord`), character span, zero-based page span and text."""

    ord: int
    char_start: int
    char_end: int
    page_start: int
    page_end: int
    text: str


def join_pages(pages: list[str]) -> tuple[str, list[int]]:
    """Concatenate pages; return the text and each page's starting offset."""
    starts, parts, pos = [], [], 0
    for text in pages:
        starts.append(pos)
        parts.append(text)
        pos += len(text) + 1
    return "\n".join(parts), starts


def chunk_pages(pages: list[str], size: int = CHUNK_SIZE, overlap: int = CHUNK_OVERLAP) -> list[Chunk]:
    """The document's chunks: windows of `size` characters moved by `size - overlap`; blank ones dropped."""
    if size <= 0 or overlap < 0 or overlap >= size:
        raise ValueError(f"invalid chunking: size={size}, overlap={overlap} (need 0 <= overlap < size)")
    text, page_starts = join_pages(pages)
    step = size - overlap
    chunks: list[Chunk] = []
    for i, start in enumerate(range(0, max(len(text) - overlap, 1), step)):
        end = min(start + size, len(text))
        piece = text[start:end]
        if not piece.strip():
            continue
        chunks.append(
            Chunk(
                ord=i,
                char_start=start,
                char_end=end,
                page_start=bisect.bisect_right(page_starts, start) - 1,
                page_end=bisect.bisect_right(page_starts, max(start, end - 1)) - 1,
                text=piece,
            )
        )
    return chunks


def segments(text: str, step: int) -> list[str]:
    """The stretches `[k*step, (k+1)*step)` of the document text."""
    return [text[i : i + step] for i in range(0, max(len(text), 1), step)]


def chunk_segment_span(chunk: Chunk, size: int, overlap: int, n_segments: int) -> range | None:
    """Which segments make up the chunk, or None when size is not a multiple of step."""
    step = size - overlap
    if size % step:
        return None
    first = chunk.char_start // step
    return range(first, min(first + size // step, n_segments))
