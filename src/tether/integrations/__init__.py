"""Tether's guard inside other RAG frameworks, one optional extra each (ADR 0054):

- ``tether.integrations.llamaindex`` (``tether[llamaindex]``): ``GuardedQueryEngine``
  wraps any query engine; ``guard_response`` guards one ``Response``.
- ``tether.integrations.langchain`` (``tether[langchain]``): ``TetherGuard``, a
  Runnable from ``{"answer", "documents"}`` to a ``GuardedAnswer``.
- ``tether.integrations.haystack`` (``tether[haystack]``): ``TetherGuard``, a component
  from ``replies`` and ``documents`` to the verified replies and what was dropped.

This package imports without any of them; importing an adapter whose framework is
missing raises ``MissingFramework`` (an ``ImportError``) naming the extra.
"""

from .guarded import FROM_SETTINGS, Guard, GuardedAnswer, GuardedSentence, MissingFramework, Source

__all__ = ["FROM_SETTINGS", "Guard", "GuardedAnswer", "GuardedSentence", "MissingFramework", "Source"]
