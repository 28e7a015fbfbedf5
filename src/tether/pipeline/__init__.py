"""Answer stage: the pipeline end to end, as a short sequence of named gates.

``stream`` (in ``stream.py``) runs one question through the gates of ``gates.py``
over one explicit ``Run`` state and yields typed events (``Sources``, ``Sentence``,
``Done``); the answer's trace is a typed ``Trace`` whose JSON form is
``Answer.trace``. Recording (audit, shadow, metrics) is ``ops.monitor``'s, called
from the last gate.
"""

from .events import Done, Event, Sentence, Sources
from .state import Engine, Run
from .stream import stream
from .trace import AnswerJudged, IgnoredMarkers, ProbeTrace, Trace

__all__ = [
    "AnswerJudged",
    "Done",
    "Engine",
    "Event",
    "IgnoredMarkers",
    "ProbeTrace",
    "Run",
    "Sentence",
    "Sources",
    "Trace",
    "stream",
]
