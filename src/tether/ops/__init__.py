"""Operations around the pipeline: recording answers and their re-check
(``monitor``), the store consistency check (``check``), durable citation
resolution (``cite``) and API key material (``apikeys``)."""
