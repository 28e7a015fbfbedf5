"""Tether as an HTTP service (extra ``tether[serve]``): SSE answers, verify, resolve,
documents, API keys with per-document access control, Prometheus metrics.

>>> from tether import Tether                                   # doctest: +SKIP
>>> from tether.service import create_app                       # doctest: +SKIP
>>> app = create_app(Tether("store.db", create=False))          # doctest: +SKIP

``tether serve`` runs it with uvicorn; see README "HTTP service".
"""

from __future__ import annotations

from ..errors import MissingExtra

_EXTRA_MODULES = frozenset(
    {"fastapi", "starlette", "pydantic", "anyio", "uvicorn", "prometheus_client", "multipart",
     "python_multipart"}
)

try:
    from .app import create_app
    from .auth import KeyRing
    from .metrics import Metrics
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    if (exc.name or "").split(".")[0] in _EXTRA_MODULES:
        raise MissingExtra("the HTTP service", "serve") from exc
    raise

__all__ = ["KeyRing", "Metrics", "create_app"]
