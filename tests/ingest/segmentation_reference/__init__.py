"""Segmentation as it was before issue 20's speed work (commit 51c928b), kept verbatim
but for its imports: the reference ``test_ingest_parity`` compares today's passages,
offsets, heading paths and sentences with, so a faster path can never change what
is stored (stored citations point into it). One deliberate change since is written
into ``sentences`` plainly: a hard wrap inside a paragraph reads as a space (ADR 0043).
"""
