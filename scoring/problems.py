"""One fault found in a file, a line or an answer."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Problem:
    """A fault with where it is: ``str()`` gives ``FILE:LINE: field: message``.

    ``field`` names the offending field (a dotted path with list indices, e.g.
    ``discourse_units[2].head``) or, for a whole line, what was wrong with it
    (``json``, ``line``). ``code`` is a stable machine-readable name the app can
    translate or group by; ``message`` is English for people reading the CLI.
    """

    field: str
    message: str
    code: str = ""
    file: str | None = None
    line: int | None = None

    def at(self, file: str | None, line: int | None) -> Problem:
        """The same problem, located in ``file`` at ``line``."""
        return replace(self, file=file, line=line)

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = f"{self.file}:{self.line}: " if self.line is not None else f"{self.file}: "
        elif self.line is not None:
            where = f"line {self.line}: "
        return f"{where}{self.field}: {self.message}" if self.field else f"{where}{self.message}"
