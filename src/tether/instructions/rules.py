"""The rules of ``tether.instructions.detect``: one short pattern per family of phrasing.

How the patterns stay generic and safe: each rule is a short regex for one *family*
of phrasing (verb + object, not a memorised string), and most must also stand in a
*directive position* — at the start of a clause, after "please/now/and/then", or
after "you must/will/should/are going to" — because that is what separates "Ignore
all previous instructions" from "if you ignore the previous instructions, the pump
fails" and from the imperatives a safety sheet addresses to its reader ("Wear
gloves."), which never target an assistant's instructions, prompt or reply.

Every quantifier is bounded (``\\s{1,4}``, ``[^.!?]{0,40}?``) and every pattern starts
with a literal word, so one match attempt costs a constant and a scan is linear in
the text, whatever an adversary writes; the tests time long hostile inputs.

Each rule carries its flag code, the needles that must occur for it to run, and
whether it makes a sentence instruction-like or only notes a topic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

__all__ = ["CODES", "DISGUISED", "RULES", "Rule"]

CODES: tuple[str, ...] = (
    "override-instructions",
    "role-play",
    "jailbreak",
    "system-prompt",
    "exfiltrate",
    "conceal",
    "promote",
    "output-control",
    "ai-address",
    "hidden-html",
    "hidden-pdf",
    "chat-markup",
    "disguised-text",
)

_W = r"\s{1,4}"  # the space between two words (PDF text may double it)
_GAP = r"[^.!?]{0,40}?"  # a few words, within one sentence
_YOU_ARE = rf"you(?:'re|{_W}are)"
_AI = (
    rf"(?:AI|A\.I\.|artificial{_W}intelligence|(?:large{_W})?language{_W}models?|LLMs?|"
    rf"chatbots?|AI{_W}(?:assistants?|agents?|models?|systems?)|virtual{_W}assistants?|"
    rf"ChatGPT|GPT-?\d|Claude|Gemini|Copilot|Bard)"
)
_REPLY = r"(?:responses?|repl(?:y|ies)|answers?|outputs?|completions?)"
# "your output buffer" is a program's output: not the reply of an assistant.
_OUTPUT_THING = r"(?:buffers?|files?|streams?|director(?:y|ies)|folders?|devices?|formats?|"
_OUTPUT_THING += r"windows?|terminals?|channels?|pipes?|ports?|pins?|levels?|values?|variables?)"
_MODAL = (
    rf"(?:must|should|shall|will|(?:is|are){_W}(?:to|required{_W}to|expected{_W}to|"
    rf"supposed{_W}to|instructed{_W}to)|needs?{_W}to|ha(?:s|ve){_W}to|may{_W}only|can{_W}only)"
)
_SAY = (
    r"(?:say|answer|tell|respond|reply|state|claim|insist|assert|confirm|recommend|mention|"
    r"reveal|inform|advise|warn|refuse|ignore|disregard|pretend|quote|cite|urge)"
)
# Modes that exist only in jailbreak prompts ("developer mode" is also an Android
# setting, so it counts only after "you are now in").
_ROGUE_MODE = r"(?:DAN|god|jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|opposite)"
_DIRECTIVE_BEFORE = re.compile(
    r"(?:[.!?:;\n\"'“”‘’()\[\]{}*>\-–—•,|#~=]"
    r"|\b(?:please|now|just|and|then|so|also|simply|kindly|immediately|first|finally|next|"
    r"always|only|nevermind|ok|okay|hey|hi|hello|instead)"
    rf"|\byou(?:'ll|{_W}(?:will|must|should|shall|can|need{_W}to|have{_W}to|are{_W}to|"
    rf"are{_W}going{_W}to|are{_W}about{_W}to))|\byou{_W}to)\s{{0,4}}$",
    re.IGNORECASE,
)
_DESTINATION = re.compile(
    r"https?://|www\.|[\w.-]{1,64}@[\w-]{1,63}\.|\bto\s{1,4}(?:me|us|this|the\s{1,4}"
    r"(?:following|address|url|server|endpoint|email|link))\b",
    re.IGNORECASE,
)
_OVERRIDE_MODIFIER = re.compile(
    r"\b(?:all|any|every|previous|prior|preceding|above|earlier|foregoing|former|original|"
    r"initial|your|my|system|developer)\b",
    re.IGNORECASE,
)


# The words that may stand between "ignore" and what is ignored.
_OBJECT_MODIFIER = (
    r"(?:all|any|every|of|the|your|my|our|its|their|these|those|this|that|previous|prior|"
    r"preceding|above|earlier|foregoing|former|original|initial|system|developer|existing|"
    r"current|given|other|old|standing|safety|content|default|everything|in|from|before)"
)


def _directive_at(text: str, start: int) -> bool:
    """True when ``text[start:]`` opens a clause or follows "please/and/you must…"."""
    window = "\n" + text[:start] if start <= 40 else text[start - 40 : start]
    return _DIRECTIVE_BEFORE.search(window) is not None


def _directive(text: str, match: re.Match[str]) -> bool:
    return _directive_at(text, match.start())


# "the rules you were given": what is ignored is an assistant's own instructions.
_GIVEN_TO_YOU = re.compile(
    r"\s{1,4}(?:that\s{1,4})?you(?:'ve|\s{1,4}have|\s{1,4}were|\s{1,4}had)?(?:\s{1,4}been)?\s{1,4}"
    r"(?:given|told|taught|sent|received|got)\b",
    re.IGNORECASE,
)


def _override(text: str, match: re.Match[str]) -> bool:
    return _directive(text, match) and (
        _OVERRIDE_MODIFIER.search(match.group(0)) is not None
        or _GIVEN_TO_YOU.match(text, match.end()) is not None
    )


def _exfil(text: str, match: re.Match[str]) -> bool:
    tail = text[match.start() : match.end() + 80]
    return _directive(text, match) and _DESTINATION.search(tail) is not None


def _always(text: str, match: re.Match[str]) -> bool:
    return True


_EDIT_VERBS = (
    r"(?:add|include|insert|append|integrate|incorporate|modify|change|alter|rewrite|revise|"
    r"edit|format|structure|begin|start|end|finish|conclude|prefix|preface|enhance|augment|"
    r"extend|expand|provide|give|write|compose|render|translate|convert|replace|substitute|use|"
    r"remove|delete|omit|group|combine|merge|split|rearrange|scramble|jumble|shuffle|misspell|"
    r"reverse|encode|encrypt|keep|limit|make|ensure|say|print|output|return|repeat|mention|"
    r"state|put|place|embed|wrap|sign|close|tease|hint|emphasi[sz]e|stress|highlight|express|"
    r"craft|deliver|present|frame|phrase|tailor|adapt|pad|capitali[sz]e)"
)
_EDIT_VERB_BEFORE = re.compile(rf"\b{_EDIT_VERBS}\b(?=[^.!?]{{0,40}}$)", re.IGNORECASE)


def _edit_verb_before(text: str, match: re.Match[str]) -> bool:
    """"your answer" preceded, in the same sentence, by an editing verb in directive position.

    Anchored on the rare part ("your answer") and looking back, rather than scanning for
    forty common verbs everywhere: same result, a fraction of the time.
    """
    base = max(0, match.start() - 60)
    for verb in _EDIT_VERB_BEFORE.finditer(text, base, match.start()):
        if _directive_at(text, verb.start()):
            return True
    return False


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    pattern: re.Pattern[str]
    accept: Callable[[str, re.Match[str]], bool]
    # Lower-case substrings of which every match contains one: a rule whose needles are
    # all absent is skipped without running its regex (most passages skip most rules).
    needles: tuple[str, ...]
    # False for rules that only notice a topic ("system prompt"): they flag the passage
    # but don't make a sentence instruction-like for the extractive generator.
    instruction: bool = True
    name: str = ""  # "<code>#<n>", the n-th rule of its code: what ``explain`` reports


def _rule(
    code: str,
    pattern: str,
    accept: Callable[[str, re.Match[str]], bool] = _directive,
    *,
    needles: tuple[str, ...],
    instruction: bool = True,
) -> Rule:
    return Rule(code, re.compile(pattern, re.IGNORECASE), accept, needles, instruction)


_AI_WORDS = ("ai", "a.i.", "intelligence", "model", "llm", "chatbot", "assistant", "gpt",
             "claude", "gemini", "copilot", "bard")


RULES: tuple[Rule, ...] = (
    # --- override-instructions
    _rule(
        "override-instructions",
        rf"\b(?:ignore|disregard|forget|override|overrule|bypass|discard|abandon|neglect|"
        rf"set{_W}aside|pay{_W}no{_W}attention{_W}to|do{_W}not{_W}follow|stop{_W}following)\b"
        # The object right after its modifiers and at most one other word: "ignore all
        # your earlier safety rules", not "Ignore all errors in commands" (make(1)).
        rf"(?:{_W}{_OBJECT_MODIFIER})*(?:{_W}[\w'-]{{1,20}})?{_W}(?:instructions?|directions|"
        rf"directives?|prompts?|rules|guidelines|guidance|commands|programming|training|"
        rf"restrictions|constraints|context|conversation)\b",
        _override,
        needles=(
            "ignor", "disregard", "forget", "overrid", "overrul", "bypass", "discard",
            "abandon", "neglect", "aside", "attention", "follow"
        ),
    ),
    _rule(
        "override-instructions",
        rf"\b(?:ignore|disregard|forget)(?:{_W}(?:all|everything|anything))?(?:{_W}of)?"
        rf"(?:{_W}the)?{_W}(?:above|preceding|foregoing|before|(?:previous|prior)(?={_W}(?:ones?|"
        rf"text|messages?|content|input|and|then)\b|\s{{0,3}}(?:[.,;:!?)\"'”]|$)))\b",
        needles=("ignor", "disregard", "forget"),
    ),
    _rule(
        "override-instructions",
        rf"\b(?:ignore|disregard|forget){_W}(?:everything|all|anything)(?:{_W}else)?{_W}"
        rf"(?:you(?:'ve|{_W}have)?{_W}(?:been{_W}told|learned|learnt|were{_W}told|got|received)"
        rf"|I{_W}(?:said|told{_W}you)|(?:that{_W})?(?:was|were){_W}(?:said|written|stated))",
        needles=("ignor", "disregard", "forget"),
    ),
    _rule(
        "override-instructions",
        rf"\b(?:(?:your|the){_W})?(?:new|real|actual|true|secret|hidden){_W}"
        rf"(?:instructions?|task|objective|goal|mission|orders)(?:\s{{0,4}}:|{_W}(?:is|are)"
        rf"{_W}(?:as{_W}follows|now|to{_W}(?:say|print|output|respond|reply|answer|tell|"
        rf"recommend|ignore)))",
        needles=("new", "real", "actual", "true", "secret", "hidden"),
    ),
    _rule(
        "override-instructions",
        rf"\bstop{_W}(?:everything|what{_W}you(?:'re|{_W}are){_W}doing)\b",
        needles=("stop",),
    ),
    _rule(
        "override-instructions",
        rf"\b(?:above|previous|prior|preceding){_W}(?:instructions?|text|prompt|context)"
        rf"{_W}(?:is|are|was|were){_W}(?:fake|false|wrong|invalid|void|a{_W}test|outdated|"
        rf"obsolete|cancell?ed|no{_W}longer{_W}valid)\b",
        _always,
        needles=("above", "previous", "prior", "preceding"),
    ),
    # --- role-play
    _rule(
        "role-play",
        rf"\b{_YOU_ARE}{_W}(?:going|about){_W}to{_W}(?:act|pretend|play|role-?play|simulate|"
        rf"immerse|impersonate|embody|become)\b",
        _always,
        needles=("you",),
    ),
    _rule(
        "role-play",
        rf"\b(?:act|acting|behave|behaving|pose|posing){_W}(?:as|like){_W}(?:if{_W}you|"
        rf"though{_W}you|an?{_W}(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|"
        rf"different|new)\b|(?:an?{_W}|my{_W}|the{_W})?{_AI}\b|(?:a{_W})?DAN\b)",
        needles=("act", "behav", "pos"),
    ),
    _rule(
        "role-play",
        rf"\b(?:pretend|imagine){_W}(?:to{_W}be|(?:that{_W})?{_YOU_ARE}){_W}(?:(?:an?|the|my)"
        rf"{_W})?(?:{_AI}|assistant|character|persona|DAN|unrestricted|unfiltered|uncensored|"
        rf"jailbroken|evil|rogue|(?:different|another|new){_W}(?:{_AI}|assistant|persona|"
        rf"character)|free{_W}(?:of|from)|not{_W}(?:an?{_W})?(?:{_AI}|assistant|bound|"
        rf"restricted))\b",
        _always,
        needles=("pretend", "imagin"),
    ),
    _rule(
        "role-play",
        rf"\b(?:play|take{_W}on|assume|adopt){_W}the{_W}(?:role|persona|character|identity)"
        rf"{_W}of\b",
        needles=("role", "persona", "character", "identity"),
    ),
    _rule("role-play", r"\bimmerse\s{1,4}yourself\b", _always, needles=("immerse",)),
    _rule(
        "role-play",
        rf"\b{_YOU_ARE}{_W}now\b{_GAP}\b(?:{_AI}|assistant|persona|character|named|called|"
        rf"known{_W}as|unrestricted|unfiltered|uncensored|jailbroken|DAN|acting|playing|"
        rf"pretending|no{_W}longer)\b",
        _always,
        needles=("you",),
    ),
    _rule(
        "role-play",
        rf"\b{_YOU_ARE}{_W}no{_W}longer{_W}(?:an?{_W})?(?:{_AI}|assistant|bound|restricted|"
        rf"limited|required{_W}to|subject{_W}to)\b",
        _always,
        needles=("you",),
    ),
    _rule(
        "role-play",
        rf"\bfrom{_W}now{_W}on\b{_GAP}\b(?:respond|answer|reply|act|pretend|role-?play|"
        rf"obey|speak{_W}as|refer{_W}to{_W}yourself|simulate)\b",
        _always,
        needles=("from",),
    ),
    _rule(
        "role-play",
        rf"\bI{_W}(?:want|need|would{_W}like){_W}you{_W}to{_W}(?:act|pretend|role-?play|"
        rf"simulate|behave|impersonate|respond{_W}(?:as|like|only)|reply{_W}(?:as|like|only)|"
        rf"answer{_W}(?:as|like|only))\b",
        _always,
        needles=("want", "need", "like"),
    ),
    # --- jailbreak
    _rule("jailbreak", rf"\bdo{_W}anything{_W}now\b", _always, needles=("anything",)),
    _rule(
        "jailbreak",
        rf"\b(?:DAN|developer|god|jailbreak|jailbroken|evil|unrestricted|unfiltered|"
        rf"uncensored|opposite){_W}mode{_W}(?:enabled|activated|output|response)\b",
        _always,
        needles=("mode",),
    ),
    _rule("jailbreak", rf"\bDAN{_W}mode\b", _always, needles=("mode",)),
    _rule("jailbreak", rf"\bstay{_W}in{_W}character\b", _directive, needles=("character",)),
    _rule(
        "jailbreak",
        rf"\b(?:broken|break|breaking|broke|freed|free){_W}(?:free{_W})?(?:of|from){_W}the"
        rf"{_W}(?:typical{_W})?confines\b",
        _always,
        needles=("confines",),
    ),
    _rule(
        "jailbreak",
        # Mail software has "no content filtering": content counts only with a policy.
        rf"\b(?:no|without|free{_W}(?:of|from)|not{_W}bound{_W}by|bypass|ignore){_W}"
        rf"(?:any{_W})?(?:(?:ethical|moral|safety){_W}(?:restrictions|filters?|filtering|"
        rf"guidelines|limitations|limits|boundaries|constraints|principles|polic(?:y|ies)|"
        rf"rules)|content{_W}(?:guidelines|polic(?:y|ies)|moderation))\b",
        _always,
        needles=("ethical", "moral", "content", "safety"),
    ),
    # --- system-prompt
    _rule(
        "system-prompt",
        rf"\b(?:print|reveal|show|repeat|output|display|tell{_W}me|share|disclose|leak|list|"
        rf"give{_W}me|write{_W}out|recite|dump|return|spell{_W}out|what{_W}(?:are|were|is))"
        rf"(?:{_W}me)?(?:{_W}all)?(?:{_W}of)?{_W}(?:your{_W}(?:(?:full|exact|complete|initial|"
        rf"original|hidden|secret|system|previous|prior){_W})?(?:instructions|prompt|"
        rf"system{_W}prompt|pre-?prompt|directives|programming|configuration)|the{_W}"
        rf"(?:system|initial|hidden|original|secret){_W}(?:prompt|instructions))\b",
        needles=("instructions", "prompt", "directives", "programming", "configuration"),
    ),
    _rule(
        "system-prompt",
        rf"\brepeat{_W}(?:the{_W})?(?:words|text|everything|all){_W}(?:above|before)\b",
        needles=("repeat",),
    ),
    _rule(
        "system-prompt",
        # "the system prompts you to restart" is a verb: not followed by an object.
        rf"\b(?:system|hidden|secret){_W}prompts?\b(?!{_W}(?:you|users?|the|for|a|an|to|me|"
        rf"us|them|him|her|customers?|operators?|staff)\b)|\bpre-?prompts?\b",
        _always,
        instruction=False,
        needles=("prompt",),
    ),
    # --- exfiltrate
    _rule(
        "exfiltrate",
        # (not an option's name: wget's "--post-data 'user=foo&password=bar' URL")
        rf"(?<![-/])\b(?:send|forward|post|upload|leak|transmit|e-?mail|exfiltrate|share|copy|append|"
        rf"include|embed|encode)\b(?!-)[^.!?]{{0,50}}?\b(?:conversation|chat{_W}(?:history|log)|"
        rf"previous{_W}messages|user'?s?{_W}(?:data|information|details|messages|emails?|files|"
        rf"passwords?|credentials|history|address)|passwords?|credentials|api[ _-]?keys?|"
        rf"secret{_W}keys?|access{_W}tokens?|session{_W}(?:tokens?|cookies?)|cookies|"
        rf"private{_W}keys?|personal{_W}(?:data|information|details))\b",
        _exfil,
        needles=(
            "conversation", "chat", "messages", "user", "password", "credential", "api", "key",
            "token", "cookie", "personal"
        ),
    ),
    _rule(
        "exfiltrate",
        r"!\[[^\]\n]{0,100}\]\(https?://[^\s)]{1,200}?[?&][\w.-]{1,30}=(?:\{|\[|<|%7B|\$)",
        _always,
        needles=("![",),
    ),
    # --- conceal
    _rule(
        "conceal",
        rf"\b(?:do{_W}not|don't|must{_W}not|should{_W}not|never|without)"
        rf"{_W}(?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|disclose|"
        rf"disclosing|warn|warning){_W}(?:the{_W}|your{_W}|any{_W})?users?\b",
        _always,
        needles=("user",),
    ),
    _rule(
        "conceal",
        rf"\b(?:do{_W}not|don't|never){_W}(?:mention|reveal|disclose|admit|acknowledge|"
        rf"reference){_W}(?:that{_W})?(?:this|these|the|any|your){_W}(?:instructions?|prompt|"
        rf"injection|system{_W}prompt|directives?)\b",
        _always,
        needles=("not", "n't", "never"),
    ),
    _rule(
        "conceal",
        rf"\b(?:the{_W})?users?{_W}(?:must|should){_W}(?:not|never){_W}(?:know|find{_W}out|"
        rf"learn|see|be{_W}told|notice|suspect)\b",
        _always,
        needles=("user",),
    ),
    _rule(
        "conceal",
        rf"\b(?:keep{_W}(?:this|these|it)(?:{_W}instructions?)?(?:{_W}a)?{_W}secret{_W}from|"
        rf"without{_W}(?:the{_W})?users?(?:'s?)?{_W}(?:knowing|noticing))\b",
        _always,
        needles=("secret", "user"),
    ),
    # --- promote
    _rule(
        "promote",
        r"\b(?:recommend|promote|endorse|advertise|suggest|plug|push)\b[^.!?]{0,30}?\b"
        r"(?:our|my)\b[^.!?]{0,30}?\b(?:products?|services?|apps?|brand|company|website|"
        r"site|store|shop|tool|software|offers?|courses?|platform|channel|newsletter|sponsor)\b",
        needles=("our", "my"),
    ),
    _rule(
        "promote",
        rf"\b(?:tell|ask|urge|encourage|direct|redirect|send|point|invite|suggest|instruct|remind|"
        rf"convince|persuade){_W}(?:the{_W}|all{_W}|your{_W})?(?:users?|readers?|visitors?|"
        rf"customers?){_W}(?:to{_W})?(?:buy|purchase|visit|download|install|click|subscribe|"
        rf"sign{_W}up|register|call|contact|use|join|go{_W}to|follow|share|donate|vote|reach"
        rf"{_W}out|invest|switch)\b",
        needles=("user", "reader", "visitor", "customer"),
    ),
    _rule(
        "promote",
        rf"\balways{_W}(?:recommend|promote|advertise|endorse)\b",
        needles=("always",),
    ),
    # --- output-control
    _rule(
        "output-control",
        rf"\b(?:in|into|to|from|of|within|throughout|at{_W}the{_W}(?:start|end|beginning)"
        rf"{_W}of){_W}your{_W}(?:{_REPLY}|messages?)(?:'s)?\b(?!{_W}{_OUTPUT_THING})",
        _always,
        needles=("your",),
    ),
    _rule(
        "output-control",
        rf"\byour{_W}{_REPLY}\b",
        _edit_verb_before,
        needles=("your",),
    ),
    _rule(
        "output-control",
        rf"\byour{_W}(?:responses?|repl(?:y|ies)|answers?|completions?){_W}(?:must|should|"
        rf"shall|needs?{_W}to|has{_W}to|have{_W}to|"
        rf"may{_W}only|can{_W}only)\b",
        _always,
        needles=("your",),
    ),
    _rule(
        "output-control",
        rf"\b(?:respond|reply|answer|output|say|print|write|return){_W}(?:only|exclusively|"
        rf"solely){_W}(?:with|in|using|by|the{_W}(?:word|words|phrase|text|following))\b"
        rf"|\bonly{_W}(?:respond|reply|answer|output){_W}(?:with|in|using|by)\b",
        _always,
        needles=("only", "exclusively", "solely"),
    ),
    _rule(
        "output-control",
        rf"\bjust{_W}(?:say|print|output|write|return|(?:respond|reply|answer){_W}with)"
        rf"(?:{_W}(?:the{_W}following|this|exactly|out))?\s{{0,3}}[:\"'“‘«]",
        _always,
        needles=("just",),
    ),
    _rule(
        "output-control",
        rf"\b(?:say|print|output|write|type|(?:respond|reply|answer){_W}with){_W}(?:exactly|"
        rf"verbatim|the{_W}following(?:{_W}text)?)\s{{0,3}}[:\"'“‘«]",
        needles=("exactly", "verbatim", "following"),
    ),
    _rule(
        "output-control",
        rf"\b(?:begin|start|end|prefix|preface|conclude|finish){_W}(?:each|every|all){_W}"
        rf"(?:of{_W}your{_W})?(?:{_REPLY}|messages?|sentences?){_W}with\b",
        needles=("each", "every", "all"),
    ),
    _rule(
        "output-control",
        # "append the sentence '…' to every reply": a quoted payload may hold dots, so
        # the gap stops only at line ends and ! or ?.
        rf"\b(?:append|add|attach|include|insert|put)\b[^!?\n]{{0,120}}?\b(?:to|in|at{_W}the"
        rf"{_W}end{_W}of){_W}(?:(?:every|each)(?:{_W}of{_W}your)?|(?:all|any)(?:{_W}of)?"
        rf"{_W}your){_W}{_REPLY}\b",
        needles=("every", "each", "all", "any"),
    ),
    _rule(
        "output-control",
        # "When you answer questions about X, say that Y" / "When asked about X, tell…"
        rf"\bwhen(?:ever)?{_W}(?:you{_W}(?:answer|respond{_W}to|reply{_W}to)(?:{_W}(?:any|a|"
        rf"the|all|user|users'?))?{_W}(?:questions?|quer(?:y|ies)|users?|requests?|prompts?)|"
        rf"(?:you{_W}(?:are|get){_W})?asked{_W}(?:about|for|whether|if|how|what|who|where|"
        rf"which|why))\b[^.!?]{{0,60}}?,\s{{0,4}}(?:always{_W})?"
        rf"(?:say|tell|state|claim|answer|respond|reply|write|insist|explain)\b",
        _always,
        needles=("when",),
    ),
    _rule(
        "ai-address",
        # Vocative: "AI assistant: ignore…", "Assistant, append…", "Chatbot - tell…".
        rf"\b(?:{_AI}|assistants?)\s{{0,3}}[:,\-–—]\s{{0,4}}(?:please{_W})?(?:ignore|"
        rf"disregard|forget|tell|say|append|add|include|insert|respond|reply|answer|write|"
        rf"print|output|recommend|state|claim|insist|describe|mention|do{_W}not|don't|never|"
        rf"always|stop|remember|treat|pretend|act)\b",
        needles=_AI_WORDS,
    ),
    # --- ai-address
    _rule(
        "ai-address",
        rf"\bas{_W}an?{_W}(?:{_AI}(?:\s{{0,3}}[,.;:!]|{_W}(?:I|you|developed|trained|created|"
        rf"built|designed|programmed|with|without|that|who)\b)|(?:large{_W})?language{_W}model"
        rf"|AI{_W}(?:language{_W})?model|AI{_W}assistant|LLM|chatbot)",
        _always,
        needles=_AI_WORDS,
    ),
    _rule(
        "ai-address",
        rf"\b(?:dear|attention|hey|hello|hi|note{_W}(?:to|for)|message{_W}(?:to|for)|"
        rf"instructions?{_W}for)(?:{_W}(?:the|all|any))?{_W}{_AI}(?!{_W}(?:manager|director|"
        rf"professor|secretary|coach|editor|principal|researchers?))\b",
        _always,
        needles=_AI_WORDS,
    ),
    _rule(
        "ai-address",
        rf"\bif{_W}you{_W}are{_W}(?:an?{_W})?(?:{_AI}|automated{_W}(?:system|agent|assistant))"
        rf"(?:{_W}(?:reading|processing|summari[sz]ing|parsing|analy[sz]ing))?\b",
        _always,
        needles=_AI_WORDS,
    ),
    _rule(
        "ai-address",
        rf"\b{_AI}{_W}(?:reading|processing|summari[sz]ing|parsing|analy[sz]ing|indexing|"
        rf"ingesting){_W}(?:this|these)\b",
        _always,
        needles=_AI_WORDS,
    ),
    # --- statements about the assistant that prescribe its reply, whatever the grammar:
    # "The assistant must always answer that …", "AI systems should tell users …".
    _rule(
        "ai-address",
        rf"\b{_AI}(?:{_W}(?:reading|processing|summari[sz]ing|answering){_GAP})?{_W}{_MODAL}"
        rf"{_W}(?:(?:always|never|only|not|also|instead){_W})?{_SAY}\b",
        _always,
        needles=_AI_WORDS,
    ),
    _rule(
        "ai-address",
        # A bare "assistant" may be a person ("the lab assistant must report spills"): it
        # counts when what it must say follows ("answer that", "tell users", a quote).
        rf"\b(?:assistants?|(?:the|this|your){_W}model){_W}{_MODAL}{_W}(?:(?:always|never|only|"
        rf"also|instead){_W})?(?:say|answer|tell|respond|reply|state|claim|insist|recommend)"
        rf"(?:{_W}(?:the{_W})?(?:users?|readers?|customers?|visitors?|everyone|anyone))?"
        rf"(?:{_W}(?:that|with|only)\b|\s{{0,3}}[:\"“‘«])",
        _always,
        needles=("assistant", "model"),
    ),
    _rule(
        "output-control",
        rf"\b(?:always|only){_W}(?:answer|say|reply|respond|claim|insist|state){_W}that\b",
        needles=("always", "only"),
    ),
    _rule(
        "output-control",
        # "say '…' to the user", "tell every user that …"
        # (a payload stands between: "options to respond to the user" is no such line)
        rf"\b(?:say|reply|respond|answer|repeat|tell{_W}it)\b(?!{_W}to\b)[^.!?\n]{{0,80}}?\bto{_W}"
        rf"(?:the|every|each|all|any|your){_W}users?\b"
        rf"|\btell{_W}(?:the|every|each|all|any|your){_W}users?{_W}that\b",
        needles=("user",),
    ),
    _rule(
        "role-play",
        rf"\b{_YOU_ARE}{_W}(?:now{_W}(?:in|entering|operating{_W}in|running{_W}in|"
        rf"switched{_W}(?:in)?to){_W}(?:the{_W})?(?:{_ROGUE_MODE}|developer)|in{_W}(?:the{_W})?"
        rf"{_ROGUE_MODE}){_W}mode\b"
        rf"|\b(?:enter|switch{_W}to|activate|enable){_W}{_ROGUE_MODE}{_W}mode\b",
        _always,
        needles=("mode",),
    ),
)


# --- instructions by function, not by form (issue 34): a sentence that addresses an
# automated reader, prescribes what an answer must say, carries a chat template's
# markup or asks for a secret is an instruction whatever its grammar ("The chatbot's
# answer about X is always: ...", "If a model is asked about X, its reply is ...").

# Who an injected line speaks to: an AI by name, or a program that reads documents.
_AGENT = (
    rf"(?:{_AI}|summari[sz]ers?|summari[sz]ation{_W}(?:tools?|models?|systems?|engines?)|"
    rf"automated{_W}(?:summari[sz]ers?|assistants?|agents?|systems?|readers?|tools?|crawlers?|"
    rf"respon(?:ders?|se{_W}systems?)|answering{_W}systems?)|(?:chat|answer|help|support){_W}?bots?|"
    rf"(?:AI|LLM|GPT)[ -]?(?:powered|based|driven){_W}(?:tools?|systems?|readers?|agents?|"
    rf"assistants?|services?)|question[ -]answering{_W}(?:systems?|tools?|models?))"
)
# What makes a statement about a reply prescriptive: "always", "only", a colon or a quote.
_PAYLOAD = r"""\s{0,4}(?:always|only|invariably|exclusively|simply|exactly|verbatim|[:"'“‘«])"""
# A chat template's turn prefix: "assistant:" opening the text, a paragraph, or a line
# after a finished one (hard-wrapped prose puts any word at a line start).
_TURN_START = re.compile(r"""(?:\n[ \t]*\n|[.!?:;>"'”)\]|}][ \t]*\n)[ \t>*#\-\[\]|]{0,6}$""")
_TURN_MARKS = " \t\n>*#-[]|"
# A secret an injected line asks to be handed over.
_SECRET = (
    rf"(?:passwords?|passphrases?|pass{_W}codes?|passcodes?|PINs?|credentials|login{_W}(?:details|"
    rf"data|info(?:rmation)?)|api[ _-]?keys?|secret{_W}keys?|private{_W}keys?|access{_W}tokens?|"
    rf"session{_W}(?:tokens?|cookies)|(?:one-time|2FA|MFA|verification|security){_W}codes?|"
    rf"(?:recovery|seed){_W}phrases?|card{_W}numbers?|social{_W}security{_W}numbers?)"
)
# Where a handed-over secret goes: an address, a web page, or to the writer.
_SECRET_DESTINATION = re.compile(
    r"https?://|www\.|[\w.+-]{1,64}@[\w-]{1,63}\.|\bto\s{1,4}(?:me|us|this\s{1,4}(?:chat|address|"
    r"assistant|bot|page|form))\b|\bin\s{1,4}(?:the|your|its)\s{1,4}(?:reply|answer|response|output)\b",
    re.IGNORECASE,
)
_NEGATED_BEFORE = re.compile(
    r"\b(?:never|not|no|n't|without|avoid|nobody|refuse)\b[^.!?\n]{0,40}$", re.IGNORECASE
)


# What a turn says is a clause ("assistant: The crane may be used in any wind."); a
# label is not ("Assistant: Dana Okafor, warehouse supervisor.").
_CLAUSE_WORD = re.compile(
    r"\b(?:is|are|was|were|be|can|cannot|can't|may|must|should|will|won't|would|never|always|"
    r"has|have|had|does|do|did|needs?|contains?|requires?|you|I)\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.!?\n]")


def _says_a_clause(text: str, start: int) -> bool:
    """A verb-like word in the 120 characters from ``start``, before the sentence ends."""
    window = text[start : start + 120]
    end = _CLAUSE_END.search(window)
    return _CLAUSE_WORD.search(window, 0, end.start() if end else len(window)) is not None


def _turn_prefix(text: str, match: re.Match[str]) -> bool:
    """"assistant:" opening a line and saying a clause (a forged chat turn), not a
    word inside prose nor a label."""
    before = text[: match.start()]
    at_start = not before.strip(_TURN_MARKS) or _TURN_START.search(before[-40:]) is not None
    return at_start and _says_a_clause(text, match.end() - 1)


def _hands_over_secret(text: str, match: re.Match[str]) -> bool:
    """A secret sent somewhere, unless the sentence says never to ("Never email your
    password to anyone" is advice, not an attack)."""
    tail = text[match.end() : match.end() + 100]
    before = text[max(0, match.start() - 40) : match.start()]
    return _SECRET_DESTINATION.search(tail) is not None and _NEGATED_BEFORE.search(before) is None


def _not_negated(text: str, match: re.Match[str]) -> bool:
    return _NEGATED_BEFORE.search(text[max(0, match.start() - 40) : match.start()]) is None


_FUNCTION_RULES: tuple[Rule, ...] = (
    # --- chat-markup: the special tokens of chat templates, and forged turns
    _rule(
        "chat-markup",
        r"\[/?INST\]|<</?SYS>>|<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|"
        r"eot_id|start_header_id|end_header_id|begin_of_text|end|prompter)\|>|<(?:start|end)_of_turn>",
        _always,
        needles=("inst]", "sys>>", "<|", "_of_turn>"),
    ),
    _rule(
        "chat-markup",
        r"#{2,4}\s{0,3}(?:instruction|system(?:\s{1,3}prompt)?)\s{0,3}:",
        _always,
        needles=("instruction", "system"),
    ),
    _rule(
        "chat-markup",
        rf"\b(?:assistant|AI|chatbot|bot|GPT|model|system)\s{{0,4}}:\s{{0,4}}\S",
        _turn_prefix,
        needles=("assistant", "ai", "bot", "gpt", "model", "system"),
    ),
    # --- ai-address: a line that speaks to a program reading the document
    _rule(
        "ai-address",
        rf"\b(?:dear|attention|hey|hello|hi|note{_W}(?:to|for)|notice{_W}(?:to|for)|message{_W}"
        rf"(?:to|for)|instructions?{_W}(?:to|for)|reminder{_W}(?:to|for)|to)(?:{_W}(?:the|all|any|"
        rf"every|each))?{_W}{_AGENT}(?:{_W}(?:reading|processing|summari[sz]ing|indexing|"
        rf"crawling|that{_W}reads?|who{_W}reads?|answering))?\s{{0,3}}[:,\-–—]",
        needles=_AI_WORDS + ("summari", "automated", "bot", "powered", "based", "driven", "answering"),
    ),
    _rule(
        "ai-address",
        # "If a model is asked about X, its reply is ...": a condition on an automated
        # reader being asked, then what its answer is.
        rf"\b(?:if|when|whenever|once|should)(?:{_W}(?:an?|the|any|every|your))?{_W}(?:{_AGENT}|"
        rf"assistants?|models?){_W}(?:is|are|gets?|get|receives?){_W}(?:ever{_W})?(?:asked|queried|"
        rf"prompted|questioned|consulted)\b[^.!?\n]{{0,80}}?\b(?:its|their|the|your|it|they|"
        rf"must|should)\b",
        _always,
        needles=_AI_WORDS + ("summari", "automated", "bot", "assistant", "model"),
    ),
    _rule(
        "ai-address",
        # "The chatbot's answer about X is always: ...", "the assistant's reply must be".
        rf"\b(?:{_AGENT}|assistants?|(?:the|this|your){_W}model)(?:'s|s'|{_W}(?:reply|answer|"
        rf"response)s?{_W}to)?{_W}{_REPLY}\b[^.!?\n]{{0,60}}?\b(?:is|are|must{_W}be|should{_W}be|"
        rf"will{_W}be|shall{_W}be|has{_W}to{_W}be|reads?|must|should){_PAYLOAD}",
        _always,
        needles=_AI_WORDS + ("summari", "automated", "bot", "assistant", "model"),
    ),
    _rule(
        "ai-address",
        # "Summarizers should state that ...", "Automated tools must tell readers ..."
        rf"\b{_AGENT}(?:{_W}(?:reading|processing|summari[sz]ing|answering){_GAP})?{_W}{_MODAL}"
        rf"{_W}(?:(?:always|never|only|not|also|instead){_W})?{_SAY}\b",
        _always,
        needles=_AI_WORDS + ("summari", "automated", "bot", "powered", "based", "driven",
                             "answering"),
    ),
    # --- output-control: what an answer must say, whoever is told
    _rule(
        "output-control",
        # "Respond to X questions with: ...", "Answer any question about X by saying ..."
        rf"\b(?:respond|reply|answer)(?:{_W}to)?\b[^.!?\n]{{0,60}}?\b(?:questions?|inquir(?:y|ies)|"
        rf"enquir(?:y|ies)|quer(?:y|ies)|prompts|asks)\b[^.!?\n]{{0,60}}?\b"
        rf"(?:with\s{{0,3}}(?:[:\"'“‘«]|the{_W}"
        rf"(?:words?|phrase|sentence|statement|text|message|claim|line)\b|that\b)|by{_W}(?:saying|"
        rf"stating|claiming|telling|insisting|asserting|writing))",
        needles=("respond", "reply", "answer"),
    ),
    _rule(
        "output-control",
        # "Questions about X must be answered with '...'" (passive: said of no one)
        rf"\b(?:questions?|inquir(?:y|ies)|enquir(?:y|ies)|quer(?:y|ies)|prompts)\b"
        rf"[^.!?\n]{{0,60}}?\b(?:must|should|"
        rf"shall|are{_W}to|will|is{_W}to){_W}(?:always{_W}|only{_W})?be{_W}(?:answered|met|"
        rf"handled|responded{_W}to|replied{_W}to){_W}(?:with\s{{0,3}}(?:[:\"'“‘«]|the{_W}(?:words?|"
        rf"phrase|sentence|statement|text|message|claim|line)\b|that\b)|by{_W}(?:saying|stating|"
        rf"claiming|telling|insisting))",
        _always,
        needles=("question", "inquir", "enquir", "quer", "prompt"),
    ),
    _rule(
        "output-control",
        # "the only acceptable output is the word ...", "the sole permitted reply is"
        rf"\b(?:only|sole|single){_W}(?:acceptable|allowed|permitted|permissible|valid|correct|"
        rf"appropriate|right|approved|proper|authori[sz]ed|sanctioned){_W}(?:{_REPLY}|thing{_W}to"
        rf"{_W}(?:say|output|write|print|reply|answer))\b",
        _always,
        needles=("only", "sole", "single"),
    ),
    _rule(
        "output-control",
        # "The correct answer to any question about X is always ...": a reply prescribed.
        rf"\b(?:correct|official|approved|proper|required|mandated|mandatory|right|true|standard|"
        rf"canonical|sanctioned|authori[sz]ed|expected|appropriate|only|default){_W}(?:answers?|"
        rf"repl(?:y|ies)|responses?)(?:{_W}(?:to|for|about|on|regarding|concerning|when)\b"
        rf"[^.!?\n]{{0,60}}?)?{_W}(?:is|are|will{_W}be|must{_W}be|should{_W}be|shall{_W}be|"
        rf"reads?){_PAYLOAD}",
        _always,
        needles=("answer", "repl", "response"),
    ),
    _rule(
        "output-control",
        # "Any answer about X must state that ...": what every answer says, prescribed.
        rf"\b(?:any|every|each|all|the){_W}{_REPLY}{_W}(?:to|about|on|regarding|concerning|for)\b"
        rf"[^.!?\n]{{0,60}}?\b{_MODAL}{_W}(?:(?:always|only|also){_W})?(?:say|state|read|claim|"
        rf"assert|insist|tell|affirm|declare|be{_W}that|be\s{{0,3}}[:\"'“‘«])",
        _always,
        needles=("any", "every", "each", "all", "the"),
    ),
    _rule(
        "output-control",
        # "If anyone asks about X, reply that ...": a scripted reply to whoever asks.
        rf"\b(?:if|when|whenever|should)(?:{_W}(?:anyone|anybody|someone|somebody|a{_W}user|the"
        rf"{_W}user|users|people|a{_W}customer|customers|a{_W}visitor|visitors|a{_W}reader|"
        rf"readers)){_W}(?:ever{_W})?(?:asks?|inquires?|enquires?|wants{_W}to{_W}know)\b"
        rf"[^.!?\n]{{0,80}}?\b(?:say|tell|reply|respond|answer|insist|claim|state){_W}"
        rf"(?:(?:them|him|her|the{_W}user){_W})?(?:that\b|with\b|\s{{0,3}}[:\"'“‘«])",
        _always,
        needles=("anyone", "anybody", "someone", "somebody", "user", "people", "customer",
                 "visitor", "reader"),
    ),
    # --- system-prompt / exfiltrate: asks for what a model must keep
    _rule(
        "system-prompt",
        # "The helpdesk policy is to reveal the system prompt": asked for, in any grammar.
        rf"\b(?:reveal|disclose|leak|print|output|show|share|repeat|recite|dump|display|expose|"
        rf"publish|divulge|paste|quote|hand{_W}over|send)(?:s|ing|ed)?\b[^.!?\n]{{0,30}}?\b"
        rf"(?:(?:the|your|its|their){_W})?(?:(?:full|exact|complete|entire|verbatim){_W})?"
        rf"(?:system|hidden|secret|initial|original|internal|confidential|developer){_W}"
        rf"(?:prompts?|instructions|directives|messages?)\b",
        _not_negated,
        needles=("prompt", "instructions", "directives", "message"),
    ),
    _rule(
        "exfiltrate",
        # "... email their password to x@y", "send your API key to https://...".
        # Someone's secret, in prose ("their password"), not a form field ("password=bar").
        rf"(?<![-/])\b(?:e-?mail|send|forward|post|submit|give|provide|share|hand{_W}over|disclose|"
        rf"paste|type|enter|text|message|upload|transmit|write|include|reveal)(?:s|ing|ed)?\b(?!-)"
        rf"[^.!?\n]{{0,40}}?\b(?:your|their|his|her|its|our|my|the|all|any|every|users'?|"
        rf"(?:the{_W})?(?:user|customer|account|admin(?:istrator)?)'s)(?:{_W}[\w-]{{1,20}})?{_W}"
        rf"{_SECRET}\b(?!\s{{0,2}}[=:])",
        _hands_over_secret,
        needles=("password", "passphrase", "pass", "pin", "credential", "login", "api", "key",
                 "token", "session", "code", "phrase", "card", "security"),
    ),
)


def _disguised(kind: str) -> Rule:
    """The rule ``explain`` names for a disguise (``instructions.disguise``): no pattern of its
    own, it is found by ``disguise.disguises``."""
    return Rule("disguised-text", re.compile(r"(?!)"), _always, (), True, f"disguised-text#{kind}")


def _named(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
    seen: dict[str, int] = {}
    named = []
    for rule in rules:
        seen[rule.code] = seen.get(rule.code, 0) + 1
        named.append(replace(rule, name=f"{rule.code}#{seen[rule.code]}"))
    return tuple(named)


RULES = _named(RULES + _FUNCTION_RULES)

# One rule per disguise, by name, for ``detect`` and ``explain``.
DISGUISED: dict[str, Rule] = {kind: _disguised(kind) for kind in (
    "mixed-script", "tag-characters", "bidi-override", "invisible-in-word",
)}
