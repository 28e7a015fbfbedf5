"""Write the service's OpenAPI document (kept in the repo as docs/openapi.json).

    PYTHONPATH=src python -m tether.service.openapi docs/openapi.json

A test fails when the committed file differs from what the app serves; rerun this
after changing a route or a record, and commit the result.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..config import Settings
from ..facade import Tether
from .app import create_app, with_keys

__all__ = ["openapi_document"]


def openapi_document() -> dict[str, Any]:
    """The document a server with API keys serves at ``/openapi.json`` (the whole
    contract, bearer scheme included; a keyless server leaves the scheme out)."""
    with tempfile.TemporaryDirectory(prefix="tether-openapi-") as tmp:
        with Tether(Path(tmp) / "store.db", settings=Settings()) as tether:
            return with_keys(create_app(tether).openapi(), keyed=True)


def main(argv: list[str]) -> int:
    text = json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"
    if argv:
        Path(argv[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
