import tether


def test_public_surface_is_pinned():
    assert sorted(tether.__all__) == [
        "AccessDenied", "Answer", "AnswerSentence", "Citation", "ConfigError", "Document",
        "Draft", "Dropped", "Event", "ExtractionError", "Hit", "IngestResult", "InputError",
        "LimitExceeded", "Metadata", "MissingExtra", "NotFound", "Passage", "Probe",
        "ProviderError", "Resolution", "Settings", "StoreError", "Tether", "TetherError",
        "UnsupportedInput", "Verdict", "Version", "load_settings", "resolve", "to_json",
        "verify_answer",
    ]
    for name in tether.__all__:
        assert hasattr(tether, name)


def test_every_error_has_one_root():
    for name in tether.__all__:
        obj = getattr(tether, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, tether.TetherError)
