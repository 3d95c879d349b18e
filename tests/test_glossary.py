"""The Polish pages follow docs/glossary.md: no translation in the catalogue and no Polish
guideline uses a word the glossary rules out ("adnotator", "superarbiter", "element"...)."""

import re
from pathlib import Path

from django.conf import settings

BASE = Path(settings.BASE_DIR)
CATALOGUE = BASE / "locale" / "pl" / "LC_MESSAGES" / "django.po"
ROW = re.compile(r"^\| [^|]+ \| [^|]+ \| ([^|]*) \|$", re.MULTILINE)
# The stems of the words ruled out (any declension), from the glossary's last column.
STEMS = {"adnotator": "adnotator", "superarbiter": "superarbit", "arbiter": r"\barbit", "arbitraż": "arbitra[żz]",
         "element": "element", "pytanie": "pyta[nń]", "szkolenie": "szkoleni", "złoto": "złot",
         "złota odpowiedź": "złot", "próbka": "próbk", "zestaw": "zestaw", "flaga": r"\bflag",
         "instrukcja": "instrukcj", "element kontrolny": "element", "pytanie kontrolne": "pyta[nń]"}


def ruled_out() -> re.Pattern:
    words = [word.strip() for cell in ROW.findall((BASE / "docs" / "glossary.md").read_text(encoding="utf-8"))
             for word in cell.split(",") if word.strip() and not word.strip().startswith(("próba", "Not"))]
    assert {"adnotator", "superarbiter", "element", "szkolenie", "złoto"} <= set(words)
    return re.compile("|".join(STEMS[word] for word in words), re.IGNORECASE)


def polish_texts() -> list[tuple[str, str]]:
    """Every msgstr of the catalogue (continuation lines joined) and every Polish guideline."""
    texts, current = [], None
    for line in CATALOGUE.read_text(encoding="utf-8").splitlines():
        if line.startswith("msgstr"):
            current = [line.split(" ", 1)[1][1:-1]]
            texts.append(("django.po", current))
        elif line.startswith('"') and current is not None:
            current.append(line[1:-1])
        else:
            current = None
    joined = [(where, "".join(parts)) for where, parts in texts]
    guidelines = BASE / "templates" / "annotation" / "guidelines"
    return joined + [(path.name, path.read_text(encoding="utf-8")) for path in guidelines.glob("*.html")]


def test_the_polish_texts_use_the_glossarys_words_only():
    pattern = ruled_out()
    found = [(where, text) for where, text in polish_texts() if pattern.search(text)]
    assert found == []
