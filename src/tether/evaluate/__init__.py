"""Evaluation: golden questions through the public pipeline, scored and reported.

    >>> from tether.evaluate import load_golden, run_eval, suite, build_suite_store
    >>> s = suite("demo")                                                # doctest: +SKIP
    >>> tether, flags = build_suite_store(s, Path("demo.db"), settings=Settings())  # doctest: +SKIP
    >>> result = run_eval(tether, load_golden(s.golden), labels=s.labels(),
    ...                   ingest_flags=flags)                            # doctest: +SKIP
    >>> result.summary["groundedness"]                                   # doctest: +SKIP
    {'value': 1.0, 'count': 61, 'n': 61}

Modules: ``golden`` (golden files, manifest labels, document matching), ``runner``
(the run and every rate, with its denominator), ``injection`` (leaks and detection),
``adversary`` (a generator that obeys planted instructions),
``suites`` (the shipped demo and injection suites), ``report`` (one self-contained
HTML file with SVG plots).
"""

from __future__ import annotations

from .adversary import ObedientGenerator
from .golden import GoldenItem, Labels, Planted, doc_matches, load_golden, load_labels
from .injection import detection_report, leaks
from .runner import EvalResult, percentiles, run_eval
from .suites import SUITES, Suite, build_suite_store, suite

__all__ = [
    "SUITES",
    "EvalResult",
    "GoldenItem",
    "Labels",
    "ObedientGenerator",
    "Planted",
    "Suite",
    "build_suite_store",
    "detection_report",
    "doc_matches",
    "leaks",
    "load_golden",
    "load_labels",
    "percentiles",
    "run_eval",
    "suite",
]
