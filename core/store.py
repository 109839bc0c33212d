"""SQLite under GROUNDWORK_DATA: tenants (and the ones being deleted), documents, chunks,
interrupted uploads, traces, feedback, eval runs, reviews, API keys, console users and their
sign-in sessions, the HTTP API's upload jobs.

Schema changes are numbered migrations recorded in `_migrations`; each runs once.
"""

from __future__ import annotations

import json
import sqlite3
import time
import unicodedata
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.config import Settings

MIGRATIONS: list[str] = [
    # 1: registry
    """
    CREATE TABLE tenants (
        id TEXT PRIMARY KEY, display_name TEXT NOT NULL, collection TEXT NOT NULL UNIQUE,
        created_at REAL NOT NULL);
    CREATE TABLE documents (
        doc_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, file_name TEXT NOT NULL,
        sha256 TEXT NOT NULL, size INTEGER NOT NULL, pages INTEGER, chunks INTEGER DEFAULT 0,
        status TEXT NOT NULL, error TEXT, uploaded_at REAL NOT NULL, uploaded_by TEXT,
        format TEXT, lang TEXT, path TEXT, timings TEXT);
    CREATE INDEX documents_tenant ON documents(tenant, file_name);
    CREATE TABLE chunks (
        chunk_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, tenant TEXT NOT NULL,
        ordinal INTEGER NOT NULL, text TEXT NOT NULL, meta TEXT NOT NULL);
    CREATE INDEX chunks_doc ON chunks(doc_id);
    CREATE INDEX chunks_tenant ON chunks(tenant);
    """,
    # 2: traces and feedback
    """
    CREATE TABLE traces (
        trace_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, question TEXT NOT NULL,
        created_at REAL NOT NULL, status TEXT NOT NULL, provider TEXT, model TEXT,
        confidence REAL, factuality REAL, unsupported INTEGER DEFAULT 0,
        total_ms REAL, data TEXT NOT NULL);
    CREATE INDEX traces_tenant ON traces(tenant, created_at);
    CREATE TABLE feedback (
        id INTEGER PRIMARY KEY AUTOINCREMENT, trace_id TEXT NOT NULL, tenant TEXT NOT NULL,
        rating INTEGER NOT NULL, comment TEXT, created_at REAL NOT NULL);
    """,
    # 3: eval runs
    """
    CREATE TABLE eval_runs (
        run_id TEXT PRIMARY KEY, set_name TEXT NOT NULL, created_at REAL NOT NULL,
        git_commit TEXT, tenant TEXT, split TEXT, settings TEXT NOT NULL,
        overall TEXT NOT NULL, report TEXT NOT NULL);
    CREATE INDEX eval_runs_set ON eval_runs(set_name, created_at);
    """,
    # 4: eval runs: what makes two runs comparable (mode, --limit, the tenants asked), and
    # reads scoped by the tenant a run belongs to. Older runs: mode from their report
    # ("calibration" or a plain run), tenants from their per-tenant breakdown, limit unknown.
    """
    ALTER TABLE eval_runs ADD COLUMN mode TEXT NOT NULL DEFAULT 'run';
    ALTER TABLE eval_runs ADD COLUMN run_limit INTEGER;
    ALTER TABLE eval_runs ADD COLUMN tenants TEXT NOT NULL DEFAULT '';
    UPDATE eval_runs SET mode = coalesce(json_extract(report, '$.mode'), 'run'),
        tenants = coalesce((SELECT group_concat(key, ',') FROM json_each(report, '$.by_tenant')), '');
    CREATE INDEX eval_runs_tenant ON eval_runs(tenant, set_name, created_at);
    """,
    # 5: feedback is one rating per answer: a second send updates it. Duplicates stored
    # before this (the same answer rated twice) keep only their newest rating.
    """
    DELETE FROM feedback WHERE EXISTS (
        SELECT 1 FROM feedback AS newer WHERE newer.tenant = feedback.tenant
        AND newer.trace_id = feedback.trace_id
        AND (newer.created_at > feedback.created_at
             OR (newer.created_at = feedback.created_at AND newer.id > feedback.id)));
    CREATE UNIQUE INDEX IF NOT EXISTS feedback_one_per_trace ON feedback(tenant, trace_id);
    """,
    # 6: uploads cut off before they were indexed (the page was left or reloaded): nothing of
    # the file was kept, and the console says so, in any later session, until the file is
    # uploaded again or the note dismissed. One row per tenant and file name, the latest time.
    """
    CREATE TABLE interrupted_uploads (
        tenant TEXT NOT NULL, file_name TEXT NOT NULL, interrupted_at REAL NOT NULL,
        PRIMARY KEY (tenant, file_name));
    """,
    # 7: the word a refusal says the documents never use, kept beside the trace so the
    # Settings page lists them without parsing every trace's JSON (3 s for 5,000 refusals)
    """
    ALTER TABLE traces ADD COLUMN unknown_word TEXT;
    CREATE INDEX traces_unknown_word ON traces(tenant, created_at) WHERE unknown_word IS NOT NULL;
    """,
    # 8: the same word read out of the asks traced before 7, once, so their refusals count
    # too: the text between the quotes of the two refusal sentences core/trace.py reads
    # ("never mentions “X”", "does not address “X”, a word ..."), up to 60 characters
    """
    UPDATE traces SET unknown_word = substr(reason, instr(reason, '“') + 1,
                                            instr(reason, '”') - instr(reason, '“') - 1)
    FROM (SELECT trace_id AS id, json_extract(data, '$.answer.refusal_reason') AS reason FROM traces
          WHERE status = 'refused' AND unknown_word IS NULL AND json_valid(data)) AS old
    WHERE traces.trace_id = old.id
      AND (old.reason LIKE '%never mentions “%”%' OR old.reason LIKE '%never uses “%”%'
           OR old.reason LIKE '%does not address “%”, a word the knowledge%')
      AND instr(old.reason, '”') - instr(old.reason, '“') - 1 BETWEEN 1 AND 60;
    """,
    # 9: the review queue's decisions: one per ask (core/review.py); an ask with none is open
    """
    CREATE TABLE reviews (
        tenant TEXT NOT NULL, trace_id TEXT NOT NULL, resolution TEXT NOT NULL,
        detail TEXT, resolved_at REAL NOT NULL, PRIMARY KEY (tenant, trace_id));
    CREATE INDEX traces_status ON traces(tenant, status, created_at);
    ALTER TABLE chunks ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
    """,
    # 10: HTTP API keys, one tenant each, stored as SHA-256 of the key (core/keys.py)
    """
    CREATE TABLE api_keys (
        key_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, label TEXT,
        created_at REAL NOT NULL, revoked_at REAL, last_used_at REAL);
    CREATE INDEX api_keys_tenant ON api_keys(tenant);
    """,
    # 11: console accounts (core/users.py): a password hash each, and a role per tenant
    """
    CREATE TABLE users (username TEXT PRIMARY KEY, password_hash TEXT NOT NULL, created_at REAL NOT NULL);
    CREATE TABLE memberships (
        username TEXT NOT NULL, tenant TEXT NOT NULL, role TEXT NOT NULL, PRIMARY KEY (username, tenant));
    """,
    # 12: console sign-ins that outlive a reload (core/users.py): SHA-256 of a random token,
    # the user it signs in, a hard expiry, and the time it was ended (sign-out, user removed)
    """
    CREATE TABLE console_sessions (
        token_hash TEXT PRIMARY KEY, username TEXT NOT NULL, created_at REAL NOT NULL,
        expires_at REAL NOT NULL, ended_at REAL);
    CREATE INDEX console_sessions_user ON console_sessions(username);
    """,
    # 13: each ask's route verdict beside it, so the review queue never parses every
    # trace's JSON. (For a while this column was added by migration 9 itself, so data
    # folders migrated then already hold it: `_migrate` lets an existing column stand.)
    """
    ALTER TABLE traces ADD COLUMN route TEXT;
    """,
    # 14: who asked: NULL for a person (console, CLI, API), else `eval` or `benchmark`, so
    # live figures, the review queue and the words to teach leave the harness's asks out
    """
    ALTER TABLE traces ADD COLUMN origin TEXT;
    """,
    # 15: what indexing noted about a document (pages read by OCR, skipped, left out, hidden
    # sheets...), a JSON list of sentences: the upload panel said it once, the admin who
    # comes back later finds it on the document
    """
    ALTER TABLE documents ADD COLUMN notes TEXT;
    """,
    # 16: wrong passwords per user name (core/users.py): after a few within a window the name
    # waits, so a password cannot be guessed at the sign-in form's speed
    """
    CREATE TABLE sign_in_failures (username TEXT NOT NULL, at REAL NOT NULL);
    CREATE INDEX sign_in_failures_user ON sign_in_failures(username, at);
    """,
    # 17: a failed file's chunk count when it was refused for the chunk limit, so the same
    # bytes are refused again without parsing (`chunks` stays 0: a failed file has none)
    """
    ALTER TABLE documents ADD COLUMN over_limit INTEGER;
    """,
    # 18: uploads over the HTTP API indexed in the background (core/ingest_jobs.py): the job's
    # phase and progress, the process whose worker runs it (pid and start tick, so a server
    # that stopped leaves its jobs read as interrupted), and the outcome (doc_id or error)
    """
    CREATE TABLE ingest_jobs (
        job_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, file_name TEXT NOT NULL, size INTEGER NOT NULL,
        stored TEXT NOT NULL, uploaded_by TEXT, key_id TEXT, phase TEXT NOT NULL, stage TEXT,
        fraction REAL NOT NULL DEFAULT 0, doc_id TEXT, error TEXT, result TEXT, pid INTEGER,
        pid_start INTEGER, created_at REAL NOT NULL, started_at REAL, finished_at REAL,
        updated_at REAL NOT NULL);
    CREATE INDEX ingest_jobs_tenant ON ingest_jobs(tenant, created_at);
    """,
    # 19: a tenant being deleted (core/tenant_deletion.py): the time its deletion was decided;
    # from then on no listing shows it and its id cannot be created again until the row goes
    """
    ALTER TABLE tenants ADD COLUMN deleting_at REAL;
    """,
    # 20: a client's request to cancel an upload already indexing (core/ingest_cancel.py): the
    # worker reads it at the ingest's safe points and stops before the commit
    """
    ALTER TABLE ingest_jobs ADD COLUMN cancel_requested_at REAL;
    """,
    # 21: the process deleting a tenant (pid and start tick, core/processes.py), so a deletion
    # whose process died is told from one under way and finished at the next start
    """
    ALTER TABLE tenants ADD COLUMN deleting_pid INTEGER;
    ALTER TABLE tenants ADD COLUMN deleting_pid_start INTEGER;
    """,
]


def db_path(settings: Settings) -> Path:
    return Path(settings.data_dir) / "groundwork.db"


@contextmanager
def connect(settings: Settings) -> Iterator[sqlite3.Connection]:
    """A connection with migrations applied; commits on success, rolls back on error."""
    path = db_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA busy_timeout=30000")
        _ensure_wal(conn)
        _migrate(conn)
        yield conn
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    finally:
        conn.close()


def _ensure_wal(conn: sqlite3.Connection, attempts: int = 100) -> None:
    """Switch the database to WAL once. The switch needs the database to itself and SQLite
    reports "locked" at once instead of waiting, so concurrent first connections (parallel
    uploads into a new data folder) retry briefly; once in WAL mode this is a read."""
    for attempt in range(attempts):
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
                return
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.05)


def _apply(conn: sqlite3.Connection, statement: str) -> None:
    """One migration statement; a column some earlier build already added stays as it is."""
    try:
        conn.execute(statement)
    except sqlite3.OperationalError as exc:
        if not ("ADD COLUMN" in statement.upper() and "duplicate column name" in str(exc)):
            raise


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (id INTEGER PRIMARY KEY, applied_at REAL)")
    done = {row[0] for row in conn.execute("SELECT id FROM _migrations")}
    for number, script in enumerate(MIGRATIONS, start=1):
        if number in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # re-check under the write lock: another process may have just applied it
            if conn.execute("SELECT 1 FROM _migrations WHERE id=?", (number,)).fetchone():
                conn.execute("COMMIT")
                continue
            for statement in script.split(";"):
                if statement.strip():
                    _apply(conn, statement)
            conn.execute("INSERT INTO _migrations VALUES (?, ?)", (number, time.time()))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


# ---- tenants -------------------------------------------------------------------------------


def upsert_tenant(settings: Settings, tenant: str, collection: str) -> None:
    """Create the tenant's row (a no-op when it exists). A tenant being deleted raises
    TenantBeingDeleted: writing into it now would outlive the deletion."""
    with connect(settings) as conn:
        conn.execute(
            "INSERT OR IGNORE INTO tenants (id, display_name, collection, created_at) "
            "VALUES (?, ?, ?, ?)",
            (tenant, tenant, collection, time.time()),
        )
        row = conn.execute("SELECT deleting_at FROM tenants WHERE id=?", (tenant,)).fetchone()
    if row["deleting_at"] is not None:
        from core.tenants import TenantBeingDeleted

        raise TenantBeingDeleted(tenant)


def list_tenants(settings: Settings) -> list[dict[str, Any]]:
    """The live tenants, oldest first (a tenant being deleted is no longer one)."""
    with connect(settings) as conn:
        rows = conn.execute("SELECT * FROM tenants WHERE deleting_at IS NULL ORDER BY created_at").fetchall()
    return [dict(r) for r in rows]


def tenant_exists(settings: Settings, tenant: str) -> bool:
    """Whether the tenant is live: a tenant being deleted reads as gone to every caller."""
    with connect(settings) as conn:
        return conn.execute("SELECT 1 FROM tenants WHERE id=? AND deleting_at IS NULL",
                            (tenant,)).fetchone() is not None


def tenants_being_deleted(settings: Settings) -> list[str]:
    """Tenants whose deletion was decided and not finished (a delete that stopped midway)."""
    with connect(settings) as conn:
        rows = conn.execute("SELECT id FROM tenants WHERE deleting_at IS NOT NULL ORDER BY deleting_at").fetchall()
    return [r["id"] for r in rows]


# ---- documents and chunks ------------------------------------------------------------------


def get_document(settings: Settings, tenant: str, doc_id: str) -> dict[str, Any] | None:
    with connect(settings) as conn:
        row = conn.execute(
            "SELECT * FROM documents WHERE tenant=? AND doc_id=?", (tenant, doc_id)
        ).fetchone()
    return dict(row) if row else None


def find_documents(settings: Settings, tenant: str, **where: Any) -> list[dict[str, Any]]:
    clauses = ["tenant=?"] + [f"{k}=?" for k in where]
    with connect(settings) as conn:
        rows = conn.execute(
            f"SELECT * FROM documents WHERE {' AND '.join(clauses)} ORDER BY uploaded_at",
            (tenant, *where.values()),
        ).fetchall()
    return [dict(r) for r in rows]


def opening_sections(settings: Settings, tenant: str, documents: int = 40) -> list[str]:
    """The section of each of the first `documents` ready documents' first chunk, in upload
    order: what the knowledge base is about, in one query."""
    with connect(settings) as conn:
        rows = conn.execute(
            "SELECT json_extract(c.meta, '$.section') AS section FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
            "WHERE c.tenant=? AND d.status='ready' AND c.ordinal=0 ORDER BY d.uploaded_at LIMIT ?",
            (tenant, documents)).fetchall()
    return [r["section"] for r in rows if r["section"]]


def document_languages(settings: Settings, tenant: str) -> dict[str, str]:
    """doc_id -> language of each ready document of the tenant (a light query: asked per question)."""
    with connect(settings) as conn:
        rows = conn.execute("SELECT doc_id, lang FROM documents WHERE tenant=? AND status='ready'", (tenant,))
        return {r["doc_id"]: r["lang"] for r in rows}


def ready_file_names(settings: Settings, tenant: str) -> list[str]:
    """The file names of the tenant's ready documents (a light query)."""
    with connect(settings) as conn:
        rows = conn.execute("SELECT file_name FROM documents WHERE tenant=? AND status='ready'", (tenant,))
        return [r["file_name"] for r in rows]


def list_documents(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    return find_documents(settings, tenant)


def document_notes(document: dict[str, Any]) -> list[str]:
    """What indexing noted about a document (`notes`), as a list; [] for one indexed before
    notes were kept or with nothing to say."""
    try:
        notes = json.loads(document.get("notes") or "[]")
    except ValueError:
        return []
    return [str(n) for n in notes] if isinstance(notes, list) else []


def chunk_rows(settings: Settings, tenant: str, doc_id: str | None = None) -> list[dict[str, Any]]:
    """Chunks of a tenant (optionally one document), in document order."""
    sql = "SELECT * FROM chunks WHERE tenant=?"
    args: tuple[Any, ...] = (tenant,)
    if doc_id is not None:  # by the document's index, not a scan of the tenant's chunks
        sql = "SELECT * FROM chunks WHERE +tenant=? AND doc_id=?"
        args += (doc_id,)
    with connect(settings) as conn:
        rows = conn.execute(sql + " ORDER BY doc_id, ordinal", args).fetchall()
    return [_chunk_item(r) for r in rows]


def _chunk_item(row: sqlite3.Row) -> dict[str, Any]:
    item = json.loads(row["meta"])
    item["text"] = row["text"]
    item["disabled"] = bool(row["disabled"])
    return item


def chunk_rows_of(settings: Settings, tenant: str, doc_ids: list[str]) -> list[dict[str, Any]]:
    """Chunks of some of a tenant's documents, in document order (`chunk_rows` of each)."""
    out: list[dict[str, Any]] = []
    for start in range(0, len(doc_ids), 500):  # under SQLite's limit on bound parameters
        part = doc_ids[start:start + 500]
        with connect(settings) as conn:
            rows = conn.execute(f"SELECT * FROM chunks WHERE +tenant=? AND doc_id IN ({','.join('?' * len(part))})"
                                " ORDER BY doc_id, ordinal", (tenant, *part)).fetchall()
        out += [_chunk_item(r) for r in rows]
    return out


def chunk_lengths(settings: Settings, tenant: str) -> dict[str, list[tuple[str, int]]]:
    """Each document's chunk ids and text lengths, in document order (what the BM25 index
    compares with what it holds, without reading the texts out)."""
    out: dict[str, list[tuple[str, int]]] = {}
    with connect(settings) as conn:
        for doc_id, chunk_id, n in conn.execute(
                "SELECT doc_id, chunk_id, length(text) FROM chunks WHERE tenant=? ORDER BY doc_id, ordinal", (tenant,)):
            out.setdefault(doc_id, []).append((chunk_id, n))
    return out


def set_chunk_disabled(settings: Settings, tenant: str, chunk_id: str, disabled: bool) -> bool:
    """Exclude one of the tenant's chunks from answers (or let it back in); False when the
    tenant holds no such chunk."""
    with connect(settings) as conn:
        cur = conn.execute("UPDATE chunks SET disabled=? WHERE chunk_id=? AND +tenant=?",
                           (int(disabled), chunk_id, tenant))
    return cur.rowcount == 1


def get_chunks(settings: Settings, tenant: str, chunk_ids: list[str],
               known: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """The chunks' rows by id (those of another tenant are never found). `known`: rows one
    question has read already (the retriever reads a document's opening chunks for several
    steps): only the others are read, and they are added to it."""
    if known is not None:
        out = {cid: known[cid] for cid in chunk_ids if cid in known}
        fresh = get_chunks(settings, tenant, [cid for cid in chunk_ids if cid not in known])
        known.update(fresh)
        return {**out, **fresh}
    if not chunk_ids:
        return {}
    marks = ",".join("?" * len(chunk_ids))
    with connect(settings) as conn:
        rows = conn.execute(
            # "+tenant": look the ids up by the primary key; the tenant index would make
            # SQLite scan every chunk of the tenant (65 ms a question at 100k chunks)
            f"SELECT * FROM chunks WHERE +tenant=? AND chunk_id IN ({marks})", (tenant, *chunk_ids)
        ).fetchall()
    out = {}
    for r in rows:
        item = json.loads(r["meta"])
        item["text"] = r["text"]
        item["disabled"] = bool(r["disabled"])
        out[r["chunk_id"]] = item
    return out


def chunks_numbered(settings: Settings, tenant: str, number: str, in_text: bool) -> list[dict[str, Any]]:
    """The tenant's chunks whose section path (or, with `in_text`, whose text) holds
    `number` verbatim ("7-2", "1.1"), with their metadata and `chunk_id`: the candidates
    for a section the question cites, checked by core/reference.py."""
    where = "instr(json_extract(meta, '$.section'), ?) > 0" + (" OR instr(text, ?) > 0" if in_text else "")
    with connect(settings) as conn:
        rows = conn.execute(f"SELECT chunk_id, text, meta FROM chunks WHERE tenant=? AND NOT disabled AND ({where})",
                            (tenant, number, number) if in_text else (tenant, number)).fetchall()
    out = []
    for r in rows:
        item = json.loads(r["meta"])
        item.update(text=r["text"], chunk_id=r["chunk_id"])
        out.append(item)
    return out


def mentions(settings: Settings, tenant: str, text: str) -> bool:
    """Does any of the tenant's chunks in use hold `text` (ASCII letters in any case)? One
    scan, for the rare question naming a code no retrieved passage holds (core/gate.py)."""
    with connect(settings) as conn:
        return conn.execute("SELECT 1 FROM chunks WHERE tenant=? AND NOT disabled AND instr(lower(text), ?) > 0 "
                            "LIMIT 1", (tenant, text.lower())).fetchone() is not None


# ---- uploads interrupted before they were indexed ------------------------------------------


def record_interrupted_uploads(settings: Settings, tenant: str, file_names: list[str],
                               at: float | None = None) -> None:
    """Note that these files' upload stopped before they were indexed (nothing of them kept)."""
    at = time.time() if at is None else at
    with connect(settings) as conn:
        conn.executemany(
            "INSERT INTO interrupted_uploads (tenant, file_name, interrupted_at) VALUES (?,?,?) "
            "ON CONFLICT (tenant, file_name) DO UPDATE SET interrupted_at=excluded.interrupted_at",
            [(tenant, name, at) for name in dict.fromkeys(file_names)],
        )


def list_interrupted_uploads(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    """The tenant's interrupted uploads (file_name, interrupted_at), oldest first, leaving out
    a file uploaded again since (a registry row of that name as new as the interruption, from
    the console or the command line)."""
    with connect(settings) as conn:
        rows = conn.execute(
            "SELECT file_name, interrupted_at FROM interrupted_uploads AS u WHERE tenant=? AND NOT EXISTS ("
            "SELECT 1 FROM documents AS d WHERE d.tenant=u.tenant AND d.file_name=u.file_name "
            "AND d.uploaded_at >= u.interrupted_at) ORDER BY interrupted_at, file_name",
            (tenant,),
        ).fetchall()
    return [dict(r) for r in rows]


def clear_interrupted_uploads(settings: Settings, tenant: str, file_names: list[str] | None = None) -> None:
    """Forget the notes of these files (uploaded again, or dismissed); None: all the tenant's."""
    with connect(settings) as conn:
        if file_names is None:
            conn.execute("DELETE FROM interrupted_uploads WHERE tenant=?", (tenant,))
        else:
            conn.executemany("DELETE FROM interrupted_uploads WHERE tenant=? AND file_name=?",
                             [(tenant, name) for name in file_names])


# ---- traces and feedback -------------------------------------------------------------------


def save_trace(settings: Settings, trace: dict[str, Any], unknown_word: str | None = None) -> str:
    """Store one trace; `unknown_word`: the word its refusal says the documents never use."""
    trace_id = trace.get("trace_id") or uuid.uuid4().hex
    answer = trace.get("answer", {})
    unsupported = sum(1 for c in answer.get("claims", []) if c.get("verdict") != "supported")
    with connect(settings) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO traces (trace_id, tenant, question, created_at, status, provider, model, "
            "confidence, factuality, unsupported, total_ms, data, unknown_word, route, origin) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                trace_id, answer.get("tenant"), answer.get("question"), time.time(),
                answer.get("status"), answer.get("provider"), answer.get("model"),
                answer.get("confidence"), answer.get("factuality"), unsupported,
                answer.get("timings_ms", {}).get("total"), json.dumps(trace, default=str),
                unknown_word, answer.get("route"), trace.get("origin"),
            ),
        )
    return trace_id


def _from_trace(path: str, name: str, table: str = "t", when: str = "") -> str:
    """SQL of one value read from an ask's trace JSON (`path`, e.g. "$.gate.threshold") as the
    column `name`; NULL when the trace does not hold it (or its JSON is damaged), or when the
    SQL condition `when` is false (the JSON of those rows is then not read at all)."""
    only = f"{when} AND " if when else ""
    return f"CASE WHEN {only}json_valid({table}.data) THEN json_extract({table}.data, '{path}') END AS {name}"


# the threshold the ask's answer confidence was compared with: a refusal's confidence is
# shown against it, never rounded onto it (ui.format.fmt_confidence)
GATE_THRESHOLD = "$.gate.threshold"


def list_traces(
    settings: Settings, tenant: str, *, status: str | None = None, search: str = "",
    only_unsupported: bool = False, provider: str | None = None,
    since: float | None = None, limit: int = 200, people_only: bool = False, with_reading: bool = False,
) -> list[dict[str, Any]]:
    """`people_only`: leave out the asks of eval runs and benchmarks (an `origin`); each row
    with the `threshold` its ask was gated by (None when its trace recorded none), and with
    `with_reading` its `asked_as` (what a follow-up was read as; None when asked as typed)."""
    reading = (", " + _from_trace("$.answer.asked_as", "asked_as", "traces")) if with_reading else ""
    sql = ("SELECT trace_id, tenant, question, created_at, status, provider, model, confidence, "
           "factuality, unsupported, total_ms, origin, " + _from_trace(GATE_THRESHOLD, "threshold", "traces")
           + reading + " FROM traces WHERE tenant=?")
    args: list[Any] = [tenant]
    if people_only:
        sql += " AND origin IS NULL"
    if status:
        sql += " AND status=?"
        args.append(status)
    if provider:
        sql += " AND provider=?"
        args.append(provider)
    if only_unsupported:
        sql += " AND unsupported > 0"
    if since is not None:
        sql += " AND created_at >= ?"
        args.append(since)
    needle = fold(search)
    if needle:
        sql += " AND gw_contains(question, ?)"
        args.append(needle)
    sql += " ORDER BY created_at DESC LIMIT ?"
    args.append(limit)
    with connect(settings) as conn:
        conn.create_function("gw_contains", 2, _contains, deterministic=True)
        return [dict(r) for r in conn.execute(sql, args).fetchall()]


def fold(text: str | None) -> str:
    """Text as search compares it: Unicode NFKC, case-folded for every script (SQLite's
    LIKE and lower() fold ASCII only), runs of whitespace as one space."""
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


def _contains(haystack: str | None, needle: str) -> bool:
    """`needle` (already folded) as a literal substring of `haystack`: no wildcards."""
    return needle in fold(haystack)


def unknown_word_asks(settings: Settings, tenant: str, *, since: float | None = None,
                      limit: int = 5000) -> list[dict[str, Any]]:
    """The tenant's asks by people (no eval or benchmark) refused over a word its documents never use, newest first:
    question, asked_as (a follow-up's reading, which holds the word; else None), created_at, unknown_word."""
    return _newest(settings, "SELECT question, CASE WHEN json_valid(data) THEN json_extract(data, '$.answer.asked_as') END "
                             "AS asked_as, created_at, "
                             "unknown_word FROM traces "
                             "WHERE tenant=? AND unknown_word IS NOT NULL AND origin IS NULL", [tenant], "created_at", since, limit)


def _newest(settings: Settings, sql: str, args: list[Any], column: str, since: float | None,
            limit: int) -> list[dict[str, Any]]:
    """Rows of `sql` (a SELECT ending in its WHERE clause) at or after `since` by `column`,
    newest first, at most `limit`."""
    if since is not None:
        sql += f" AND {column} >= ?"
        args = [*args, since]
    with connect(settings) as conn:
        return [dict(r) for r in conn.execute(f"{sql} ORDER BY {column} DESC LIMIT ?", [*args, limit]).fetchall()]


def annotate_trace(settings: Settings, tenant: str, trace_id: str, key: str, value: Any) -> None:
    """Add one top-level entry to a stored trace (a step that ran after it was recorded)."""
    with connect(settings) as conn:
        conn.execute("UPDATE traces SET data = json_set(data, ?, json(?)) WHERE tenant=? AND trace_id=?",
                     (f"$.{key}", json.dumps(value, ensure_ascii=False), tenant, trace_id))


def get_trace(settings: Settings, tenant: str, trace_id: str) -> dict[str, Any] | None:
    with connect(settings) as conn:
        row = conn.execute(
            "SELECT data FROM traces WHERE tenant=? AND trace_id=?", (tenant, trace_id)
        ).fetchone()
    return json.loads(row["data"]) if row else None


def add_feedback(settings: Settings, tenant: str, trace_id: str, rating: int, comment: str = "") -> str:
    """Rate one of the tenant's answers: "saved" for its first rating, "updated" when it
    was rated before (an answer has one rating; the new rating, comment and time replace
    the old). A trace id of another tenant, or of no ask at all, is refused: feedback
    always rates an answer the tenant itself was given."""
    if rating not in (-1, 1):
        raise ValueError("rating must be 1 (up) or -1 (down).")
    with connect(settings) as conn:
        if conn.execute("SELECT 1 FROM traces WHERE trace_id=? AND tenant=?", (trace_id, tenant)).fetchone() is None:
            raise LookupError("That answer is not in this tenant's history, so it cannot be rated; ask again and rate the new answer.")
        existed = conn.execute("SELECT 1 FROM feedback WHERE tenant=? AND trace_id=?",
                               (tenant, trace_id)).fetchone() is not None
        conn.execute(
            "INSERT INTO feedback (trace_id, tenant, rating, comment, created_at) VALUES (?,?,?,?,?) "
            "ON CONFLICT (tenant, trace_id) DO UPDATE SET rating=excluded.rating, comment=excluded.comment, "
            "created_at=excluded.created_at",
            (trace_id, tenant, rating, comment, time.time()),
        )
    return "updated" if existed else "saved"


def get_feedback(settings: Settings, tenant: str, trace_id: str) -> dict[str, Any] | None:
    """The one rating of one of the tenant's answers (rating, comment, created_at), or None."""
    with connect(settings) as conn:
        row = conn.execute("SELECT * FROM feedback WHERE tenant=? AND trace_id=?", (tenant, trace_id)).fetchone()
    return dict(row) if row is not None else None


def list_feedback(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    with connect(settings) as conn:
        rows = conn.execute(
            "SELECT * FROM feedback WHERE tenant=? ORDER BY created_at DESC", (tenant,)
        ).fetchall()
    return [dict(r) for r in rows]


def list_feedback_with_traces(
    settings: Settings, tenant: str, *, rating: int | None = None, since: float | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The tenant's feedback, newest first, each row with the ask it rates.

    Columns: id, trace_id, rating (1 up, -1 down), comment, created_at (when rated), and from
    the trace: question, status, provider, confidence, threshold (the ask's gate's), asked_at. The join also matches the
    tenant, so feedback naming another tenant's trace id never shows that tenant's question;
    feedback whose trace is gone keeps its row with the trace columns None. `rating` keeps
    one kind, `since` (a timestamp) feedback given at or after it.
    """
    if rating is not None and rating not in (-1, 1):
        raise ValueError("rating must be 1 (up) or -1 (down).")
    sql = ("SELECT f.id, f.trace_id, f.rating, f.comment, f.created_at, t.question, t.status, "
           "t.provider, t.confidence, t.created_at AS asked_at, " + _from_trace(GATE_THRESHOLD, "threshold") + " "
           "FROM feedback f LEFT JOIN traces t ON t.trace_id = f.trace_id AND t.tenant = f.tenant "
           "WHERE f.tenant = ?")
    args: list[Any] = [tenant]
    if rating is not None:
        sql += " AND f.rating = ?"
        args.append(rating)
    if since is not None:
        sql += " AND f.created_at >= ?"
        args.append(since)
    sql += " ORDER BY f.created_at DESC, f.id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    with connect(settings) as conn:
        return [dict(r) for r in conn.execute(sql, args).fetchall()]


# ---- eval runs -----------------------------------------------------------------------------


def eval_run_tenants(report: dict[str, Any]) -> list[str]:
    """The tenants a run asked (sorted): `tenants_asked`, else its per-tenant breakdown, else
    its questions' tenants."""
    asked = report.get("tenants_asked") or list(report.get("by_tenant") or {}) or \
        [q.get("tenant") for q in report.get("questions") or []]
    return sorted({str(t) for t in asked if t})


def save_eval_run(settings: Settings, report: dict[str, Any]) -> str:
    """Store a runner report (see DESIGN.md); returns its run_id.

    `report["tenant"]` is the tenant the run belongs to (None: a run of several tenants
    stored for none of them); only reads for that tenant see it. `mode` ("run" or
    "calibration"), `limit` and the tenants asked are kept beside it, so history and drift
    compare only runs that can be compared.
    """
    run_id = report.get("run_id") or uuid.uuid4().hex[:12]
    report["run_id"] = run_id
    with connect(settings) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO eval_runs (run_id, set_name, created_at, git_commit, tenant, split, "
            "settings, overall, report, mode, run_limit, tenants) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                run_id, report.get("set", ""), report.get("created_at", time.time()),
                report.get("git_commit"), report.get("tenant"), report.get("split"),
                json.dumps(report.get("settings", {}), default=str),
                json.dumps(report.get("overall", {})), json.dumps(report, default=str),
                report.get("mode") or "run", report.get("limit"), ",".join(eval_run_tenants(report)),
            ),
        )
    return run_id


def list_eval_runs(settings: Settings, set_name: str | None = None, *, tenant: str | None = None,
                   ) -> list[dict[str, Any]]:
    """The runs that belong to `tenant` (optionally of one set), as summaries without
    per-question data, oldest first. tenant=None reads only the runs stored for no tenant
    (several tenants asked from the command line), never every tenant's runs.

    Each summary: run_id, set_name, created_at, git_commit, tenant, split, settings,
    overall, mode, limit, tenants (the tenants asked, a list), intervals (metric -> [low,
    high], the report's overall 95 % intervals; {} for a run stored before they were kept).
    """
    # the intervals are read out of the report inside SQLite, so a history of many runs
    # never parses their per-question data
    sql = ("SELECT run_id, set_name, created_at, git_commit, tenant, split, settings, overall, mode, "
           "run_limit, tenants, json_extract(report, '$.intervals.overall') AS intervals "
           "FROM eval_runs WHERE tenant IS ?")
    args: tuple[Any, ...] = (tenant,)
    if set_name:
        sql += " AND set_name=?"
        args += (set_name,)
    with connect(settings) as conn:
        rows = conn.execute(sql + " ORDER BY created_at", args).fetchall()
    out = []
    for r in rows:
        item = dict(r)
        item["settings"] = json.loads(item["settings"])
        item["overall"] = json.loads(item["overall"])
        item["limit"] = item.pop("run_limit")
        item["tenants"] = [t for t in (item["tenants"] or "").split(",") if t]
        item["intervals"] = json.loads(item["intervals"]) if item["intervals"] else {}
        out.append(item)
    return out


def get_eval_run(settings: Settings, run_id: str, *, tenant: str | None = None) -> dict[str, Any] | None:
    """The full report of a run that belongs to `tenant` (None for another tenant's run;
    tenant=None reads only runs stored for no tenant)."""
    with connect(settings) as conn:
        row = conn.execute("SELECT report FROM eval_runs WHERE run_id=? AND tenant IS ?",
                           (run_id, tenant)).fetchone()
    return json.loads(row["report"]) if row else None


# ---- review queue --------------------------------------------------------------------------


def review_candidates(settings: Settings, tenant: str, *, below: float, open_only: bool = True,
                      limit: int = 500, sample: float = 0.0) -> list[dict[str, Any]]:
    """The tenant's asks by people (an eval's or benchmark's are left out) a person should look at, newest first: refused, answered with
    confidence under `below`, rated down, routed to a person (`route` = human in the
    trace), or drawn for a spot check (`spot_check`: an answer among the `sample` share of
    trace ids, by the id's last two hex digits, a uniform draw fixed once the ask is made).
    Columns: trace_id, question, status, confidence, threshold (the ask's gate's),
    refusal_code (a refusal's), created_at, rating, comment, route, spot_check, and the review's resolution, detail and
    resolved_at (None while open)."""
    drawn = spot_check_bound(sample)
    sql = ("SELECT t.trace_id, t.question, t.status, t.confidence, t.created_at, f.rating, f.comment, "
           "t.route, " + _from_trace(GATE_THRESHOLD, "threshold") + ", "
           + _from_trace("$.answer.refusal_code", "refusal_code", when="t.status = 'refused'") + ", "
           "(t.status != 'refused' AND lower(substr(t.trace_id, -2)) < ?) AS spot_check, "
           "r.resolution, r.detail, r.resolved_at "
           "FROM traces t "
           "LEFT JOIN feedback f ON f.tenant = t.tenant AND f.trace_id = t.trace_id "
           "LEFT JOIN reviews r ON r.tenant = t.tenant AND r.trace_id = t.trace_id "
           "WHERE t.tenant = ? AND t.origin IS NULL AND (t.status = 'refused' OR f.rating = -1 "
           "OR (t.status != 'refused' AND coalesce(t.confidence, 0) < ?) "
           "OR t.route = 'human' OR (t.status != 'refused' AND lower(substr(t.trace_id, -2)) < ?))")
    if open_only:
        sql += " AND r.trace_id IS NULL"
    return _newest(settings, sql, [drawn, tenant, below, drawn], "t.created_at", None, limit)


def spot_check_bound(share: float) -> str:
    """The two hex digits a trace id's last two must sort under to be drawn for a spot check:
    a share of 0.05 draws ids ending 00-0c, 13 of 256 (trace ids are random hex, so the draw
    is uniform; hex digits sort as their values)."""
    drawn = round(max(0.0, min(1.0, share)) * 256)
    return "~" if drawn >= 256 else f"{drawn:02x}"


def purge_traces(settings: Settings, tenant: str, before: float) -> int:
    """Delete the tenant's asks made before `before` (a timestamp), with their ratings and
    review decisions, which are about those asks; returns how many asks went. Eval runs keep
    their own copies of their answers, and eval rows made from decisions stay in their sets.
    A trace is about 40 KB: at 1,000 asks a day the database grew by 40 MB a day with no way
    to let the old ones go (a scale pass)."""
    with connect(settings) as conn:
        ids = "SELECT trace_id FROM traces WHERE tenant=? AND created_at < ?"
        conn.execute(f"DELETE FROM feedback WHERE tenant=? AND trace_id IN ({ids})", (tenant, tenant, before))
        conn.execute(f"DELETE FROM reviews WHERE tenant=? AND trace_id IN ({ids})", (tenant, tenant, before))
        return conn.execute("DELETE FROM traces WHERE tenant=? AND created_at < ?", (tenant, before)).rowcount


def save_review(settings: Settings, tenant: str, trace_id: str, resolution: str,
                detail: dict[str, Any] | None = None) -> None:
    """Record the decision on one of the tenant's asks (a second decision replaces the first).
    A trace id of another tenant, or of no ask, raises LookupError."""
    with connect(settings) as conn:
        if conn.execute("SELECT 1 FROM traces WHERE trace_id=? AND tenant=?", (trace_id, tenant)).fetchone() is None:
            raise LookupError("That ask is not in this tenant's history; reload the queue.")
        conn.execute(
            "INSERT OR REPLACE INTO reviews (tenant, trace_id, resolution, detail, resolved_at) VALUES (?,?,?,?,?)",
            (tenant, trace_id, resolution, json.dumps(detail or {}, ensure_ascii=False), time.time()))


def reopen_review(settings: Settings, tenant: str, trace_id: str) -> None:
    with connect(settings) as conn:
        conn.execute("DELETE FROM reviews WHERE tenant=? AND trace_id=?", (tenant, trace_id))


def trace_stats_rows(settings: Settings, tenant: str, *, since: float | None = None,
                     limit: int = 50_000) -> list[dict[str, Any]]:
    """The light columns of the tenant's asks by people (no eval or benchmark asks; no trace JSON),
    newest first, for live figures:
    trace_id, question, created_at, status, confidence, total_ms, its rating if any, and for a
    refusal `asked_as` (what a follow-up was read as; None when asked as typed)."""
    return _newest(settings, "SELECT t.trace_id, t.question, t.created_at, t.status, t.confidence, t.total_ms, "
                             "f.rating, " + _from_trace("$.answer.asked_as", "asked_as", when="t.status = 'refused'")
                             + " FROM traces t LEFT JOIN feedback f ON f.tenant = t.tenant "
                             "AND f.trace_id = t.trace_id WHERE t.tenant = ? AND t.origin IS NULL", [tenant], "t.created_at",
                   since, limit)
