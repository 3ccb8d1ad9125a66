"""The scanner on the labelled corpus (tests/scan_corpus.py): recall and precision of at least 0.98 each."""

from __future__ import annotations

from gitmem.scan import scan_text
from tests import scan_corpus
from tests.scan_corpus import CorpusFile


def _flagged(corpus_file: CorpusFile) -> set[int]:
    return {finding.line for finding in scan_text(corpus_file.text, corpus_file.name)}


def test_corpus_is_large_and_varied() -> None:
    files = scan_corpus.build()
    score = scan_corpus.evaluate(files, lambda f: set())
    assert score.secrets >= 400 and score.decoys >= 400
    assert len(scan_corpus.kinds_of(files)) >= 45
    assert {f.format for f in files} == {"code", "config", "env", "json", "log"}
    assert score.recall == 0.0  # a scanner that finds nothing scores nothing: the measure can fail


def test_recall_and_precision_on_the_corpus() -> None:
    score = scan_corpus.evaluate(scan_corpus.build(), _flagged)
    assert score.recall >= 0.98, f"recall {score.recall:.3f}; missed: {score.missed[:10]}"
    assert score.precision >= 0.98, f"precision {score.precision:.3f}; false: {score.wrong[:10]}"


def test_every_format_does_well_on_its_own() -> None:
    files = scan_corpus.build()
    for fmt in ("code", "config", "env", "json", "log"):
        score = scan_corpus.evaluate([f for f in files if f.format == fmt], _flagged)
        assert score.recall >= 0.95 and score.precision >= 0.95, (
            fmt,
            score.recall,
            score.precision,
        )
