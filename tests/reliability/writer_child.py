"""Ingest, replace and delete documents of one tenant in a loop, as a second process would.

    python tests/reliability/writer_child.py TENANT FOLDER CYCLES
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core import store  # noqa: E402
from core.config import load_settings  # noqa: E402
from core.documents import delete_document, ingest_file  # noqa: E402


def main() -> None:
    tenant, folder, cycles = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    settings = load_settings()
    for n in range(cycles):
        first = ingest_file(settings, tenant, folder / "v1" / "rota.md")
        second = ingest_file(settings, tenant, folder / "v2" / "rota.md")  # a new version, same name
        assert first.status == "ready" and second.status == "ready", (first, second)
        doc = next(d for d in store.list_documents(settings, tenant) if d["file_name"] == "rota.md")
        assert delete_document(settings, tenant, doc["doc_id"])
        print("cycle", n, flush=True)


if __name__ == "__main__":
    main()
