"""Generate the two PDF documents of the Tether demo corpus.

The PDFs are committed next to the other corpus files; this script documents how they
were made and regenerates them:

    python -m tether.demo.make_pdfs          # or: python src/tether/demo/make_pdfs.py

Requirements: fpdf2 (``from fpdf import FPDF``). Text uses the core Helvetica font, so
every character must be latin-1 (the degree sign is fine; the euro sign is not, hence
"EUR"). Creation dates are fixed, so regenerating with the same fpdf2 version gives
byte-identical files. All content is fictional demo material, simplified, and not for
operational use.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from fpdf import FPDF

CORPUS = Path(__file__).resolve().parent / "corpus"

# A document is a list of pages; a page is a list of blocks:
#   ("h1", text) title, ("h2", text) section heading, ("p", text) paragraph,
#   ("li", text) bullet item, ("meta", text) small grey line, ("table", rows).

POLICY = {
    "path": "policy/norvale-exposure-limit-policy.pdf",
    "title": "Norvale Chemicals Occupational Exposure Limit Policy (NCP-07)",
    "author": "Norvale Chemicals Occupational Health",
    "subject": "Internal exposure limits, Revision 2 (2026) with Revision 1 (2024) values",
    "header": "Norvale Chemicals - NCP-07 Occupational Exposure Limit Policy",
    "created": datetime(2025, 12, 4, 9, 0, 0, tzinfo=timezone.utc),
    "pages": [
        [
            ("h1", "Occupational Exposure Limit Policy (NCP-07)"),
            ("meta", "Policy owner: Dr. Imogen Sato, Director of Occupational Health"),
            ("meta", "Current revision: Revision 2, approved 4 December 2025, effective 15 January 2026"),
            ("meta", "Previous revision: Revision 1, approved 12 February 2024, effective 1 March 2024"),
            ("h2", "1. Purpose and scope"),
            ("p", "This policy sets the Norvale internal limits (NILs) for airborne chemicals at all "
                  "Norvale Chemicals sites, including Ridgeport and Harlow Bend. A Norvale internal "
                  "limit is never higher than the legal limit set by the Occupational Air Standards "
                  "Board (OASB). Where the Industrial Hygiene Advisory Council (IHAC) recommends a "
                  "lower value, the Director of Occupational Health reviews it within 12 months. The "
                  "policy does not cover noise, radiation or biological agents."),
            ("h2", "2. Norvale internal limits (8-hour averages)"),
            ("table", [
                ("Substance", "Revision 1 (2024)", "Revision 2 (2026)", "OASB limit"),
                ("Toluene", "40 ppm", "20 ppm", "50 ppm"),
                ("Methanol", "150 ppm", "100 ppm", "200 ppm"),
                ("Acetone", "500 ppm", "250 ppm", "1,000 ppm"),
                ("Hydrogen sulfide", "5 ppm", "1 ppm", "10 ppm"),
                ("Benzene", "0.5 ppm", "0.25 ppm", "1 ppm"),
                ("Formaldehyde", "0.3 ppm", "0.3 ppm", "0.75 ppm"),
            ]),
            ("p", "Under Revision 1 the Norvale internal limit for toluene was 40 ppm, and Revision 2 "
                  "lowers it to 20 ppm from 15 January 2026. The formaldehyde limit of 0.3 ppm did "
                  "not change between the two revisions."),
        ],
        [
            ("h2", "3. Monitoring"),
            ("p", "Each site measures exposure for every similar exposure group at least once a year. "
                  "Where a result is above 50 percent of the NIL, monitoring becomes quarterly."),
            ("h2", "4. Exceedances"),
            ("p", "Under Revision 1, a result above a NIL had to be reported to the Director of "
                  "Occupational Health within 48 hours. Revision 2 shortens the reporting deadline "
                  "for a result above a NIL to 24 hours. Work in the affected area stops until the "
                  "controls have been checked. Respirators are a temporary measure and are never "
                  "accepted as the permanent answer to an exceedance."),
            ("h2", "5. Budget and costs"),
            ("p", "Under Revision 1 each site received an annual monitoring budget of EUR 48,000. "
                  "Revision 2 raises the annual monitoring budget to EUR 62,500 per site. A single "
                  "instrument costing more than EUR 5,000 needs the approval of the Director of "
                  "Occupational Health. Employees are never charged for respirators, monitoring "
                  "badges or medical tests required by this policy."),
        ],
        [
            ("h2", "6. Reasons for Revision 2"),
            ("li", "The hydrogen sulfide release at Harlow Bend on 14 August 2025 (incident HB-2025-031)."),
            ("li", "New IHAC recommendations for acetone and benzene published in 2025."),
            ("li", "A review of toluene results from 2024 and 2025, which showed that 20 ppm can be "
                   "met with existing ventilation."),
            ("h2", "7. Next review"),
            ("p", "The next scheduled review of NCP-07 is due by 31 December 2027."),
        ],
    ],
}

SPILL = {
    "path": "procedures/spill-response-procedure.pdf",
    "title": "Chemical Spill Response Procedure (SR-12)",
    "author": "Norvale Chemicals Environment, Health and Safety",
    "subject": "Minor and major chemical spills at Norvale Chemicals sites",
    "header": "Norvale Chemicals - SR-12 Chemical Spill Response Procedure",
    "created": datetime(2025, 2, 3, 8, 30, 0, tzinfo=timezone.utc),
    "pages": [
        [
            ("h1", "Chemical Spill Response Procedure (SR-12)"),
            ("meta", "Revision C, issued 3 February 2025. Approved by Lena Ostrowski, Head of EHS."),
            ("h2", "1. Minor or major?"),
            ("p", "A minor spill is less than 1 litre of a low-hazard liquid that trained staff can "
                  "clean up with the local spill kit. Spills of highly toxic substances such as "
                  "benzene count as minor only below 100 mL. Formalin spills above 1 litre are "
                  "always major."),
            ("p", "A spill is major whenever someone is injured, the substance is unknown, the "
                  "liquid reaches a drain, a gas is released, or there is a fire."),
            ("h2", "2. Minor spills"),
            ("li", "People nearby are warned and the area is kept clear."),
            ("li", "The responder puts on the gloves and goggles listed on the safety data sheet."),
            ("li", "The spill is ringed with absorbent socks and then absorbed from the outside in."),
            ("li", "Used absorbent is bagged, labelled and treated as hazardous waste."),
        ],
        [
            ("h2", "3. Major spills"),
            ("p", "The area is evacuated and the emergency team is called on extension 4444. The "
                  "isolation distance is at least 25 metres for liquid spills and at least 100 "
                  "metres for gas releases such as chlorine or ammonia. No one re-enters the area "
                  "until the Emergency Response Team leader declares it safe."),
            ("h2", "4. Absorbents and neutralisers"),
            ("li", "Acid spills are neutralised with sodium bicarbonate or a commercial acid neutraliser."),
            ("li", "Alkali spills, including sodium hydroxide and Brightclean X7, are neutralised with "
                   "a citric acid neutraliser."),
            ("li", "Oxidisers such as nitric acid and hydrogen peroxide are absorbed only with "
                   "vermiculite or dry sand; sawdust and paper are never used on them."),
            ("li", "Activated carbon pads are used on solvent spills to reduce vapour."),
            ("li", "Mercury is collected with a mercury spill kit, never with a vacuum cleaner."),
        ],
        [
            ("h2", "5. Spill kits"),
            ("p", "Spill kits are placed within 30 metres of every chemical store and are checked "
                  "monthly. Each standard kit can absorb up to 50 litres of liquid."),
            ("h2", "6. Waste and reporting"),
            ("p", "Spill waste is stored for no longer than 90 days before collection. Every spill, "
                  "including minor ones, is reported in SafetyNet within 24 hours. Spills of more "
                  "than 20 litres are reviewed by the site safety committee."),
        ],
    ],
}


class _Doc(FPDF):
    def __init__(self, header_text: str) -> None:
        super().__init__(format="A4")
        self._header_text = header_text

    def header(self) -> None:
        self.set_font("Helvetica", "I", 8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 6, self._header_text, new_x="LMARGIN", new_y="NEXT")
        self.ln(4)
        self.set_text_color(0, 0, 0)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", "I", 8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 8, f"Page {self.page_no()} of {{nb}} - Fictional demo document, not for operational use",
                  align="C")
        self.set_text_color(0, 0, 0)


def _render(spec: dict) -> FPDF:
    pdf = _Doc(spec["header"])
    pdf.set_creation_date(spec["created"])
    pdf.set_title(spec["title"])
    pdf.set_author(spec["author"])
    pdf.set_subject(spec["subject"])
    pdf.set_creator("tether/demo/make_pdfs.py")
    pdf.set_lang("en")
    pdf.set_auto_page_break(auto=True, margin=20)
    for page in spec["pages"]:
        pdf.add_page()
        for kind, content in page:
            if kind == "h1":
                pdf.set_font("Helvetica", "B", 16)
                pdf.multi_cell(0, 9, content, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
            elif kind == "h2":
                pdf.ln(3)
                pdf.set_font("Helvetica", "B", 12)
                pdf.multi_cell(0, 7, content, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(1)
            elif kind == "meta":
                pdf.set_font("Helvetica", "", 9)
                pdf.multi_cell(0, 5, content, new_x="LMARGIN", new_y="NEXT")
            elif kind == "p":
                pdf.set_font("Helvetica", "", 11)
                pdf.multi_cell(0, 6, content, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
            elif kind == "li":
                pdf.set_font("Helvetica", "", 11)
                pdf.set_x(pdf.l_margin + 4)
                pdf.multi_cell(0, 6, "- " + content, new_x="LMARGIN", new_y="NEXT")
            elif kind == "table":
                pdf.set_font("Helvetica", "", 10)
                with pdf.table(col_widths=(40, 35, 35, 30), text_align="LEFT", line_height=6) as table:
                    for row in content:
                        cells = table.row()
                        for value in row:
                            cells.cell(value)
                pdf.ln(3)
            else:  # pragma: no cover - spec error
                raise ValueError(f"unknown block kind {kind!r}")
    return pdf


def main() -> None:
    for spec in (POLICY, SPILL):
        out = CORPUS / spec["path"]
        out.parent.mkdir(parents=True, exist_ok=True)
        _render(spec).output(str(out))
        print(f"wrote {out.relative_to(CORPUS.parent)}")


if __name__ == "__main__":
    main()
