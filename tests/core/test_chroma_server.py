"""Scale-out path: the same index code against a real `chroma run` server on 127.0.0.1."""

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import index, store
from core.config import load_settings
from core.documents import delete_document, ingest_file
from core.models import get_embedder

CHROMA = Path(sys.executable).parent / "chroma"
pytestmark = [pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    if not CHROMA.exists() and not shutil.which("chroma"):
        pytest.skip("chroma CLI not installed")
    port = _free_port()
    proc = subprocess.Popen([str(CHROMA), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("chroma server did not start")
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


def test_ingest_search_delete_through_chroma_server(tmp_path, write_file, chroma_server):
    settings = load_settings({"GROUNDWORK_DATA": str(tmp_path / "data"), "GROUNDWORK_CHROMA_URL": chroma_server})
    a = ingest_file(settings, "acme", write_file("oil.md", "# Maintenance\n\nThe engine oil capacity is 5 quarts.\n"))
    b = ingest_file(settings, "globex", write_file("gx.md", "# Globex\n\nGlobex refunds within 45 days.\n"))
    assert a.status == b.status == "ready"
    # the vectors live in the server, not in the local persistent folder
    assert not (tmp_path / "data" / "chroma").exists()
    q = get_embedder().embed_query("engine oil capacity")
    hits = index.dense_search(settings, "acme", q, 5)
    assert [cid for cid, _ in hits] == [r["chunk_id"] for r in store.chunk_rows(settings, "acme")]
    assert all(cid.startswith(b.doc_id) for cid, _ in index.dense_search(settings, "globex", q, 5))
    c = ingest_file(settings, "acme", write_file("tyres.md", "# Tyres\n\nFront tyres take 3.5 bar.\n"))
    assert delete_document(settings, "acme", a.doc_id)  # by rebuilding the collection on the server
    assert index.vector_count(settings, "acme") == 1 and index.vector_count(settings, "globex") == 1
    assert [cid for cid, _ in index.dense_search(settings, "acme", q, 5)] == [f"{c.doc_id}:0000"]
    assert delete_document(settings, "acme", c.doc_id)
    assert index.vector_count(settings, "acme") == 0 and index.vector_count(settings, "globex") == 1


def _cli(args: list[str], data: Path, url: str) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "GROUNDWORK_DATA": str(data), "GROUNDWORK_CHROMA_URL": url, "GROUNDWORK_GATE_THRESHOLD": "0.3"}
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=Path(__file__).resolve().parents[2],
                          env=env, capture_output=True, text=True, timeout=300)


def test_one_process_ingests_another_asks_and_a_dead_server_loses_nothing(tmp_path, write_file, chroma_server):
    data = tmp_path / "data"
    oil = write_file("oil.md", "# Maintenance\n\nThe engine oil capacity is 5 quarts with a new filter.\n")
    gx = write_file("gx.md", "# Globex\n\nGlobex refunds are paid within 45 days of the request.\n")
    assert _cli(["ingest", "--tenant", "acme", str(oil)], data, chroma_server).returncode == 0
    assert _cli(["ingest", "--tenant", "globex", str(gx)], data, chroma_server).returncode == 0
    asked = _cli(["ask", "--tenant", "acme", "--json", "How much engine oil does it take?"], data, chroma_server)
    answer = __import__("json").loads(asked.stdout)
    assert answer["status"] == "answered" and "5 quarts" in answer["answer"]
    assert {r["source"] for r in answer["retrieved"]} == {"oil.md"}  # never the other tenant's passage

    # the server goes away: one sentence, exit code, and the registry keeps what it had
    port = int(chroma_server.rsplit(":", 1)[1])
    dead = f"http://127.0.0.1:{port + 1 if port < 65535 else port - 1}"
    tyres = write_file("tyres.md", "# Tyres\n\nFront tyres take 3.5 bar.\n")
    failed = _cli(["ingest", "--tenant", "acme", str(tyres)], data, dead)
    assert failed.returncode == 1
    line = failed.stdout.strip().splitlines()[-1]
    assert line.startswith("failed") and "vector store" in line.lower() and "Traceback" not in failed.stderr
    settings = load_settings({"GROUNDWORK_DATA": str(data), "GROUNDWORK_CHROMA_URL": chroma_server})
    assert [d["file_name"] for d in store.list_documents(settings, "acme") if d["status"] == "ready"] == ["oil.md"]
    down = _cli(["ask", "--tenant", "acme", "How much engine oil does it take?"], data, dead)
    assert down.returncode == 2 and down.stderr.count("\n") == 1 and "vector store" in down.stderr.lower()
    # the same question, asked of the live server again, is answered as before
    again = _cli(["ask", "--tenant", "acme", "--json", "How much engine oil does it take?"], data, chroma_server)
    assert "5 quarts" in __import__("json").loads(again.stdout)["answer"]
