"""The support test: does a passage, taken as a premise, state a sentence?

Support is entailment, not similarity. ``check`` gives one of four outcomes —
``supported``, ``contradicted``, ``mentioned``, ``unsupported`` — with the span of the
passage it rests on, the reasons, and which checker decided:

    >>> from tether.config import Settings
    >>> from tether.verify import check
    >>> r = check("Rollo was not a Viking.", "Rollo was a Viking leader.", settings=Settings())
    >>> r.outcome, r.checker, r.reasons[-1]
    ('contradicted', 'polarity', "negation:sentence says 'not'")

Layers (folding and sentences come from ``tether.text``): ``lexical`` (tokens, keys, verbatim),
``figures`` (figures with their qualifiers), ``align`` (coverage windows, slots),
``polarity`` (negation, quantifier, modality cues), ``checks`` (figures, years and
names in their slots), and ``core`` (the decision and the modes). Scores on labelled pairs live in
``tether.evaluate.verifier``.
"""

from __future__ import annotations

from .core import VERIFIER_GATES, Check, check, verifier_modes
from .figures import Figure, extract_figures, same_figure
from .lexical import prepare_passage

__all__ = [
    "VERIFIER_GATES",
    "Check",
    "Figure",
    "check",
    "extract_figures",
    "prepare_passage",
    "same_figure",
    "verifier_modes",
]
