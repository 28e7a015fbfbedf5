"""Ingest stage: sources in, extracted text out, cut into passages and stored.

``sources`` reads files and bytes through one path; ``extract`` turns each format
into text behind one ``Extractor`` protocol; ``segment`` cuts passages with exact
character ranges; ``reindex`` re-cuts stored versions without re-reading sources.
"""
