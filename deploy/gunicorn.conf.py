"""gunicorn's configuration for PoLiS Annotate (the demo, production and the benchmarks).

    .venv/bin/gunicorn -c deploy/gunicorn.conf.py polis_site.wsgi

Environment: BIND (default 127.0.0.1:8000), WEB_CONCURRENCY (workers, default two per CPU
core), GUNICORN_TIMEOUT (seconds, default 180). Command-line options given after `-c` win.
"""

import gc
import os

bind = os.environ.get("BIND", "127.0.0.1:8000")
# Two sync workers per core: a worker waiting on PostgreSQL (a commit's flush to disk, a row
# lock, its statements) leaves its core to the other, and a slow request (a panel
# participant's consent: 25 ms) no longer holds up every short one behind it. On the 2-core
# benchmark machine 4 workers against 2: 203 against 154 saves/s without thinking, the fixed
# queues served 300 annotators against 200 and the panel study's p95 fell from 88–706 ms
# to 49–181 ms (2026-12-07); for 60 MB more memory per worker.
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1)))

# A worker silent for this long is killed and replaced. The longest request is an upload at
# the upload limit (POLIS_MAX_UPLOAD_MB, 64 MiB): about 400,000 short commas items, checked and
# inserted as a stream. Measured on the 2-core development machine under a load average of 10:
# 62,000 items in 22 s (0.25 ms an item after start-up), so about 100 s at the limit; 180 s
# leaves room for a slower machine. Everything else answers in milliseconds.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "180"))
# On a restart or SIGTERM, requests under way get this long to finish.
graceful_timeout = 30
# Replace each worker after this many requests (spread out, so that not all restart at once):
# whatever a long-running process accumulates is let go.
max_requests = 5000
max_requests_jitter = 500
# The application is imported once, before the workers are forked: workers start faster and
# share its memory. (Django opens no database connection on import.)
preload_app = True
# The workers' heartbeat files, in memory where there is a tmpfs: a disk that stalls must not
# make healthy workers look dead.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# One line per request on standard output, with its time in milliseconds (%(M)s).
accesslog = "-"
access_log_format = '%(h)s %(t)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'
# No control socket: it lives at one fixed path per user, shared by every gunicorn.
control_socket_disable = True


def pre_fork(server, worker):
    """Before a worker is forked: the application loaded above (preload_app) is moved out of
    the garbage collector's reach (Python's advice for fork without exec). A full collection
    in a worker then walks only what the worker made itself (about 6,000 objects instead of
    160,000: such a collection had cost a page save 0.2 ms on average, and the request it fell
    on a pause), and no longer writes to the pages shared with the master, which stay shared
    (2 workers: 19 MB less PSS). What is frozen lives as long as the process anyway."""
    gc.freeze()
