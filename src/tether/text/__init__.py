"""The one text toolkit every stage reads text with.

Words, stems and stopwords (``terms``), length-preserving folding (``fold``),
sentences (``sentences``), the English word lists, each written once (``english``),
what a question asks for: its kind and words a refusal can say (``asked``), what a question is
about (``focus``), and strict JSON input (``jsonin``). It depends on no stage, so the guard, the
verifier, the retriever and the generators all cut the same text the same way.
"""
