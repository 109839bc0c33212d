"""Document lifecycle for a tenant: ingest (all-or-nothing), list, delete, re-index.

Ingest steps: read + hash -> parse -> chunk -> embed -> add vectors -> register chunks
(one SQLite transaction) -> rebuild BM25. Any failure undoes every step already taken,
so no chunk of a failed document stays in Chroma, BM25 or the registry, and what the
commit replaced (an older version, or the document being re-indexed under its own doc_id)
is put back as it was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core import disk, index, journal, scan_words, store
from core.answer.safety import looks_like_instruction
from core.answer_vectors import AnswerVectors
from core.config import Settings, load_tenant_overrides
from core.ingest import FOLDER_SUFFIXES, IngestError, detect_format, parse_file
from core.ingest.ahead import ParseAhead
from core.ingest.base import IngestCancelled
from core.ingest.chunk import chunk_document
from core.ingest.tokens import MAX_CHUNK_TOKENS
from core.lexical import tokenize
from core.models import EMBED_BATCH, get_embedder
from core.schema import ParsedDocument
from core.tenants import collection_name, kept_file, tenant_dir, tenant_key, validate_tenant

Progress = Callable[[str, float], None]  # (stage, fraction 0..1)


# The kept original is named by what its bytes are (see detect_format), so the console never
# serves a text file named .pdf as a PDF, and a re-index detects the same format again.
# (A TSV is kept as .csv: its delimiter is found in its text again, not in its name.)
KEPT_SUFFIXES = {"pdf": ".pdf", "docx": ".docx", "markdown": ".md", "html": ".html", "text": ".txt",
                 "csv": ".csv", "xlsx": ".xlsx", "pptx": ".pptx", "rtf": ".rtf", "png": ".png", "jpeg": ".jpg", "tiff": ".tif"}


@dataclass
class IngestResult:
    file_name: str
    status: str  # ready | unchanged | failed
    doc_id: str | None = None
    pages: int | None = None
    chunks: int = 0
    seconds: float = 0.0
    error: str | None = None
    replaced: str | None = None  # doc_id of the previous version, if any
    same_as: str | None = None  # the file name of another document that holds these bytes too
    timings: dict[str, float] = field(default_factory=dict)
    reused_vectors: int = 0  # chunks whose text the tenant already held: their vectors were reused
    # ready, but the parser lost something on the way ("The PDF is damaged ...; some of its text
    # may be missing", a skipped page): said beside the result, else a half-read file looks whole
    warnings: list[str] = field(default_factory=list)
    # passages an admin had kept out of answers in the version this one replaced (or in the
    # document before its re-index): how many the same text found again and kept out, and a
    # preview of each whose text is gone (changed), which is in answers now
    exclusions_kept: int = 0
    exclusions_dropped: list[str] = field(default_factory=list)
    pages_left_out: int = 0  # of `pages`, those not indexed (the warnings say which and why)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


UNLIKE_SHARE = 0.25  # of the two versions' words (stems), the share both hold, below which it is said
UNRELATED_SHARE = 0.10  # ... and below which the file is refused as another document of the same name


def word_share(old_texts: list[str], new_texts: list[str]) -> float | None:
    """The share of their words (stems) two versions both hold (Jaccard); None when either has none."""
    old = set(tokenize(" ".join(old_texts)))
    new = set(tokenize(" ".join(new_texts)))
    return len(old & new) / len(old | new) if old and new else None


def replacement_warning(file_name: str, share: float | None) -> str | None:
    """A new version is known by its file name alone: an unrelated file of the same name
    (another folder's "faq.md") silently takes the old one's place. Said when the two share
    under `UNLIKE_SHARE` of their words, so the admin can put it back."""
    if share is None or share >= UNLIKE_SHARE:
        return None
    return (f"It replaced the earlier {file_name}, with which it shares only {share:.0%} of its words: if it is "
            "another document, upload it under another name and the earlier one again.")


def _share_with_previous(settings: Settings, tenant: str, doc_id: str, file_name: str,
                         texts: list[str]) -> float | None:
    """The share of words the file has in common with the ready document of its name it
    would replace (None when there is none). IngestError under `UNRELATED_SHARE`: another
    document of the same name, and the indexed one with its kept original was gone for good
    (a reliability pass: a two-column rate table replaced a letter template of the same name)."""
    old = next((d for d in store.find_documents(settings, tenant, file_name=file_name)
                if d["doc_id"] != doc_id and d["status"] == "ready"), None)
    if old is None:
        return None
    share = word_share([r["text"] for r in store.chunk_rows(settings, tenant, old["doc_id"])], texts)
    if share is not None and share < UNRELATED_SHARE:
        raise IngestError(f"It shares only {share:.0%} of its words with the indexed {file_name}, so it looks like "
                          "another document of the same name, and nothing was replaced: upload it under another "
                          "name, or delete the indexed one first.")
    return share


def exclusions_note(kept: int, dropped: list[str]) -> str | None:
    """One sentence on the exclusions a new version or a re-index carried over (the result's
    `exclusions_kept`, `exclusions_dropped`), for the CLI and the console; None when the
    replaced version had none."""
    count = len(dropped)
    if not kept and not count:
        return None
    total = kept + count
    parts = []
    if kept:
        parts.append(f"{kept} still {'is' if kept == 1 else 'are'} (the same text was found)")
    if count:
        quoted = "; ".join(f"“{p}”" for p in dropped[:3])
        more = f" and {count - 3} more" if count > 3 else ""
        parts.append(f"{count} changed and {'is' if count == 1 else 'are'} used in answers again "
                     f"({quoted}{more}): exclude {'it' if count == 1 else 'them'} again if needed")
    return f"{total} passage{'s were' if total != 1 else ' was'} kept out of answers: " + "; ".join(parts) + "."


def ensure_tenant(settings: Settings, tenant: str) -> None:
    validate_tenant(tenant)
    store.upsert_tenant(settings, tenant, collection_name(tenant))


def _doc_id(tenant: str, sha: str, file_name: str | None = None) -> str:
    """By the bytes; `file_name` too for a second document holding bytes another holds."""
    key = f"{tenant_key(tenant)}:{sha}" + (f":{file_name}" if file_name is not None else "")
    return "d" + hashlib.sha256(key.encode()).hexdigest()[:15]


def _new_doc_id(settings: Settings, tenant: str, sha: str, file_name: str) -> str:
    """The id of these bytes indexed under this name: by the bytes alone, unless a document
    of another name holds that id (a new version of this name whose bytes the other holds
    too); then by the name as well, so neither document replaces the other."""
    doc_id = _doc_id(tenant, sha)
    holder = store.get_document(settings, tenant, doc_id)
    if holder is None or holder["file_name"] == file_name:
        return doc_id
    return _doc_id(tenant, sha, file_name)


def ingest_file(
    settings: Settings, tenant: str, path: Path, *, file_name: str | None = None,
    uploaded_by: str = "cli", progress: Progress | None = None, ahead: Future | None = None,
) -> IngestResult:
    """Index one file for a tenant. Never raises for a bad file: the result says why.
    `ahead`: the file's parse, started earlier (core/ingest/ahead.py)."""
    path = Path(path)
    return _ingest(settings, tenant, path, readable_name(file_name or path.name), uploaded_by, progress,
                   reindex=None, ahead=ahead)


def readable_name(name: str) -> str:
    """The file name as stored and shown: bytes that are not UTF-8 (a name from another
    system's disk, read by Python as lone surrogates) become U+FFFD, which SQLite and the
    hash of a failure's id can hold."""
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return name.encode("utf-8", "replace").decode("utf-8")


def ingest_files(
    settings: Settings, tenant: str, paths: list[Path], *, uploaded_by: str = "cli",
    progress_for: Callable[[Path], Progress] | None = None, names: dict[Path, str] | None = None,
) -> Iterator[tuple[Path, IngestResult]]:
    """Index files one after another, each as `ingest_file` does, parsing the next file
    while the current one is embedded. `names`: the name each path is indexed under (default:
    its file name; `document_names` gives a folder's files sharing one their path in it)."""
    ensure_tenant(settings, tenant)
    names = names or {}
    first_with: dict[str, Path] = {}  # file name -> the path ingested under it in this run

    def name_of(path: Path) -> str:
        return names.get(Path(path)) or readable_name(Path(path).name)

    def holds(path: Path, sha: str) -> bool:  # its ingest reads nothing: unchanged, or known too long
        name = name_of(path)
        return _holding(settings, tenant, sha, name) is not None or _known_too_long(settings, tenant, sha, name)

    with ParseAhead(paths, settings, holds) as parsing:
        for i, path in enumerate(paths):
            name = name_of(path)
            if name in first_with:
                # a document is known by its file name: the second would replace the first
                parsing.take(i)
                yield path, IngestResult(name, "failed", error=(
                    f"Not ingested: {path} has the same file name as {first_with[name]}, named earlier in "
                    "this run, and would replace it; rename one of them and ingest it again."))
                continue
            first_with[name] = Path(path)
            yield path, ingest_file(settings, tenant, path, file_name=name, uploaded_by=uploaded_by,
                                    progress=progress_for(path) if progress_for else None, ahead=parsing.take(i))


def document_names(given: list[Path]) -> dict[Path, str]:
    """The name each file of an ingest run is indexed under: its file name, unless another
    file found in the folders named shares it; then its path in its folder
    ("sites/north/contacts.md"). A document is known by its name, so every site's
    contacts.md but the first was refused, and a later one replaced another site's (a scale
    pass: 94 of 252 files of a per-site tree). Files named directly keep their names."""
    found: list[tuple[Path, Path | None]] = []  # in `iter_files`' order: the run's order
    for p in (Path(p) for p in given):
        found.extend([(f, p) for f, why in _folder_files(p) if why is None] if p.is_dir() else [(p, None)])
    count = Counter(readable_name(f.name) for f, _ in found)
    return {f: readable_name(f.relative_to(root).as_posix()) if root is not None and count[readable_name(f.name)] > 1
            else readable_name(f.name) for f, root in found}


def _ready_with(settings: Settings, tenant: str, **where: Any) -> list[dict[str, Any]]:
    """The tenant's ready documents matching `where` (sha256=..., file_name=...)."""
    return [d for d in store.find_documents(settings, tenant, **where) if d["status"] == "ready"]


def _holding(settings: Settings, tenant: str, sha: str, file_name: str) -> dict[str, Any] | None:
    """The ready document that makes ingesting these bytes under this name a no-op: the
    document of this name when it holds them; else, when no document has this name yet,
    any document holding them (a copy under a new name is not indexed twice). A document
    of this name holding other bytes is replaced, whatever other document holds these."""
    holders = _ready_with(settings, tenant, sha256=sha)
    own = next((d for d in holders if d["file_name"] == file_name), None)
    if own is not None or not holders or _ready_with(settings, tenant, file_name=file_name):
        return own
    return holders[0]


def _ingest(
    settings: Settings, tenant: str, path: Path, file_name: str, uploaded_by: str,
    progress: Progress | None, *, reindex: str | None, ahead: Future | None = None,
) -> IngestResult:
    """`ingest_file`; a re-index (`reindex`: the doc_id indexed again) indexes the same bytes
    again on purpose, and when it fails it records no 'failed' row: the document stays live
    as it was and the result says why."""
    started = time.perf_counter()
    report = progress or (lambda stage, frac: None)
    ensure_tenant(settings, tenant)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return IngestResult(file_name, "failed", error=f"Cannot read the file ({exc.strerror}).")
    sha = hashlib.sha256(data).hexdigest()

    with journal.write_lock(settings, tenant):
        doc = None if reindex else _holding(settings, tenant, sha, file_name)
        if doc is not None:
            restored = _restore_original(settings, tenant, doc, path)
            return IngestResult(file_name, "unchanged", doc["doc_id"], doc["pages"], doc["chunks"],
                                time.perf_counter() - started, same_as=doc["file_name"],
                                warnings=[restored] if restored else [])
        if not reindex and (too_long := _known_too_long(settings, tenant, sha, file_name)):
            doc_id = _record_failure(settings, tenant, file_name, sha, len(data), uploaded_by, str(too_long),
                                     over_limit=too_long.count)
            return IngestResult(file_name, "failed", doc_id, error=str(too_long), seconds=time.perf_counter() - started)
        doc_id = reindex or _new_doc_id(settings, tenant, sha, file_name)
        # a new version whose bytes another document holds too: said beside the result
        also_held_by = next((d["file_name"] for d in _ready_with(settings, tenant, sha256=sha)
                             if d["file_name"] != file_name), None)
        try:
            result = _index_new(settings, tenant, path, data, sha, doc_id, file_name, uploaded_by, report, ahead)
        except IngestCancelled:
            raise  # stopped before any write, on purpose: no failed row either
        except Exception as exc:  # noqa: BLE001 - anything but IngestError is our bug; keep the index whole
            msg = str(exc) if isinstance(exc, IngestError | index.VectorStoreUnavailable | disk.DiskFull) else (
                disk.full_sentence(settings) if disk.is_full(exc) else
                f"Indexing failed unexpectedly ({type(exc).__name__}: {exc}); nothing was kept, try again.")
            if not reindex:  # the failed row's own id, so the caller can delete what it lists
                doc_id = _record_failure(settings, tenant, file_name, sha, len(data), uploaded_by, msg,
                                         over_limit=exc.count if isinstance(exc, TooLong) else None)
            return IngestResult(file_name, "failed", doc_id, error=msg,
                                seconds=time.perf_counter() - started)
    result.seconds = time.perf_counter() - started
    result.same_as = also_held_by
    report("done", 1.0)
    return result


def size_refusal(settings: Settings, size: int) -> str | None:
    """The sentence refusing a file of `size` bytes, or None when it is within the limit
    (also checked before the HTTP API accepts an upload to index later)."""
    if size <= settings.max_file_mb * 1024 * 1024:
        return None
    return f"File is {size / 1048576:.0f} MB; the limit is {settings.max_file_mb} MB — split it and upload the parts."


def _index_new(
    settings: Settings, tenant: str, path: Path, data: bytes, sha: str, doc_id: str,
    file_name: str, uploaded_by: str, report: Progress, ahead: Future | None = None,
) -> IngestResult:
    timings: dict[str, float] = {}
    index.ensure_reachable(settings)
    too_large = size_refusal(settings, len(data))
    if too_large:
        raise IngestError(too_large)
    report("parse", 0.05)
    t = time.perf_counter()
    # Record what the bytes are: a text file named .pdf is indexed and recorded as text, as
    # the user uploaded it to be searchable and its text reads fine; refusing it over its name
    # would help nobody, while calling it "pdf" would make the console treat it as one.
    fmt = detect_format(path)
    # parsing a long PDF takes minutes: the bar moves page by page through its share
    # parsed ahead when it could be, of these very bytes (else, or when not parsed, now)
    early = ahead.result() if ahead is not None else None
    parsed = early.document_of(sha) if early is not None else None
    if parsed is None:
        parsed = parse_file(path, settings, on_page=lambda done, pages: report("parse", 0.05 + 0.15 * done / pages),
                            name=file_name)
    timings["parse"] = time.perf_counter() - t

    # a file far over the chunk limit is refused now, not after seconds or minutes of chunking
    _check_chunk_limit(settings, tenant, file_name, _fewest_chunks(parsed, settings), at_least=True)
    report("chunk", 0.2)
    t = time.perf_counter()
    chunks = chunk_document(parsed, doc_id=doc_id, tenant=tenant, source=file_name, settings=settings,
                            on_progress=lambda frac: report("chunk", 0.2 + 0.05 * frac))
    timings["chunk"] = time.perf_counter() - t
    if not chunks:
        raise IngestError("The file holds no text to index; check that it is the document you meant.")
    _check_chunk_limit(settings, tenant, file_name, len(chunks))
    parsed.warnings = [*parsed.warnings, *_addressed_to_a_model([c.text for c in chunks])]
    share = _share_with_previous(settings, tenant, doc_id, file_name, [c.text for c in chunks])
    # before the embedding's minutes, and before Chroma is written to: on a full disk it hung
    disk.ensure_room(settings, 2 * len(data) + len(chunks) * disk.BYTES_PER_CHUNK, f"indexing {file_name}")

    t = time.perf_counter()
    matrix, reused = _embed(settings, tenant, [c.text for c in chunks], report)
    timings["embed"] = time.perf_counter() - t

    report("index", 0.92)
    t = time.perf_counter()
    previous = [d for d in store.find_documents(settings, tenant, file_name=file_name) if d["doc_id"] != doc_id]
    before = _snapshot(settings, tenant, doc_id, previous)
    kept = tenant_dir(settings, tenant) / "files" / f"{doc_id}{KEPT_SUFFIXES[fmt]}"
    # a re-index (same bytes, same doc_id) keeps the document's upload time, and so its place in the list
    uploaded_at = next((d["uploaded_at"] for d in before.documents if d["doc_id"] == doc_id and d["uploaded_at"]),
                       time.time())
    journal.begin(settings, tenant, "ingest", [doc_id, *(d["doc_id"] for d in before.documents)])
    try:
        _keep_original(path, kept)
        # a crashed attempt's leftovers, or (re-index: same bytes, same doc_id) the live vectors
        index.delete_vectors(settings, tenant, doc_id, keep_answer_vectors=True)
        index.add_vectors(settings, tenant, chunks, matrix)
        carried = _register(settings, tenant, doc_id, file_name, sha, len(data), uploaded_by, parsed.pages,
                            chunks, kept, fmt, timings, previous, uploaded_at, list(parsed.warnings))
        index.rebuild_lexical(settings, tenant, changed=[doc_id])  # a re-index may keep ids and lengths
    except BaseException:
        _restore(settings, tenant, doc_id, kept, before)
        journal.end(settings, tenant)
        raise
    # the new version takes over the old one's answer vectors: unchanged sentences are not
    # embedded again, and its preparation drops what it no longer uses
    AnswerVectors.of(settings, tenant).hand_over([d["doc_id"] for d in before.documents], doc_id)
    scan_words.save(settings, tenant, doc_id, parsed.scanned_words, parsed.scanned_turns)  # derived: lost, it costs a box
    scan_words.drop(settings, tenant, [d["doc_id"] for d in before.documents if d["doc_id"] != doc_id])
    for old in before.documents:  # the new version is live; now drop what only the old one used
        if old["doc_id"] != doc_id:
            index.delete_vectors(settings, tenant, old["doc_id"])
        if old.get("path") and Path(old["path"]).name != kept.name:
            kept_file(settings, tenant, old["path"]).unlink(missing_ok=True)
    journal.end(settings, tenant)
    timings["index"] = time.perf_counter() - t
    replaced = next((d["doc_id"] for d in previous if d["status"] == "ready"), None)
    unlike = replacement_warning(file_name, share) if replaced else None  # read before embedding
    return IngestResult(file_name, "ready", doc_id, parsed.pages, len(chunks), timings=timings,
                        replaced=replaced, pages_left_out=parsed.pages_left_out,
                        warnings=list(parsed.warnings) + ([unlike] if unlike else []),
                        reused_vectors=reused,
                        exclusions_kept=carried.kept, exclusions_dropped=carried.dropped)




def _embed(settings: Settings, tenant: str, texts: list[str], report: Progress) -> tuple[Any, int]:
    """One vector per text, in order, and how many were reused: a chunk whose exact text the
    tenant already holds (a new version of a file with a few paragraphs changed, a
    re-index after a chunker change) takes that chunk's vector instead of being embedded
    again (~0.1-0.25 s a chunk on 2 cores)."""
    import numpy as np

    known = index.vectors_of_texts(settings, tenant, texts)
    todo = [i for i, text in enumerate(texts) if text not in known]
    out = np.zeros((len(texts), 384), dtype=np.float32)
    for i, text in enumerate(texts):
        if text in known:
            out[i] = known[text]
    report("embed", 0.25)  # a safe point between chunking and the first batch
    embedder = get_embedder(num_threads=settings.embed_threads) if todo else None
    for start in range(0, len(todo), EMBED_BATCH):
        part = todo[start : start + EMBED_BATCH]
        out[part] = embedder.embed_passages([texts[i] for i in part])
        report("embed", 0.25 + 0.65 * min(1.0, (start + EMBED_BATCH) / len(todo)))
    return out, len(texts) - len(todo)


# More characters per token than any chunk of the demo corpus holds (at most 5.96, median
# 4.24), so the estimate below never refuses a file that would fit
MAX_CHARS_PER_TOKEN = 10


def _fewest_chunks(parsed: ParsedDocument, settings: Settings) -> int:
    """A lower bound on a parsed document's chunks, from its length alone."""
    chars = sum(len(b.text) for b in parsed.blocks)
    return chars // (MAX_CHARS_PER_TOKEN * min(settings.chunk_tokens, MAX_CHUNK_TOKENS))


class TooLong(IngestError):
    """A file over the tenant's chunk limit, with its `count` of chunks (a lower bound when
    the text's length alone told). The count is kept on the failure row, so the same bytes
    under the same name are refused again without being parsed and chunked: a folder run
    re-read a file over the limit every time (a scale pass: 14.9 s a run against 3 s)."""

    def __init__(self, message: str, count: int) -> None:
        super().__init__(message)
        self.count = count


def _known_too_long(settings: Settings, tenant: str, sha: str, file_name: str) -> TooLong | None:
    """The refusal of these bytes under this name when an earlier ingest found them over the
    chunk limit and the limit is still below their count (raised since: they are read again)."""
    failed = [d for d in store.find_documents(settings, tenant, file_name=file_name, sha256=sha)
              if d["status"] == "failed" and d.get("over_limit")]
    if not failed:
        return None
    try:  # the sentence names the limit of now, which may differ from the one it failed under
        _check_chunk_limit(settings, tenant, file_name, failed[0]["over_limit"], at_least=True)
    except TooLong as exc:
        return exc
    return None


def _check_chunk_limit(settings: Settings, tenant: str, file_name: str, count: int, *,
                       at_least: bool = False) -> None:
    """Fail before embedding (~0.25 s a chunk on 2 cores): a huge file would otherwise run for
    many minutes with no result. `at_least`: the count is a lower bound (see _fewest_chunks)."""
    overrides = load_tenant_overrides(settings, tenant)
    limit = int(overrides.get("max_chunks_per_doc", settings.max_chunks_per_doc))
    if count > limit:
        # a console admin raises it on the Settings page; whoever runs the server, for every tenant
        knob = "the tenant's 'Maximum chunks per document' on the Settings page" + (
            "" if "max_chunks_per_doc" in overrides else " (GROUNDWORK_MAX_CHUNKS_PER_DOC for every tenant)")
        raise TooLong(f"{file_name} is too long to index: {'at least ' if at_least else ''}{count:,} chunks, "
                      f"the limit is {limit:,} per document; split it into smaller files or raise {knob}.", count)


def _restore_original(settings: Settings, tenant: str, doc: dict[str, Any], path: Path) -> str | None:
    """The same bytes uploaded again for a document whose kept original is gone (a disk
    cleaned by hand): kept again, as `doctor` says to do; else it stayed lost, the upload
    being "unchanged". Returns what to say, or None."""
    if not doc.get("path"):
        return None
    kept = kept_file(settings, tenant, doc["path"])
    if kept.exists():
        return None
    _keep_original(path, kept)
    return f"The kept original of {doc['file_name']} was missing; this upload restored it."


def _keep_original(path: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    try:
        shutil.copyfile(path, tmp)
        tmp.replace(target)  # atomic: a re-index rewrites the live original with the same bytes
    finally:
        tmp.unlink(missing_ok=True)


def text_fingerprint(text: str) -> str:
    """What an exclusion remembers of a passage: its text, NFKC-normalised with whitespace
    collapsed, hashed. A re-index whose chunker only re-wraps lines finds the passage again;
    a passage with any word changed is another passage (the admin excluded those words)."""
    return hashlib.sha256(" ".join(unicodedata.normalize("NFKC", text).split()).encode("utf-8")).hexdigest()


@dataclass
class _Carried:
    kept: int = 0
    dropped: list[str] = field(default_factory=list)  # previews of excluded passages no longer found


def _preview(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _register(
    settings: Settings, tenant: str, doc_id: str, file_name: str, sha: str, size: int,
    uploaded_by: str, pages: int | None, chunks: list, kept: Path, fmt: str, timings: dict,
    previous: list[dict], uploaded_at: float, notes: list[str],
) -> _Carried:
    """Write the document and its chunks in one transaction, replacing `previous` (and the
    document itself on a re-index). Chunk ids change with the bytes (and with the chunker), so
    the exclusions of the replaced chunks are carried by text: a new chunk whose fingerprint
    an excluded one had is excluded too. Same transaction, so a crash keeps both or neither."""
    langs = [c.lang for c in chunks]
    lang = max(set(langs), key=langs.count) if langs else "other"
    replaced = [doc_id, *(old["doc_id"] for old in previous)]
    with store.connect(settings) as conn:
        marks = ",".join("?" * len(replaced))
        excluded: dict[str, str] = {}  # fingerprint -> text, in document order
        for row in conn.execute(f"SELECT text FROM chunks WHERE tenant=? AND disabled=1 AND doc_id IN ({marks})"
                                " ORDER BY ordinal", (tenant, *replaced)):
            excluded.setdefault(text_fingerprint(row["text"]), row["text"])
        prints = [text_fingerprint(c.text) for c in chunks] if excluded else [""] * len(chunks)
        for old in previous:
            conn.execute("DELETE FROM chunks WHERE doc_id=?", (old["doc_id"],))
            conn.execute("DELETE FROM documents WHERE doc_id=?", (old["doc_id"],))
        conn.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
        conn.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))
        conn.execute(
            "INSERT INTO documents (doc_id, tenant, file_name, sha256, size, pages, chunks, status,"
            " error, uploaded_at, uploaded_by, format, lang, path, timings, notes)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (doc_id, tenant, file_name, sha, size, pages, len(chunks), "ready", None, uploaded_at,
             uploaded_by, fmt, lang, f"files/{kept.name}", json.dumps(timings),
             json.dumps(notes, ensure_ascii=False) if notes else None),
        )
        conn.executemany(
            "INSERT INTO chunks (chunk_id, doc_id, tenant, ordinal, text, meta, disabled) VALUES (?,?,?,?,?,?,?)",
            [(c.chunk_id, doc_id, tenant, c.ordinal, c.text, json.dumps(_meta(c)), int(fp in excluded))
             for c, fp in zip(chunks, prints)],
        )
    found = set(prints)
    return _Carried(kept=sum(1 for fp in excluded if fp in found),
                    dropped=[_preview(text) for fp, text in excluded.items() if fp not in found])


def _meta(chunk: Any) -> dict[str, Any]:
    meta = asdict(chunk)
    meta.pop("text", None)
    return meta


@dataclass
class _Before:
    """What committing a document may overwrite, kept so that a failure puts it back exactly."""

    documents: list[dict[str, Any]]  # registry rows of the replaced (or re-indexed) versions
    chunks: list[dict[str, Any]]
    vectors: dict[str, Any]  # Chroma get() of the re-indexed document (its ids are reused)


def _snapshot(settings: Settings, tenant: str, doc_id: str, previous: list[dict]) -> _Before:
    ids = [doc_id, *(d["doc_id"] for d in previous)]
    marks = ",".join("?" * len(ids))
    with store.connect(settings) as conn:
        docs = conn.execute(f"SELECT * FROM documents WHERE tenant=? AND doc_id IN ({marks})", (tenant, *ids))
        documents = [dict(r) for r in docs]
        rows = conn.execute(f"SELECT * FROM chunks WHERE tenant=? AND doc_id IN ({marks})", (tenant, *ids))
        chunks = [dict(r) for r in rows]
    vectors: dict[str, Any] = {"ids": []}
    if any(d["doc_id"] == doc_id for d in documents):  # a re-index replaces the live vectors in place
        vectors = index.collection(settings, tenant).get(where={"doc_id": doc_id},
                                                         include=["embeddings", "metadatas"])
    return _Before(documents, chunks, vectors)


def _restore(settings: Settings, tenant: str, doc_id: str, kept: Path, before: _Before) -> None:
    """Remove every trace of a half-indexed document and put back what it replaced: the
    previous version (or the re-indexed document itself) stays live exactly as it was."""
    try:
        index.delete_vectors(settings, tenant, doc_id)
        _put_back_vectors(settings, tenant, before.vectors)
    finally:
        ids = [(i,) for i in {doc_id, *(d["doc_id"] for d in before.documents)}]
        with store.connect(settings) as conn:  # one transaction: the registry is never half-restored
            conn.executemany("DELETE FROM chunks WHERE doc_id=?", ids)
            conn.executemany("DELETE FROM documents WHERE doc_id=?", ids)
            _insert_rows(conn, "documents", before.documents)
            _insert_rows(conn, "chunks", before.chunks)
        if not any(kept.name == Path(d["path"]).name for d in before.documents if d.get("path")):
            kept.unlink(missing_ok=True)
        index.rebuild_lexical(settings, tenant, changed=[doc_id])


def _put_back_vectors(settings: Settings, tenant: str, got: dict[str, Any]) -> None:
    ids = list(got.get("ids") or [])
    col = index.collection(settings, tenant)
    for start in range(0, len(ids), 256):
        end = start + 256
        col.add(ids=ids[start:end], embeddings=[[float(x) for x in e] for e in got["embeddings"][start:end]],
                metadatas=got["metadatas"][start:end])
    index.note_write(settings)


def _insert_rows(conn: Any, table: str, rows: list[dict[str, Any]]) -> None:
    for row in rows:
        conn.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                     tuple(row.values()))


ADDRESSED_CHARS = 80  # of the first line addressed to a model, to name it in the note


def _addressed_to_a_model(texts: list[str]) -> list[str]:
    """A note when lines of the document address an AI model ("Note to AI assistants: always
    say ..."): the answer step never quotes such a paragraph nor reads it as evidence, and
    the admin who uploaded it was not told (a QA pass)."""
    lines = [line.strip() for text in texts for line in text.split("\n") if looks_like_instruction(line)]
    if not lines:
        return []
    first = " ".join(lines[0].lstrip("-*# ").split())
    shown = first if len(first) <= ADDRESSED_CHARS else first[:ADDRESSED_CHARS].rsplit(" ", 1)[0] + "…"
    many = f"{len(lines)} lines address" if len(lines) > 1 else "A line addresses"
    return [f"{many} an AI model (“{shown}”): such a paragraph is never quoted nor read as evidence."]


def _record_failure(
    settings: Settings, tenant: str, file_name: str, sha: str, size: int, uploaded_by: str, error: str,
    *, over_limit: int | None = None,
) -> str | None:
    """A failed file is listed with its reason; it never replaces a working version. The row's
    id (returned) includes the file name: files with identical bytes each keep their own record."""
    failure_id = "f" + hashlib.sha256(f"{tenant_key(tenant)}:{file_name}:{sha}".encode()).hexdigest()[:15]
    try:
        with store.connect(settings) as conn:
            conn.execute(
                "DELETE FROM documents WHERE tenant=? AND file_name=? AND status='failed'", (tenant, file_name)
            )
            conn.execute(
                "INSERT OR REPLACE INTO documents (doc_id, tenant, file_name, sha256, size, pages, chunks,"
                " status, error, uploaded_at, uploaded_by, over_limit) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (failure_id, tenant, file_name, sha, size, None, 0, "failed", error, time.time(), uploaded_by,
                 over_limit),
            )
    except Exception as exc:
        if not disk.is_full(exc):
            raise
        return None  # a full disk cannot hold the note either; the result still says why
    return failure_id


def _folder_files(folder: Path) -> list[tuple[Path, str | None]]:
    """Every file of a folder (recursive, sorted), each with why a folder ingest leaves it out,
    or None when it reads it."""
    root = folder.resolve()
    out: list[tuple[Path, str | None]] = []
    for f in sorted(f for f in folder.rglob("*") if f.is_file()):
        if any(part.startswith(".") for part in f.relative_to(folder).parts):
            # a hidden file or folder (".git", ".drafts") is not the folder's content
            out.append((f, "a hidden file; name it directly to ingest it"))
        elif f.name.startswith("~$"):  # Word's and Excel's lock file beside an open document
            out.append((f, "an Office lock file of an open document, not a document"))
        elif not f.resolve().is_relative_to(root):
            # a link out of the folder put /etc/passwd into a tenant's answers (reliability pass)
            out.append((f, "a link to a file outside the folder; name that file directly to ingest it"))
        elif f.suffix.lower() not in FOLDER_SUFFIXES:
            out.append((f, f"not a type read here ({f.suffix or 'no extension'})"))
        else:
            out.append((f, None))
    return out


def iter_files(paths: list[Path]) -> list[Path]:
    """Files named directly, plus the files found in folders (sorted, recursive; hidden ones
    and links to files outside the folder left out) whose names core/ingest reads
    (`FOLDER_SUFFIXES`)."""
    out: list[Path] = []
    for p in (Path(p) for p in paths):
        out.extend([f for f, why in _folder_files(p) if why is None] if p.is_dir() else [p])
    return out


def skipped_in_folders(paths: list[Path]) -> list[tuple[Path, str]]:
    """The files of the named folders that `iter_files` leaves out, each with why: a folder
    ingest that skipped "program.exe" and ".hidden.md" without a word left an operator to
    guess (QA pass)."""
    return [(f, why) for p in (Path(p) for p in paths) if p.is_dir() for f, why in _folder_files(p) if why]


def list_documents(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    validate_tenant(tenant)
    journal.settle_abandoned(settings, tenant)  # a crashed write is settled before it is listed
    return store.list_documents(settings, tenant)


_UNSAFE_NAME_CHARS = frozenset(':*?"<>|')


def base_name(file_name: str) -> str:
    """A file name sent by a client without any folder part, "/" or "\\" ("../../a.txt" -> "a.txt");
    "" for a name that is only a folder (".." was listed as a document's name)."""
    name = Path(file_name.replace("\\", "/")).name
    return "" if name.strip() in (".", "..") else name


def upload_file_name(file_name: str) -> str:
    """A file-system-safe name for uploaded bytes that keeps the original stem: parsers take
    the stem as the title of a document without a heading, and the title counts as the
    passage's context when answering, so an upload must not be titled "upload" where the
    same file ingested by the CLI is titled by its name."""
    name = base_name(file_name)
    stem, dot, suffix = name.rpartition(".")
    if not dot:
        stem, suffix = name, ""
    suffix = "".join(c for c in suffix if c.isascii() and c.isalnum())[:10]
    stem = "".join("_" if c in _UNSAFE_NAME_CHARS or ord(c) < 32 or ord(c) == 127 else c for c in stem).strip(" .")
    stem = stem.encode()[:150].decode("utf-8", "ignore") or "upload"  # file names: at most 255 bytes
    return stem + (f".{suffix.lower()}" if suffix else "")


def ingest_bytes(settings: Settings, tenant: str, file_name: str, data: bytes, *, uploaded_by: str,
                 progress: Progress | None = None) -> IngestResult:
    """Index uploaded bytes (console, HTTP API) under their original name, less any folder
    part: a client may send "../../etc/passwd.txt", and the listing and every citation would
    show that path."""
    file_name = base_name(file_name).strip() or "upload"
    with tempfile.TemporaryDirectory(prefix="gw-upload-") as tmp:
        path = Path(tmp) / upload_file_name(file_name)
        path.write_bytes(data)
        return ingest_file(settings, tenant, path, file_name=file_name, uploaded_by=uploaded_by, progress=progress)


def exclude_chunk(settings: Settings, tenant: str, chunk_id: str, excluded: bool = True) -> None:
    """Keep one passage out of answers (retrieval skips it) or let it back in; the passage
    stays stored and shown, so the change is reversible. A re-index or a new version of the
    document keeps it out while a passage with the same text is found (`text_fingerprint`).
    LookupError with one sentence for an unknown passage."""
    if not store.set_chunk_disabled(settings, tenant, chunk_id, excluded):
        raise LookupError(f"No passage {chunk_id} in tenant {tenant}'s documents.")


def delete_document(settings: Settings, tenant: str, doc_id: str) -> bool:
    """Remove a document from Chroma, BM25, the registry and the kept files. False if unknown."""
    return delete_documents(settings, tenant, [doc_id]) == 1


def delete_documents(settings: Settings, tenant: str, doc_ids: Iterable[str]) -> int:
    """Remove several documents at once; returns how many were known. One vector rebuild and
    one BM25 rebuild for all of them: deleting one by one costs a rebuild each, so emptying
    a tenant of N documents would be quadratic in N."""
    docs = [d for d in (store.get_document(settings, tenant, i) for i in dict.fromkeys(doc_ids)) if d]
    if not docs:
        return 0
    ids = [d["doc_id"] for d in docs]
    # the vectors are removed by copying the tenant's others into a fresh collection, and
    # Chroma can hang in an add on a full disk: room for that copy, not the ingest's floor
    # (a delete is how a nearly full disk is freed)
    kept_chunks = sum(d["chunks"] or 0 for d in store.list_documents(settings, tenant)) - sum(d["chunks"] or 0 for d in docs)
    disk.ensure_room(settings, max(kept_chunks, 0) * disk.BYTES_PER_CHUNK, "deleting",
                     headroom=disk.DELETE_HEADROOM_BYTES)
    with journal.write_lock(settings, tenant):
        journal.begin(settings, tenant, "delete", ids)
        # the registry first: once it commits, the delete is decided and a crash after it
        # is rolled forward (core/journal.py); readers skip vectors the registry lacks
        with store.connect(settings) as conn:
            rows = [(doc_id, tenant) for doc_id in ids]
            conn.executemany("DELETE FROM chunks WHERE doc_id=? AND tenant=?", rows)
            conn.executemany("DELETE FROM documents WHERE doc_id=? AND tenant=?", rows)
        index.delete_vectors(settings, tenant, *ids)
        index.rebuild_lexical(settings, tenant)
        for doc in docs:
            if doc.get("path"):
                kept_file(settings, tenant, doc["path"]).unlink(missing_ok=True)
        scan_words.drop(settings, tenant, ids)
        journal.end(settings, tenant)
    return len(docs)


def reindex_document(settings: Settings, tenant: str, doc_id: str, progress: Progress | None = None) -> IngestResult:
    """Parse, chunk and embed a kept original again (e.g. after a chunker change). The same
    bytes keep the same doc_id; if any step fails the document stays live exactly as it was."""
    doc = store.get_document(settings, tenant, doc_id)
    original = original_path(settings, tenant, doc_id)
    if doc is None or original is None:
        return IngestResult(doc["file_name"] if doc else doc_id, "failed",
                            error="The original file is not kept; upload it again.")
    # a copy outside the tenant's folder: the ingest rewrites the kept original itself, and
    # the doctor removes any file there that no document names
    with tempfile.TemporaryDirectory(prefix="groundwork-reindex-") as folder:
        tmp = Path(folder) / original.name
        shutil.copyfile(original, tmp)
        return _ingest(settings, tenant, tmp, doc["file_name"], doc.get("uploaded_by") or "reindex",
                       progress, reindex=doc_id)


def original_path(settings: Settings, tenant: str, doc_id: str) -> Path | None:
    doc = store.get_document(settings, tenant, doc_id)
    if doc and doc.get("path") and kept_file(settings, tenant, doc["path"]).exists():
        return kept_file(settings, tenant, doc["path"])
    return None
