"""The one text toolkit every stage reads text with.

Words, stems and stopwords (``terms``), length-preserving folding (``fold``),
sentences (``sentences``), WordNet's synonyms, hypernyms and exclusive pairs
(``lexicon``), what a question asks for, as a refusal names it (``asked``),
and strict JSON input (``jsonin``). It depends on no stage, so the guard, the
verifier, the retriever and the generators all cut the same text the same way.
"""
