"""The citation (CITATION.cff, docs/research.md's BibTeX) names the version that is installed."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_citation_names_the_package_version() -> None:
    version = importlib.metadata.version("dicepoker")
    cff = (ROOT / "CITATION.cff").read_text("utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", cff, re.M)
    assert re.search(rf'^version: "{re.escape(version)}"$', cff, re.M), version
    for key in ("title", "message", "authors"):
        assert re.search(rf"^{key}:", cff, re.M), key
    research = (ROOT / "docs" / "research.md").read_text("utf-8")
    bibtex = research.split("```bibtex", 1)[1].split("```", 1)[0]
    assert f"version = {{{version}}}" in bibtex
