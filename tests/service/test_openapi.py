"""The committed OpenAPI document is what the app serves.

Regenerate after changing a route or a record:
    PYTHONPATH=src python -m tether.service.openapi docs/openapi.json
"""

from __future__ import annotations

import json
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_committed_openapi_matches_the_served_one(demo_tether, client_for):
    served = client_for(demo_tether).get("/openapi.json")
    assert served.status_code == 200
    assert json.loads(DOC.read_text(encoding="utf-8")) == served.json(), (
        "docs/openapi.json is stale: PYTHONPATH=src python -m tether.service.openapi docs/openapi.json"
    )


def test_openapi_documents_every_route_and_the_answer_record(demo_tether, client_for):
    doc = client_for(demo_tether).get("/openapi.json").json()
    assert {"/v1/answers", "/v1/verify", "/v1/citations/resolve", "/v1/documents",
            "/v1/documents/{doc_id}", "/healthz", "/metrics"} <= set(doc["paths"])
    assert {"Answer", "AnswerSentence", "Citation", "Problem", "SourcesEvent"} <= set(doc["components"]["schemas"])
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
