"""Ingest stage: sources in, extracted text out, cut into passages and stored.

A file goes plan → prepare → write: ``files`` holds what is ingested (metadata, the
folder walk, manifests, the store's record of each file); ``plan`` decides from a
file's ``stat`` and record whether it needs reading, and prepares it (read, extract,
segment: no store); ``write`` is the one writer, and ``ingest_file`` / ``ingest_bytes``
run all three in one process. ``parallel`` prepares many files in worker processes;
``batch`` finds an ingest's files and their metadata. ``extract`` turns each format
into text behind one ``Extractor`` protocol; ``segment`` cuts passages with exact
character ranges; ``reindex`` re-cuts stored versions without re-reading sources.
"""
