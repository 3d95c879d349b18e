"""Import benchmark: the campaign benchmark's import (all six subtasks with gold, 5,383 items:
bench_campaign.SIZES), read from files on disk as `manage.py import_items` and the upload
page read them, on PostgreSQL.

Run as `DATABASE_URL=postgres://postgres@127.0.0.1:5432/polis_import .venv/bin/python
bench/bench_import.py` (the database is dropped and made anew: it must be polis_import).
Prints per run the wall time of the whole import, the bytes read from the files (and how many
times each file was opened), the parse calls (json.loads) per line, and in a separate run
under tracemalloc the peak of Python memory during the import.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_campaign as campaign  # noqa: E402
import bench_server as server  # noqa: E402

DATABASE_NAME = "polis_import"


class Counted:
    """A file read through, counting its bytes."""

    def __init__(self, stream, counts):
        self.stream, self.counts = stream, counts

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stream.close()

    def _count(self, data):
        self.counts["bytes"] += len(data)
        return data

    def read(self, *args):
        return self._count(self.stream.read(*args))

    def readline(self, *args):
        return self._count(self.stream.readline(*args))

    def readinto(self, buffer):
        count = self.stream.readinto(buffer)
        self.counts["bytes"] += count or 0
        return count

    def __iter__(self):
        return (self._count(line) for line in self.stream)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="timed imports (default 3); the median is reported")
    args = parser.parse_args()
    server.recreate_database(os.environ["DATABASE_URL"], DATABASE_NAME)
    server.manage("migrate", "--noinput", "-v", "0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
    sys.path.insert(0, str(server.BASE_DIR))
    import django

    django.setup()
    from annotation.core.files import SourceFile
    from annotation.datasets import importing

    folder = Path(tempfile.mkdtemp(prefix="polis-import-"))
    files = {}
    for subtask in campaign.SIZES:
        inputs, gold = campaign.source_files(subtask)
        (folder / f"{subtask}.inputs.jsonl").write_bytes(inputs)
        (folder / f"{subtask}.gold.jsonl").write_bytes(gold)
        files[subtask] = (folder / f"{subtask}.inputs.jsonl", folder / f"{subtask}.gold.jsonl")
    file_bytes = sum(path.stat().st_size for pair in files.values() for path in pair)
    lines = sum(path.read_bytes().count(b"\n") for pair in files.values() for path in pair)

    counts = {"bytes": 0, "opens": 0, "loads": 0}
    original_open = SourceFile.open

    def counted_open(self):
        counts["opens"] += 1
        return Counted(original_open(self), counts)

    SourceFile.open = counted_open
    original_loads = json.loads

    def counted_loads(*a, **k):
        counts["loads"] += 1
        return original_loads(*a, **k)

    json.loads = counted_loads
    for module in (importing, sys.modules["scoring.jsonl"]):
        if getattr(module, "json", None) is json:
            pass  # both use json.loads through the module: patched above

    def import_all(run: str) -> None:
        for subtask, (inputs, gold) in files.items():
            importing.import_dataset(
                subtask=subtask, name=f"{run}-{subtask}",
                inputs=SourceFile(inputs.name, path=str(inputs)), gold=SourceFile(gold.name, path=str(gold)),
                gold_synthetic=subtask in campaign.GOLD_FILES,
            )

    import_all("warm-up")
    times = []
    for run in range(args.runs):
        counts.update(bytes=0, opens=0, loads=0)
        started = time.perf_counter()
        import_all(f"run{run}")
        times.append(time.perf_counter() - started)
    items = sum(campaign.SIZES.values())
    server.report("import_s", f"import of all six subtasks with gold from files ({items:,} items), median of {args.runs}",
                  statistics.median(times), "s", 2)
    server.report("import_bytes_read", f"bytes read from the files (the files hold {file_bytes:,})", counts["bytes"], "B", 0)
    server.report("import_file_opens", "file opens (12 files)", counts["opens"], "", 0)
    server.report("import_json_loads_per_line", f"json.loads calls per line ({lines:,} lines)", counts["loads"] / lines, "", 2)
    tracemalloc.start()
    import_all("traced")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    server.report("import_peak_mib", "peak Python memory during the import (tracemalloc)", peak / 2**20, "MiB", 1)


if __name__ == "__main__":
    main()
