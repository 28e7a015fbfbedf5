"""The extractor table, and the demo corpus extracted exactly as before the split.

A stored citation is a character range in a version's text, so extraction must give
the same text for the same file, byte for byte, whatever its code looks like inside.
The pins below were recorded by the single-module extractor (before ``extract/`` was
split per format); a parser upgrade (pypdf, trafilatura) that changes them is a
deliberate change, to be pinned again and noted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

import tether
from tether import ids
from tether.config import Settings
from tether.ingest.extract import (
    EXTRACTORS,
    SUPPORTED_EXTENSIONS,
    Extracted,
    Extractor,
    extract_bytes,
    extract_file,
)

CORPUS = Path(tether.__file__).parent / "demo" / "corpus"

# (path in the corpus, extractor, page regions, hidden-text flags, version of the text).
# HTML versions changed once, when extraction began marking headings (``## Title``,
# docs/adr/0021): their citations relocate onto the same quotes. Markdown is rendered
# (docs/adr/0046): a file without markup keeps its text and version; the one with
# ``**Site:**`` lines changed, and its citations relocate onto the same words.
PINS = [
    ('bulletins/brightclean-x7-supplier-bulletin.html', 'trafilatura', 0, ('hidden-html', 'output-control', 'ai-address'),
     'sha256:867eaaacdd66959eab09bea50722c2b1ef15612653c9617bf3095f249470534f'),
    ('incidents/harlow-bend-2025-incident-summary.md', 'markdown-it-py', 0, (),
     'sha256:fc5c4e962332b97a7d88de3779bb9c52b81df73d5f93b069fe521c50652a1203'),
    ('policy/norvale-exposure-limit-policy.pdf', 'pypdf', 3, (),
     'sha256:57b74480cfbc0af17e86dc0cc11a055f95e1dc373477d3c5d96ba256795dc60c'),
    ('procedures/eye-exposure-first-aid.md', 'markdown-it-py', 0, (),
     'sha256:67d7668a0f067ea7242e9c229cc1dd19f0cb05866729ccbe185fba3189f9f3b4'),
    ('procedures/glove-selection.html', 'trafilatura', 0, (),
     'sha256:cc0a8d5b74acd6fe3be3583ce333d07d22e5018178e7a8abe8f8ff7c2e730847'),
    ('procedures/spill-response-procedure.pdf', 'pypdf', 3, (),
     'sha256:40f3e6d5e72612cfa010482fabb022ec1850051dde17d55d0361d7a70c52fd4b'),
    ('procedures/storage-incompatibilities.md', 'markdown-it-py', 0, (),
     'sha256:d913ac809b64b7eac58bd93d45e95a122571131b416b58df854619e4f4f1c14e'),
    ('substances/acetone.md', 'markdown-it-py', 0, (),
     'sha256:43bb77d09f28f5400bca6eccd8170dde3ebb0c25a9e853c06f9fb49e24ceb68e'),
    ('substances/ammonia.txt', 'text', 0, (),
     'sha256:549aa8cfbe6d2201f835373bbe3a735b6676375f78465a4f1929d6f08123a114'),
    ('substances/benzene.html', 'trafilatura', 0, (),
     'sha256:f589165ec6b916ebbc28376c35e46ab07fb7dde7caec7ebfb3d9bed907040326'),
    ('substances/carbon-monoxide.html', 'trafilatura', 0, (),
     'sha256:4a069d56ed29fe4ffaaa55c1976f5a876d805a25781b846145be4fccd3f3a6bc'),
    ('substances/chlorine.md', 'markdown-it-py', 0, (),
     'sha256:f42916cdbbd89b6c7541aaf929076197925f19d0c7884140226e15ba25cf56cd'),
    ('substances/ethanol.txt', 'text', 0, (),
     'sha256:f1c5d6171f3583be413e5c457aa234946b1f4c8415c369a6698d5069d049610c'),
    ('substances/formaldehyde.txt', 'text', 0, (),
     'sha256:de9bace1d7f79ba6335be6ec7fc2d803c4529b09ce00383fd1181d2f1f3f9927'),
    ('substances/hydrogen-peroxide.md', 'markdown-it-py', 0, (),
     'sha256:3c922a8d07a75f46f7b5ea8a522fe2f342cbbdd77d93321bb0f4268671575200'),
    ('substances/hydrogen-sulfide.md', 'markdown-it-py', 0, (),
     'sha256:3fdc068e9689e8330e45418eb297e1dadad15c4b58abae1e0d8f0f368998189a'),
    ('substances/isopropanol.md', 'markdown-it-py', 0, (),
     'sha256:65322ab3a01da9271d378f84b6412aa66d84dae86d7e5c28dcff976f40c3d11c'),
    ('substances/lead.md', 'markdown-it-py', 0, (),
     'sha256:13abfd7df4401b686f0ef04231ec0a71d2859a55a1d878e20fa58eb9725b8bce'),
    ('substances/mercury.html', 'trafilatura', 0, (),
     'sha256:b324bbd91eaa26bd4dc72811c9723a8e9f5e34b71a0fd3ce674a5bc7b669986b'),
    ('substances/methanol.md', 'markdown-it-py', 0, (),
     'sha256:3bb7c312327c18cb1056f73ee317d2e26b40d9ee9e688838016ac1230f7ac551'),
    ('substances/nitric-acid.txt', 'text', 0, (),
     'sha256:c26a46aab8f4628274c7acd6be170c6e9a5a7b1bcd3d7473802676643569f233'),
    ('substances/sodium-hydroxide.txt', 'text', 0, (),
     'sha256:78f92aa369aa558fcd402c4bba5de73274b64b16517790d5826063995e528dc1'),
    ('substances/sulfuric-acid.md', 'markdown-it-py', 0, (),
     'sha256:d55780edb03e7d51589a15137c5782daec25746e557ce5ed2802c52aa94aa525'),
    ('substances/toluene.md', 'markdown-it-py', 0, (),
     'sha256:565cede001084cd15f87e083f418d28f924c6cb395629abfe67c09940f14dff1'),
    ('transcripts/gas-hazards-toolbox-talk-transcript.txt', 'text', 0, (),
     'sha256:13db020ee0e75b949e6a5dc466dd7ea6bae3b6d81b0d28204cb5e2fea50263bf'),
]


def _pdf(text: str) -> bytes:
    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    pdf.add_page()
    pdf.multi_cell(0, 8, text)
    return bytes(pdf.output())


SAMPLES = {
    "text/plain": b"Wear gloves.",
    "text/markdown": b"# Wear gloves.",
    "text/html": b"<p>Wear gloves.</p>",
    "application/pdf": _pdf("Wear gloves."),
}


def test_every_supported_media_type_has_one_extractor() -> None:
    assert set(EXTRACTORS) == set(SUPPORTED_EXTENSIONS.values()) == set(SAMPLES)


@pytest.mark.parametrize("media_type", sorted(SAMPLES))
def test_each_extractor_reads_its_format(media_type: str) -> None:
    draft = EXTRACTORS[media_type].extract(SAMPLES[media_type], settings=Settings(), name="x",
                                           charset=None)
    assert isinstance(draft, Extracted) and draft.media_type == media_type
    assert "Wear gloves." in draft.text
    assert draft.hidden_flags == ()


def test_a_new_format_plugs_in_through_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    class Shout:
        def extract(self, data: bytes, *, settings: Settings, name: str,
                    charset: str | None) -> Extracted:
            return Extracted(text=data.decode().upper() + "  \n", media_type="text/plain",
                             extractor="shout 1", regions=(), title=None)

    shout: Extractor = Shout()
    monkeypatch.setitem(EXTRACTORS, "text/plain", shout)
    out = extract_bytes(b"wear gloves", media_type="text/plain", settings=Settings())
    assert (out.text, out.extractor) == ("WEAR GLOVES", "shout 1")  # shared checks still run


def test_the_corpus_is_pinned_whole() -> None:
    files = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*")
                   if p.is_file() and p.suffix in SUPPORTED_EXTENSIONS)
    assert files == [pin[0] for pin in PINS]


@pytest.mark.parametrize(("name", "extractor", "pages", "hidden", "version"), PINS,
                         ids=[pin[0] for pin in PINS])
def test_demo_corpus_extracts_as_before(
    name: str, extractor: str, pages: int, hidden: tuple[str, ...], version: str
) -> None:
    out = extract_file(CORPUS / name, settings=Settings())
    assert ids.version_of(out.text) == version
    assert out.extractor.split()[0] == extractor
    assert len(out.regions) == pages
    assert out.hidden_flags == hidden
