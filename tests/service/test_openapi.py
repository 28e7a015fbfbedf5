"""The committed OpenAPI document is what the app serves.

Regenerate after changing a route or a record:
    PYTHONPATH=src python -m tether.service.openapi docs/openapi.json
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import add_key

DOC = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_committed_openapi_matches_the_served_one(demo_tether, client_for):
    key = add_key(demo_tether, "reader", "public")
    served = client_for(demo_tether).get("/openapi.json", headers={"Authorization": f"Bearer {key}"})
    assert served.status_code == 200
    assert json.loads(DOC.read_text(encoding="utf-8")) == served.json(), (
        "docs/openapi.json is stale: PYTHONPATH=src python -m tether.service.openapi docs/openapi.json"
    )


def test_a_keyless_server_documents_no_bearer_scheme_so_its_docs_page_shows_no_padlocks(
        demo_tether, client_for):
    client = client_for(demo_tether)
    keyless = client.get("/openapi.json").json()
    assert "securitySchemes" not in keyless["components"] and "security" not in keyless
    key = add_key(demo_tether, "reader", "public")  # added while the server runs
    keyed = client.get("/openapi.json", headers={"Authorization": f"Bearer {key}"}).json()
    assert keyed["security"] == [{"bearer": []}]
    assert {k: v for k, v in keyed.items() if k != "security"}["paths"] == keyless["paths"]


def test_openapi_documents_every_route_and_the_answer_record(demo_tether, client_for):
    key = add_key(demo_tether, "reader", "public")
    doc = client_for(demo_tether).get("/openapi.json", headers={"Authorization": f"Bearer {key}"}).json()
    assert {"/v1/answers", "/v1/verify", "/v1/citations/resolve", "/v1/documents",
            "/v1/documents/{doc_id}", "/healthz", "/metrics"} <= set(doc["paths"])
    assert {"Answer", "AnswerSentence", "Citation", "Problem", "SourcesEvent"} <= set(doc["components"]["schemas"])
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


def test_every_operation_documents_the_refusals_that_come_before_any_route(demo_tether, client_for):
    key = add_key(demo_tether, "reader", "public")
    doc = client_for(demo_tether).get("/openapi.json", headers={"Authorization": f"Bearer {key}"}).json()
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            assert {"403", "414", "421", "431"} <= set(operation["responses"]), (method, path)
    upload = doc["paths"]["/v1/answers"]["post"]["responses"]
    assert "Host" in upload["421"]["description"] and "8 KiB" in upload["414"]["description"]
