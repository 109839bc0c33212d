"""core/index.py: the Chroma client is one per data folder, also when threads race for it."""

import threading

from core import index


def test_threads_opening_a_fresh_store_at_once_share_one_working_client(settings):
    # the console's warm-up thread and the first question open the store together
    barrier = threading.Barrier(6)
    clients, errors = [], []

    def open_store() -> None:
        barrier.wait()
        try:
            client = index.chroma_client(settings)
            client.list_collections()
            clients.append(client)
        except Exception as exc:  # noqa: BLE001 — collected, asserted below
            errors.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(clients) == 6 and all(c is clients[0] for c in clients)
