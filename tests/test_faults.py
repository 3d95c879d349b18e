"""Faults staged on real processes, loopback only, each bounded to a few tens of seconds: a
gunicorn worker killed (SIGKILL) again and again, and PostgreSQL restarted, while 8 annotators
do save & next. Both run on a throwaway PostgreSQL cluster of their own (tests/servers.py),
never on the shared server. What must hold: every acknowledged save is stored with its
revision; a save sent again after an error is stored once."""

import os
import signal
import threading
import time
from contextlib import contextmanager

from tests.servers import SaveAndNext, ThrowawayPostgres, gunicorn, server_env, set_up, stored_saves

CLIENTS = 8
ITEMS = 400  # more than a client saves in the run: no queue runs out


def run_clients(served, dataset: int, seconds: float, fault) -> list[SaveAndNext]:
    """CLIENTS annotators doing save & next for `seconds` while `fault()` runs beside them."""
    clients = [SaveAndNext(served.base, dataset, f"a{number}") for number in range(CLIENTS)]
    failures: list[BaseException] = []

    def work(client: SaveAndNext) -> None:
        try:
            client.run_until(time.monotonic() + seconds)
        except BaseException as error:  # reported by the test
            failures.append(error)

    threads = [threading.Thread(target=work, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    fault()
    for thread in threads:
        thread.join(timeout=seconds + 60)
    assert not failures, failures
    assert not any(thread.is_alive() for thread in threads), "a client hung"
    return clients


def assert_every_acknowledged_save_is_stored_once(database: ThrowawayPostgres, dataset: int, clients) -> None:
    stored = stored_saves(database.url, dataset)
    acknowledged = {(c.username, position): version for c in clients for position, version in c.acknowledged.items()}
    assert acknowledged, "no save was acknowledged"
    for key, version in acknowledged.items():
        assert key in stored, f"acknowledged save lost: {key}"
        assert stored[key] == (version, "submitted", [version]), (key, stored[key])
    # Every save was a first submit (version 1): a save sent twice would have made version 2.
    assert set(acknowledged.values()) == {1}
    assert all(value == (1, "submitted", [1]) for value in stored.values())


@contextmanager
def served_campaign():
    """A throwaway cluster with CLIENTS annotators' queues, served by gunicorn with 2 workers."""
    database = ThrowawayPostgres()
    try:
        database.start()
        env = server_env(database.url, CONN_MAX_AGE="60")
        setup = set_up(env, annotators=CLIENTS, items=ITEMS)
        with gunicorn(env, workers=2) as served:
            yield database, setup, served
    finally:
        database.remove()


def test_workers_killed_mid_run_lose_no_acknowledged_save():
    with served_campaign() as (database, setup, served):
        kills = []

        def kill_workers() -> None:
            # One worker killed every 0.4 s for 8 s; gunicorn's master starts a new one.
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline:
                time.sleep(0.4)
                workers = sorted(served.worker_pids())
                if workers:
                    os.kill(workers[len(kills) % len(workers)], signal.SIGKILL)
                    kills.append(workers[len(kills) % len(workers)])

        first_workers = served.worker_pids()
        clients = run_clients(served, setup["dataset"], seconds=10, fault=kill_workers)
        # (A client may not see a kill: its session sends a request cut by one once more itself.)
        assert len(kills) >= 10 and not served.worker_pids() & first_workers
        assert_every_acknowledged_save_is_stored_once(database, setup["dataset"], clients)


def test_postgresql_restarted_while_annotators_save():
    with served_campaign() as (database, setup, served):
        workers = served.worker_pids()

        def restart_postgresql() -> None:
            time.sleep(2)
            database.stop()  # immediate: connections cut, as in a crash
            time.sleep(2)
            database.start()

        clients = run_clients(served, setup["dataset"], seconds=8, fault=restart_postgresql)
        # The same workers serve after the restart: they reconnected on their own.
        assert served.worker_pids() == workers
        after = SaveAndNext(served.base, setup["dataset"], f"a{CLIENTS - 1}")
        after.position = clients[-1].position
        after.save_and_next()
        errors = {error for c in clients for error in c.errors}
        assert errors == {"503"}, errors
        assert_every_acknowledged_save_is_stored_once(database, setup["dataset"], [*clients, after])
