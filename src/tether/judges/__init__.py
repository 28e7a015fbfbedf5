"""Which model judge a ``judge`` setting names, loaded once per ``Tether``.

``nli:DIR`` is an ONNX NLI cross-encoder in a local directory (``tether[nli]``);
``openai:MODEL`` and ``anthropic:MODEL`` are LLM judges through the generator
settings' server and key; ``gguf:PATH`` is the reader, a local GGUF model run
in-process by llama.cpp (``tether[reader]``, see ``reader``). The verifier and the guard only see the ``Judge``
protocol; this module is where the providers are named.
"""

from __future__ import annotations

from ..config import Settings
from ..errors import ConfigError
from .base import Judge

__all__ = ["load_judge"]


def load_judge(settings: Settings) -> Judge | None:
    """The judge ``settings.judge`` names, or None when it names none."""
    spec = settings.judge.strip()
    if not spec:
        if settings.reader != "trained":
            return None
        from .trained import TrainedSupportJudge

        return TrainedSupportJudge()
    kind, sep, target = spec.partition(":")
    if not sep or not target:
        raise ConfigError(
            f"judge {spec!r} is not KIND:TARGET", hint="use nli:DIR, gguf:PATH, openai:MODEL or anthropic:MODEL"
        )
    if kind == "nli":
        from .nli import OnnxNliJudge

        return OnnxNliJudge(target)
    if kind == "gguf":
        from .reader import gguf_judge

        return gguf_judge(target, settings)
    if kind in ("openai", "anthropic"):
        from .llm import llm_judge

        return llm_judge(
            kind,
            model=target,
            base_url=settings.generator_base_url or None,
            timeout=settings.generator_timeout,
        )
    raise ConfigError(f"unknown judge kind {kind!r}", hint="use nli:DIR, gguf:PATH, openai:MODEL or anthropic:MODEL")
