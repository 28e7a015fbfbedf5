"""Figure extraction (a pure function) and the figure check, as case tables."""

from __future__ import annotations

import pytest

from tether.verify import check, extract_figures, same_figure


def _one(text: str):
    figs = extract_figures(text)
    assert len(figs) == 1, figs
    return figs[0]


@pytest.mark.parametrize(
    "text, canon, value",
    [
        ("412500", "412500", 412500),
        ("14125001 units", "14125001", 14125001),
        ("1,050,000 people", "1050000", 1050000),
        ("1050000 people", "1050000", 1050000),
        ("a rate of 1.5", "1.5", 1.5),
        ("a rate of 15", "15", 15),
        ("1e6 cells", "1000000", 1e6),
        ("2.5E-3 mol", "0.0025", 0.0025),
        ("1,000.5 tonnes", "1000.5", 1000.5),
        ("1.000,5 tonnes", "1000.5", 1000.5),
        ("1.000.000 Einwohner", "1000000", 1e6),
        ("10^6 cells", "1000000", 1e6),
        ("10\u2076 cells", "1000000", 1e6),
        ("1.5 x 10^6 cells", "1500000", 1.5e6),
        ("\u00bd cup", "0.5", 0.5),
        ("1\u00bd cups", "1.5", 1.5),
        ("-5 degrees", "-5", -5),
        ("\u22123.2 points", "-3.2", -3.2),
        ("three apples", "3", 3),
        ("twenty-five cats", "25", 25),
        ("two hundred men", "200", 200),
        ("a dozen eggs", "12", 12),
        ("$1.2 billion", "1200000000", 1.2e9),
        ("\u20ac5m budget", "5000000", 5e6),
        ("5 million people", "5000000", 5e6),
        ("version 1.5.3", "1.5.3", None),
    ],
)
def test_numbers_in_many_formats(text, canon, value):
    fig = _one(text)
    assert fig.canon == canon
    if value is None:
        assert fig.value is None
    else:
        assert fig.value == pytest.approx(value)


@pytest.mark.parametrize(
    "text, attrs",
    [
        ("2 to 5 mg", {"value": 2, "high": 5, "unit": "mg"}),
        ("2\u20135 mg", {"value": 2, "high": 5, "unit": "mg"}),
        ("between 2 and 5 patients", {"value": 2, "high": 5}),
        ("$2-5 million", {"value": 2e6, "high": 5e6, "currency": "$"}),
        ("the 2019-20 season", {"kind": "year", "canon": "2019-2020"}),
        ("40%", {"value": 40, "unit": "%"}),
        ("40 per cent", {"value": 40, "unit": "%"}),
        ("40 percent", {"value": 40, "unit": "%"}),
        ("12 ppm", {"unit": "ppm"}),
        ("0.5 mg/m3", {"unit": "mg/m3"}),
        ("0.5 mg/m\u00b3", {"unit": "mg/m3"}),
        ("25 \u00b0C", {"unit": "\u00b0c"}),
        ("30\u00b0C", {"unit": "\u00b0c"}),
        ("12 kg", {"unit": "kg"}),
        ("about 500 people", {"value": 500, "qualifier": "approx"}),
        ("approximately 500", {"qualifier": "approx"}),
        ("more than 3 km", {"qualifier": "min", "unit": "km"}),
        ("at least 3", {"qualifier": "min"}),
        ("up to 12 kg", {"qualifier": "max", "unit": "kg"}),
        ("US$ 40", {"currency": "$"}),
        ("40 euros", {"currency": "\u20ac"}),
        ("in 1066", {"kind": "year", "canon": "1066"}),
        ("the 1990s", {"kind": "year", "canon": "1990s"}),
        ("the 10th century", {"kind": "ordinal", "value": 10}),
    ],
)
def test_qualifiers_units_and_ranges(text, attrs):
    fig = _one(text)
    for name, want in attrs.items():
        assert getattr(fig, name) == want, (name, fig)


@pytest.mark.parametrize(
    "text",
    ["COVID-19 spread", "SARS-CoV-2 virus", "5G networks", "a 3D model", "H1N1 flu", "F-35 jets"],
)
def test_identifiers_are_not_figures(text):
    assert extract_figures(text) == []


def test_one_as_a_pronoun_is_not_a_figure():
    assert extract_figures("No one came, and one must wait.") == []


def test_year_qualifier_is_attached_to_each_figure():
    figs = [f for f in extract_figures("In 2026 revenue was $5m; in 2027 it was $7m.") if f.kind != "year"]
    assert [(f.canon, f.year) for f in figs] == [("5000000", "2026"), ("7000000", "2027")]
    figs = extract_figures("Revenue rose from $4m in 2025 to $5m in 2026.")
    assert [(f.canon, f.year) for f in figs if f.kind != "year"] == [("4000000", "2025"), ("5000000", "2026")]


def test_same_figure_is_value_based():
    a, b, c = _one("1,050,000"), _one("1050000"), _one("1.05 million")
    assert same_figure(a, b) and same_figure(a, c)
    assert not same_figure(_one("1.5"), _one("15"))
    assert not same_figure(_one("412500"), _one("14125001"))
    assert not same_figure(_one("5 km"), _one("5 kg"))
    assert not same_figure(_one("5%"), _one("5 people"))
    assert same_figure(_one("about 1.2 million"), _one("1,234,567"))  # an approximate claim
    assert not same_figure(_one("1.2 million"), _one("1,234,567"))


# The figure check against passages: (sentence, passage, outcome, reason fragment).
FIGURE_CASES = [
    ("The plant emitted 412500 tonnes in 2026.", "The plant emitted 14125001 tonnes in 2026.",
     "contradicted", "figure:412500 not in passage, passage has 14125001"),
    ("The fund holds 1,050,000 shares.", "The fund holds 1050000 shares.", "supported", None),
    ("The fund holds 1050000 shares.", "The fund holds 1.05 million shares.", "supported", None),
    ("The budget is 1e6 dollars.", "The budget is 1,000,000 dollars.", "supported", None),
    ("The rate rose to 1.5 percent last year.", "The rate rose to 15 percent last year.",
     "contradicted", "figure:1.5"),
    ("Revenue was $5m in 2027.", "Revenue was $5m in 2026 and $7m in 2027.",
     "contradicted", "is the 2026 figure, not 2027"),
    ("About 500 people attended the rally.", "500 people attended the rally.", "supported", None),
    ("500 people attended the rally.", "About 500 people attended the rally.",
     "contradicted", "(qualifier)"),
    ("More than 500 people attended the rally.", "Fewer than 500 people attended the rally.",
     "contradicted", "(qualifier)"),
    ("The dose is 2 to 5 mg daily.", "The dose is 2\u20135 mg daily.", "supported", None),
    ("The dose is 2 to 6 mg daily.", "The dose is 2\u20135 mg daily.", "contradicted", "figure:2-6"),
    ("Three people were injured in the fire.", "3 people were injured in the fire.", "supported", None),
    ("Four people were injured in the fire.", "3 people were injured in the fire.",
     "contradicted", "figure:4"),
    ("The tower is 300 metres tall.", "The tower is tall and stands in the old town.",
     "mentioned", "figure:300 not in passage"),
    ("The tower is 300 metres tall.", "The tower is 324 metres tall.", "contradicted", "figure:300"),
    ("Temperatures fell to -5 \u00b0C overnight.", "Temperatures fell to 5 \u00b0C overnight.",
     "contradicted", "figure:-5"),
    ("The bridge was built in the 12th century.", "The bridge was built in the 11th century.",
     "contradicted", "figure:12"),
    ("Unemployment was 4.2% in May.", "Unemployment was 4.2% in May.", "supported", None),
    ("The fine was $1.2 billion.", "The regulator imposed a fine of $1.2 billion on the bank.",
     "supported", None),
    ("The fine was $1.3 billion.", "The regulator imposed a fine of $1.2 billion on the bank.",
     "contradicted", "figure:1300000000"),
    ("The lake covers 12 km2 and the valley 40 km2.", "The lake covers 12 km2 and the valley 12 km2.",
     "contradicted", "figure:40"),
]  # fmt: skip


@pytest.mark.parametrize("sentence, passage, outcome, reason", FIGURE_CASES)
def test_figure_check(settings, sentence, passage, outcome, reason):
    result = check(sentence, passage, settings=settings)
    assert result.outcome == outcome, result
    if reason is not None:
        assert any(reason in r for r in result.reasons), result.reasons
        assert result.checker in ("figures", "years")
