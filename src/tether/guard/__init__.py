"""Guard stage: the only place an ``AnswerSentence`` is made.

``attribute`` finds the passage that supports a sentence (asking ``tether.verify``),
``citation`` keeps a sentence only with an exact citation, and ``answercheck``
(with ``answertype``) decides whether what survived answers the question as asked.
Nothing here imports a generator.
"""
