"""core/index.py: the Chroma client is one per data folder, also when threads race for it."""

from core import index
from tests.threads import run_at_once


def test_threads_opening_a_fresh_store_at_once_share_one_working_client(settings):
    # the console's warm-up thread and the first question open the store together
    def open_store():
        client = index.chroma_client(settings)
        client.list_collections()
        return client

    clients, errors = run_at_once(open_store, 6)
    assert errors == []
    assert len(clients) == 6 and all(c is clients[0] for c in clients)
