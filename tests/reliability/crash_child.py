"""Run one ingest or delete in this process and SIGKILL it at a chosen step.

    python tests/reliability/crash_child.py STEP ingest TENANT PATH
    python tests/reliability/crash_child.py STEP delete TENANT DOC_ID

The steps are the boundaries between the stores a write touches (see STEPS). The kill is
a real SIGKILL: no `finally`, no rollback, no flushed buffer runs after it.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core import documents, index  # noqa: E402
from core.config import load_settings  # noqa: E402


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def after(module: object, name: str, when=lambda result, args: True) -> None:
    """Kill right after `module.name` returns (when `when` holds)."""
    original = getattr(module, name)

    def wrapped(*args, **kwargs):
        result = original(*args, **kwargs)
        if when(result, args):
            die()
        return result

    setattr(module, name, wrapped)


def before(module: object, name: str) -> None:
    def wrapped(*args, **kwargs):
        die()

    setattr(module, name, wrapped)


class _DyingEmbedder:
    """Embeds one batch, then dies: the embedding step never finishes."""

    def __init__(self, real: object) -> None:
        self.real = real

    def embed_passages(self, texts: list[str]):
        self.real.embed_passages(texts)
        die()


STEPS = {
    "parse": lambda: after(documents, "parse_file"),
    "embed": lambda: setattr(documents, "get_embedder",
                             (lambda real: lambda **kw: _DyingEmbedder(real(**kw)))(documents.get_embedder)),
    "keep": lambda: after(documents, "_keep_original"),
    "chroma-add": lambda: after(index, "add_vectors"),
    "registry": lambda: after(documents, "_register"),
    "bm25": lambda: after(index, "rebuild_lexical"),
    # the old version's vectors are dropped once the new one is live
    "replace": lambda: after(index, "delete_vectors", lambda removed, args: removed > 0),
    "delete-registry": lambda: before(index, "delete_vectors"),
    "delete-vectors": lambda: before(index, "rebuild_lexical"),
}


def main() -> None:
    step, op, tenant, target = sys.argv[1:5]
    STEPS[step]()
    settings = load_settings()
    if op == "ingest":
        result = documents.ingest_file(settings, tenant, Path(target))
        print(result.status, result.error)
    else:
        print(documents.delete_document(settings, tenant, target))


if __name__ == "__main__":
    main()
