"""The one text toolkit every stage reads text with.

Words, stems and stopwords (``terms``), length-preserving folding (``fold``),
sentences (``sentences``), figures and number words (``numbers``) and
instruction-like text (``instructions``). It depends on nothing but the standard
library and ``tether.records``' vocabulary, so the guard, the verifier, the
retriever and the generators all cut the same text the same way.
"""
