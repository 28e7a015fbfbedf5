"""The one text toolkit every stage reads text with.

Words, stems and stopwords (``terms``), length-preserving folding (``fold``),
sentences (``sentences``), figures and number words (``numbers``),
instruction-like text (``instructions``) and what a question asks for, as a
refusal names it (``asked``). It depends on nothing but the standard
library and ``tether.records``' vocabulary, so the guard, the verifier, the
retriever and the generators all cut the same text the same way.
"""
