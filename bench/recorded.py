"""bench/results.json: each benchmark's figures under a key of its own, with when and on what
machine they were measured (other work on the machine skews every figure: the load average
says how busy it was)."""

from __future__ import annotations

import json
import os
import platform
from datetime import datetime, timezone
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results.json"


def record(key: str, settings: dict, figures: dict, load: tuple[float, float, float] | None = None, **about) -> None:
    """The figures under ``key``, beside the other benchmarks' keys; ``load``: the load average
    when the runs began (default: now); ``about``: more fields, e.g. the script's description."""
    results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    results[key] = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **about,
        "machine": {"cpus": os.cpu_count(), "load_average_1_5_15_min": list(load or os.getloadavg()),
                    "python": platform.python_version(), "system": platform.platform()},
        "settings": settings,
        "figures": figures,
    }
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"results written to {RESULTS} under {key!r}")
