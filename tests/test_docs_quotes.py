"""What docs/ and README put in a paper's mouth is the paper's own text (issue 40).

The convention these tests hold:

- A paper's words go in curly double quotes “…” (or French guillemets «…»), or in
  a markdown blockquote whose last line ends with a parenthesised citation of the
  paper, e.g. ``> … (Meyer 2014, §4.2.3)``; only when they are verbatim from the
  paper's text in ``../shared/seeds/*.txt`` (``../shared`` beside the repository
  root). French stays French; its English translation follows in parentheses,
  outside the quotation marks (for a blockquote, after the blockquote).
- “…” inside a quotation (or ``[…]``, ``...``) is an omission: the pieces must
  occur in that order in one paper.
- Anything that is not verbatim (a paraphrase, the model's reading, a translation)
  uses straight quotes or none; straight quotes are not checked.
- Every curly-quoted span of at least four words is checked, in docs/*.md,
  README.md and the texts ``rrcheck list`` prints (protocol sources, mutant rules,
  workload descriptions, property descriptions).

A quotation matches after normalisation: Unicode compatibility forms (ligatures),
case, whitespace (and spaces before punctuation, as French typesets them),
hyphens (dropped, so a word hyphenated or wrapped at a line break joins up), dashes, typographic
apostrophes and quotes, the markup the text files carry (``*``, ``$``, braces,
``_`` of subscripts, so ``m_8`` reads as ``m8``; LaTeX ``\\in``, ``\\neq``, … as
their symbols).

No doc, README or rule text cites a paper by its file name (``003_…txt``,
``seed-004``, a bare ``003 §``): papers are cited by authors, title and section.
"""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]

MIN_WORDS = 4
LATEX = {"in": "∈", "notin": "∉", "neq": "≠", "ne": "≠", "leftarrow": "←", "rightarrow": "→",
         "cup": "∪", "cap": "∩", "emptyset": "∅", "wedge": "∧", "vee": "∨", "perp": "⊥", "leq": "≤",
         "geq": "≥", "times": "×", "sum": "∑", "quad": " ", "ldots": "…", "dots": "…", "cdot": "·"}
QUOTES = str.maketrans({"’": "'", "‘": "'", "‛": "'", "′": "'", "“": '"', "”": '"',
                        "„": '"', "«": '"', "»": '"', "″": '"'})
OMISSION = re.compile(r"\s*(?:\[\s*(?:…|\.\.\.)\s*\]|…|\.\.\.)\s*")
CITATION = re.compile(r"(Bouteiller|Herault|Bosilca|Dongarra|Guermouche|Ropars|Meyer|Pingali|Bronevetsky|"
                      r"Jitsumoto|Jitumoto|Todoroki|Chandy|§|\bFig\.|\bFigure\b|\bslides?\b|\blines? \d)")
# a paper cited by its file: 003_c251….txt, seed-004, "003 §3.2", "001, The Global View"
FILE_CITATION = re.compile(r"\b00[0-4]_|\bseed-00\d|(?<![\d.,])\b00[0-4]\b(?!\.\d)"
                           r"(?=\s*(?:§|,\s+[A-Z]|Fig\.|Meyer|Bouteiller|Guermouche|Pingali|Jitsumoto))")


def norm(text: str) -> str:
    """The comparable form of a paper's text or of a quotation of it."""
    s = unicodedata.normalize("NFKC", text.replace("…", "\x00")).replace("\x00", "…")
    s = re.sub(r"\\(?:text|mathrm|textit|textbf|mathit)\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\([A-Za-z]+)", lambda m: LATEX.get(m.group(1), m.group(1)), s)
    s = s.translate(QUOTES).replace("\u00ad", "").replace('"', "")  # quotes inside a quotation
    s = re.sub(r"\s*[-‐‑]\s*", "", s)     # hyphens, also at a line break: commu-\nnication, non-\nFIFO
    s = re.sub(r"[–—]", " ", s)             # dashes
    s = re.sub(r"[*$`{}_\\^#]", "", s)                          # markup, subscripts (m_8 = m8)
    s = re.sub(r"\s+", " ", s.casefold())
    s = re.sub(r" (?=[.,;:!?)\]])", "", s)                      # French spacing before punctuation
    return re.sub(r"(?<=[(\[]) ", "", s).strip()


def _pieces(quote: str) -> list[str]:
    return [norm(p) for p in OMISSION.split(quote) if norm(p)]


def _found(pieces: list[str], papers: dict[str, str]) -> bool:
    """Every piece, in order, in one paper."""
    for text in papers.values():
        at = 0
        for p in pieces:
            at = text.find(p, at)
            if at < 0:
                break
            at += len(p)
        else:
            return True
    return False


def _words(quote: str) -> int:
    return sum(1 for t in OMISSION.sub(" ", quote).split() if re.search(r"\w", t))


def quotations(text: str) -> list[tuple[int, str]]:
    """(line, quoted words) of every quotation the convention above defines in a markdown text."""
    lines = text.split("\n")
    fence = False
    for i, line in enumerate(lines):  # blank out fenced code, keeping the line numbers
        if line.lstrip().startswith("```"):
            fence = not fence
            lines[i] = ""
        elif fence:
            lines[i] = ""
    body = "\n".join(lines)
    out = []
    for m in re.finditer(r"“([^“”]*)”|«([^«»]*)»", body):
        q = re.sub(r"\n\s*>\s?", "\n", m.group(1) if m.group(1) is not None else m.group(2))
        if _words(q) >= MIN_WORDS:
            out.append((body.count("\n", 0, m.start()) + 1, q))
    i = 0
    while i < len(lines):  # blockquotes that end with a citation in parentheses
        if re.match(r"\s*>(?!>)", lines[i]):
            start = i
            while i < len(lines) and re.match(r"\s*>(?!>)", lines[i]):
                i += 1
            block = " ".join(re.sub(r"^\s*>\s?", "", x) for x in lines[start:i]).strip()
            cite = re.search(r"\(([^()]*)\)\s*\.?$", block)
            if cite and CITATION.search(cite.group(1)):
                q = block[:cite.start()].strip().strip('"“”«» ')
                if _words(q):
                    out.append((start + 1, q))
        else:
            i += 1
    return out


@pytest.fixture(scope="module")
def papers() -> dict[str, str]:
    texts = sorted(SEEDS.glob("*.txt"))
    if not texts:
        pytest.skip(f"the source papers are not at {SEEDS}")
    return {p.name: norm(p.read_text(encoding="utf-8")) for p in texts}


def _rule_texts() -> list[tuple[str, str]]:
    """(where, text) of what `rrcheck list` prints about papers, and the workloads' sources."""
    from rrcheck.checker.invariants import DESCRIPTIONS
    from rrcheck.checker.model import workloads as W
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
    out = [(f"protocol {n} source", c.source) for n, c in PROTOCOLS.items()]
    for n, m in MUTANTS.items():
        out += [(f"mutant {n} rule", m.rule), (f"mutant {n} source", m.source)]
    for n, f in W.WORKLOADS.items():
        w = f()
        out += [(f"workload {n} description", w.description), (f"workload {n} source", w.source)]
    out += [(f"property {n}", d) for n, d in DESCRIPTIONS.items()]
    return [(where, t) for where, t in out if t]


def _report(bad: list[str]) -> str:
    return "quotations that are not in any paper of ../shared/seeds:\n" + "\n".join(bad)


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_doc_quotations_are_the_papers_words(doc, papers):
    bad = [f"{doc.relative_to(ROOT)}:{line}: “{q}”" for line, q in quotations(doc.read_text(encoding="utf-8"))
           if not _found(_pieces(q), papers)]
    assert not bad, _report(bad)


def test_rule_text_quotations_are_the_papers_words(papers):
    bad = [f"{where}: “{q}”" for where, text in _rule_texts() for _, q in quotations(text)
           if not _found(_pieces(q), papers)]
    assert not bad, _report(bad)


def test_no_paper_is_cited_by_its_file_name():
    bad = []
    for doc in DOCS:
        for n, line in enumerate(doc.read_text(encoding="utf-8").split("\n"), 1):
            if FILE_CITATION.search(line):
                bad.append(f"{doc.relative_to(ROOT)}:{n}: {line.strip()}")
    bad += [f"{where}: {text}" for where, text in _rule_texts() if FILE_CITATION.search(text)]
    assert not bad, "cite a paper by authors, title and section, not by its file:\n" + "\n".join(bad)


def test_the_docs_hold_quotations_and_the_check_tells_an_altered_one(papers):
    """Not vacuous: the docs quote, the known quotations match, and one word changed,
    one word added or the pieces of an omission swapped no longer do."""
    found = [q for doc in DOCS for _, q in quotations(doc.read_text(encoding="utf-8"))]
    assert len(found) >= 10, found
    fr = "Un état global cohérent est un état qui peut être rencontré dans une exécution sans fautes."
    en = "the fault tolerant system can sustain multiple failures of non-related components"
    sub = "Lorsque le processus p3 reçoit le message m1 (dont le numéro de phase est 1), il incrémente sa phase à 2"
    for q in (fr, en, sub, en.replace("non-related", "non-\nrelated"),
              "l’ordre de réception des messages non causalement dépendants",
              "If P2 fails and return from a checkpoint … ascending RSN order"):
        assert _found(_pieces(q), papers), q
    for q in (fr.replace("sans fautes", "avec fautes"), en.replace("multiple", "many"),
              sub.replace("phase à 2", "phase à 3"), en + " at once",
              "ascending RSN order … If P2 fails and return from a checkpoint"):
        assert not _found(_pieces(q), papers), q
    assert quotations("> words of a paper\n> here and there (Meyer 2014, §2.2.1)\n\n> a note, not a quotation\n") == \
        [(1, "words of a paper here and there")]
    assert quotations("```\n“four words in code”\n```\n“four words in prose”\n") == [(4, "four words in prose")]
