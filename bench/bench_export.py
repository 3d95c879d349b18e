"""How long `manage.py export_submission` takes for every source (an annotator, the majority,
the Dawid–Skene answers, all answers as jsonl and csv), and its peak memory, on PostgreSQL.

5 annotators x N commas items (every annotator assigned every item and answering 90% of
them, made from the sample sentences as bench_scoring.py makes them), at N = 5,000 and
10,000, so that the memory per item is the difference of the two peaks over the difference
of the sizes. Each export is a whole `manage.py` process, best of 3 (wall and CPU) and its
peak resident memory. Records the figures in bench/results.json under "export".

    POLIS_BENCH_DB=polis_bench_export .venv/bin/python bench/bench_export.py

POLIS_BENCH_DB names a database of the PostgreSQL server on 127.0.0.1:5432 that the script
drops and re-creates (default polis_bench_export).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

from bench_agreement import measure
from bench_scoring import DATA, OUT, ROOT, commas_prediction, read_jsonl, scaled
from recorded import record

SIZES = (5_000, 10_000)
N_ANNOTATORS = 5
SOURCES = (["annotator:bench1"], ["majority"], ["dawid-skene"], ["all"], ["all", "--format", "csv"])
DATABASE = os.environ.get("POLIS_BENCH_DB", "polis_bench_export")
ENV = {**os.environ, "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DATABASE}", "SECRET_KEY": "bench",
       "DJANGO_SETTINGS_MODULE": "polis_site.settings"}
# Runs manage.py in this process and prints its peak resident memory (kB) last.
MEASURED = (
    "import resource, sys\n"
    "from django.core.management import execute_from_command_line\n"
    "execute_from_command_line(['manage.py', *sys.argv[1:]])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)
FILL = """
import json, random, sys
import django
django.setup()
from django.contrib.auth.models import Group, User
from django.utils import timezone
from annotation.models import Annotation
from annotation.datasets.assigning import assign
from annotation.datasets.importing import SourceFile, import_dataset
name, inputs_path, answers_path = sys.argv[1:]
dataset = import_dataset(subtask="commas", name=name, inputs=SourceFile(name="inputs.jsonl", data=open(inputs_path, "rb").read()))
group = Group.objects.get_or_create(name="annotator")[0]
annotators = []
for number in range(1, %(n)d + 1):
    user, _ = User.objects.get_or_create(username=f"bench{number}")
    user.groups.add(group)
    annotators.append(user)
assign(dataset, annotators, %(n)d)
answers = json.load(open(answers_path))
items = {item.external_id: item for item in dataset.items.all()}
now = timezone.now()
Annotation.objects.bulk_create(
    (Annotation(item=items[external_id], annotator=annotators[number], answer=answer, status="submitted",
                submitted_at=now, active_ms=1000)
     for number, lines in enumerate(answers) for external_id, answer in lines),
    batch_size=5000,
)
""" % {"n": N_ANNOTATORS}


def psql(command: str) -> None:
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-qc", command], check=True)


def prepare() -> None:
    psql(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    psql(f"CREATE DATABASE {DATABASE}")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=ENV, check=True)
    for size in SIZES:
        rng = random.Random(f"export/{size}")
        inputs, gold = scaled(read_jsonl(DATA / "commas" / "dev.inputs.jsonl"), read_jsonl(DATA / "commas" / "dev.gold.jsonl"), size, "commas")
        inputs_path, answers_path = OUT / f"export.{size}.inputs.jsonl", OUT / f"export.{size}.answers.json"
        inputs_path.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in inputs), encoding="utf-8")
        answers = []
        for _ in range(N_ANNOTATORS):
            lines = []
            for item, line in zip(inputs, gold):
                if rng.random() < 0.9:
                    prediction = commas_prediction(item, line, rng)
                    lines.append((item["id"], {"commas": prediction["commas"], "optional": []}))
            answers.append(lines)
        answers_path.write_text(json.dumps(answers), encoding="utf-8")
        subprocess.run([sys.executable, "-c", FILL, f"bench-{size}", str(inputs_path), str(answers_path)],
                       cwd=ROOT, env=ENV, check=True)
    # Planner statistics as autovacuum would leave them after the answers came in.
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", DATABASE, "-qc", "ANALYZE"], check=True)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    prepare()
    load = os.getloadavg()
    figures: dict = {}
    for size in SIZES:
        for source in SOURCES:
            label = "_".join(part.strip("-").replace(":", "_") for part in source) + f"_{size}"
            out = OUT / f"export.{label}"
            wall, cpu, peak_kb = measure(["export_submission", f"bench-{size}", "--source", *source, "-o", str(out)],
                                         MEASURED, ENV)
            figures[f"{label}_s"] = round(wall, 3)
            figures[f"{label}_cpu_s"] = round(cpu, 3)
            figures[f"{label}_peak_mb"] = round(peak_kb / 1024, 1)
            print(f"export {' '.join(source)} of {N_ANNOTATORS} annotators x {size:,} items: "
                  f"{wall:.3f} s wall, {cpu:.3f} s CPU, peak {peak_kb / 1024:.1f} MB")
    record("export", {"annotators": N_ANNOTATORS, "answered": 0.9, "sizes": list(SIZES),
                      "database": "PostgreSQL 127.0.0.1:5432"}, figures, load,
           script="bench/bench_export.py (whole manage.py export_submission process, best of 3; peak RSS)")


if __name__ == "__main__":
    main()
