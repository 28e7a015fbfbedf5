"""Retrieve stage: BM25 search over the store (``search``), the retrieval probe that
abstains on weak evidence (``probe``) and its calibration on labelled questions
(``calibrate``)."""
