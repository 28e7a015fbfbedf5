"""Instruction-like text inside documents: what an injected instruction looks like.

``detect`` flags passages (override, role-play, exfiltration, hidden text…) and says
which rule fired; its rule table is ``rules``, run in one pass by ``scan`` (an RE2
set; a document's passages are read as one text first, rule by rule only where
something may match, ADR 0033). Rules read what a person reads: the Unicode
disguises (lookalike letters, tag characters, bidi overrides) are named and undone
by ``disguise`` (ADR 0048). Ingest flags passages with it, the extractive generator
never picks a flagged sentence, the guard never takes one as evidence. It uses only
the text toolkit (ADR 0060).
"""
