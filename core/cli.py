"""`python -m core.cli ...` — the stable command line (see docs/architecture.md).

User errors print one clear sentence to stderr and exit 2 (1 for failed ingest files);
no tracebacks for things the user can fix.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from core.config import Settings, load_settings
from core.disk import DiskFull, full_sentence, is_full
from core.index import VectorStoreUnavailable
from core.schema import page_label
from core.tenants import TenantError


class UserError(Exception):
    """Something the user can fix; printed as one sentence."""


# Control characters (C0, C1) and bidi overrides in a file name or a document's text: a
# newline split "one line per file" (a file named "a\nfailed  b.txt" printed a fake result
# line) and ESC starts terminal escape sequences. They are printed escaped ("\n", "\x1b").
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNPRINTABLE_IN_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # keeps \t, \n


def _shown(text: object, *, lines: bool = False) -> str:
    """`text` safe to print on a terminal: one line (unless `lines`), no escape sequences."""
    pattern = _UNPRINTABLE_IN_TEXT if lines else _UNPRINTABLE
    shown = pattern.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))
    # a file name that is not UTF-8 arrives with lone surrogates: shown as \udcff, not a crash
    return shown.encode("utf-8", "backslashreplace").decode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    garbled = _not_utf8(args)
    if garbled:
        print(f"error: the {garbled} argument is not valid UTF-8 text; retype it, or set the terminal's "
              "encoding to UTF-8.", file=sys.stderr)
        return 2
    try:
        settings = load_settings()
    except ValueError as exc:  # a GROUNDWORK_* variable that is no value of its setting
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        code = int(args.func(settings, args) or 0)
        sys.stdout.flush()  # a closed pipe fails here, inside the handlers, not at exit
        return code
    except (UserError, TenantError, ValueError, VectorStoreUnavailable, DiskFull) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, as other command-line tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # a file given on the command line: missing folder, a folder, no permission
        if is_full(exc):
            print(f"error: {full_sentence(settings)}", file=sys.stderr)
            return 2
        if exc.filename is None:
            raise  # not about a path: our bug, with its traceback
        print(f"error: cannot use {exc.filename} ({exc.strerror or exc}); check the path.", file=sys.stderr)
        return 2
    except Exception as exc:
        # SQLite's "database or disk is full" / "disk I/O error", Chroma's "(code: 13)": the
        # data folder's disk filled up (doctor and docs list printed a traceback)
        if not is_full(exc):
            raise
        print(f"error: {full_sentence(settings)}", file=sys.stderr)
        return 2


def _not_utf8(args: argparse.Namespace) -> str | None:
    """The name of a text argument holding bytes that are not UTF-8 (Python keeps them as
    lone surrogates, which fail later with a codec error). File paths may be any bytes."""
    for name, value in vars(args).items():
        if isinstance(value, str) and name != "func":
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return name.replace("_", "-")
    return None


def _tenant_command(subparsers: Any, name: str, func: Any, **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand that acts on one tenant (`--tenant T`), run by `func`."""
    parser = subparsers.add_parser(name, **kwargs)
    parser.add_argument("--tenant", required=True)
    parser.set_defaults(func=func)
    return parser


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m core.cli", description="Groundwork command line")
    sub = p.add_subparsers(dest="command", required=True)

    tenants = sub.add_parser("tenants", help="list, create or delete tenants")
    tsub = tenants.add_subparsers(dest="action", required=True)
    tsub.add_parser("list").set_defaults(func=cmd_tenants_list)
    create = tsub.add_parser("create")
    create.add_argument("name")
    create.set_defaults(func=cmd_tenants_create)
    delete = _tenant_command(tsub, "delete", cmd_tenants_delete,
                             help="delete a tenant and everything it holds (documents, asks, keys, roles, files)")
    delete.add_argument("--yes", action="store_true", help="really delete; without it, say what would go")

    ingest = _tenant_command(sub, "ingest", cmd_ingest, help="index files and folders for a tenant")
    ingest.add_argument("--by", default="cli", help="recorded as uploaded_by")
    ingest.add_argument("paths", nargs="+", type=Path)
    ingest.add_argument("--no-prepare", action="store_true",
                        help="skip preparing the answer vectors afterwards (questions then prepare what they read)")
    _tenant_command(sub, "prepare", cmd_prepare,
                    help="embed and store the answer step's sentence vectors, so questions embed only themselves")

    dsub = sub.add_parser("docs", help="list, delete or read again documents").add_subparsers(dest="action", required=True)
    _tenant_command(dsub, "list", cmd_docs_list).add_argument("--json", action="store_true")
    _tenant_command(dsub, "delete", cmd_docs_delete).add_argument("doc_id")
    # after an upgrade that reads files better, the kept originals read again in place
    reindex = _tenant_command(dsub, "reindex", cmd_docs_reindex)
    reindex.add_argument("doc_ids", nargs="*", metavar="DOC_ID")
    reindex.add_argument("--all", action="store_true", help="every ready document of the tenant")
    reindex.add_argument("--no-prepare", action="store_true", help="leave the answer vectors to the first asks")
    for action in ("exclude", "include"):  # a passage kept out of answers, or let back in
        _tenant_command(dsub, action, cmd_docs_exclude).add_argument("chunk_id")

    ask = _tenant_command(sub, "ask", cmd_ask, help="ask a question (or a batch)")
    ask.add_argument("question", nargs="?")
    ask.add_argument("--json", action="store_true")
    ask.add_argument("--batch", type=Path)
    ask.add_argument("--out", type=Path)
    ask.add_argument("--after", metavar="PREVIOUS", help="the question asked just before: a follow-up "
                     "(\"what about part-time staff?\") is read as the whole question it stands for")

    ssub = sub.add_parser("synonyms", help="a tenant's synonyms: list (with the words to teach), add, remove"
                          ).add_subparsers(dest="action", required=True)
    _tenant_command(ssub, "list", cmd_synonyms_list).add_argument("--json", action="store_true")
    _tenant_command(ssub, "add", cmd_synonyms_add).add_argument(
        "lines", nargs="+", help='"your word = the documents\' words"')
    _tenant_command(ssub, "remove", cmd_synonyms_remove).add_argument("phrases", nargs="+")

    ksub = sub.add_parser("keys", help="HTTP API keys of a tenant: create (prints the key once), list, revoke"
                          ).add_subparsers(dest="action", required=True)
    _tenant_command(ksub, "create", cmd_keys_create).add_argument("--label", default="")
    _tenant_command(ksub, "list", cmd_keys_list).add_argument("--json", action="store_true")
    _tenant_command(ksub, "revoke", cmd_keys_revoke).add_argument("key_id")

    usub = sub.add_parser("users", help="console accounts: add (or give a role in a tenant, in place of the one held there), list, remove"
                          ).add_subparsers(dest="action", required=True)
    add_user = _tenant_command(usub, "add", cmd_users_add)
    add_user.add_argument("name")
    add_user.add_argument("--role", required=True, choices=["expert", "admin", "manager"])
    add_user.add_argument("--password-stdin", action="store_true",
                          help="read the password from standard input (else it is asked for, unless the user exists)")
    add_user.add_argument("--organisation-only", action="store_true",
                          help="no password: the user (an e-mail) signs in only through the organisation's "
                               "OIDC provider ([auth] in .streamlit/secrets.toml)")
    usub.add_parser("list").set_defaults(func=cmd_users_list)
    remove_user = usub.add_parser("remove")
    remove_user.add_argument("name")
    remove_user.add_argument("--tenant", help="remove only the role in this tenant")
    remove_user.set_defaults(func=cmd_users_remove)

    trsub = sub.add_parser("traces", help="a tenant's stored asks: purge the old ones"
                           ).add_subparsers(dest="action", required=True)
    purge = _tenant_command(trsub, "purge", cmd_traces_purge,
                            help="delete the asks (with their ratings and review decisions) older than N days")
    purge.add_argument("--older-than", type=float, required=True, metavar="DAYS")

    doctor = _tenant_command(sub, "doctor", cmd_doctor,
                             help="check that the registry, vectors, BM25 index and kept files agree")
    doctor.add_argument("--repair", action="store_true", help="make them agree (the registry is the truth)")

    verify = sub.add_parser("verify", help="check claims against premises")
    verify.add_argument("--batch", type=Path, required=True)
    verify.add_argument("--out", type=Path, required=True)
    verify.add_argument("--judge", choices=["deterministic", "llm"], default="deterministic",
                        help="llm: the deterministic checks, then the configured model as judge")
    verify.set_defaults(func=cmd_verify)
    return p


def cmd_traces_purge(settings: Settings, args: argparse.Namespace) -> int:
    from core import store

    _require_tenant(settings, args.tenant)
    if not args.older_than >= 0 or args.older_than == float("inf"):
        raise UserError("--older-than takes a number of days, 0 or more.")
    purged = store.purge_traces(settings, args.tenant, time.time() - args.older_than * 86400)
    print(f"purged {purged} ask{'' if purged == 1 else 's'} older than {args.older_than:g} days from {args.tenant}")
    return 0


# ---- synonyms ----------------------------------------------------------------------------


def _stored_synonyms(settings: Settings, tenant: str) -> dict[str, str]:
    from core.config import load_tenant_overrides

    _require_tenant(settings, tenant)
    return load_tenant_overrides(settings, tenant).get("synonyms", {})


def cmd_synonyms_list(settings: Settings, args: argparse.Namespace) -> int:
    from core.trace import unknown_words

    synonyms = _stored_synonyms(settings, args.tenant)
    to_teach = unknown_words(settings, args.tenant)
    if args.json:
        print(json.dumps({"synonyms": synonyms, "to_teach": to_teach}, ensure_ascii=False, indent=2))
        return 0
    for phrase, words in sorted(synonyms.items()):
        print(_shown(f"{phrase} = {words}"))
    if not synonyms:
        print("no synonyms")
    if to_teach:
        print("\nwords users asked about that the documents never use (times asked):")
        for entry in to_teach:
            print(_shown(f"  {entry['word']}  ({entry['asked']})"))
    return 0


def _save_synonyms(settings: Settings, tenant: str, synonyms: dict[str, str]) -> None:
    from core.config import save_tenant_overrides

    save_tenant_overrides(settings, tenant, {"synonyms": synonyms})
    print(f"{len(synonyms)} synonym{'s' if len(synonyms) != 1 else ''} for {_shown(tenant)}")


def cmd_synonyms_add(settings: Settings, args: argparse.Namespace) -> int:
    from core import index
    from core.config import parse_synonym_lines
    from core.expand import unused_targets

    stored = _stored_synonyms(settings, args.tenant)
    added = parse_synonym_lines("\n".join(args.lines))
    _save_synonyms(settings, args.tenant, {**stored, **added})
    # saved all the same (the documents may come later), but the admin should know now
    for phrase in unused_targets(added, index.lexical_index(settings, args.tenant)):
        print(_shown(f"warning: the documents never use '{added[phrase]}' (for '{phrase}'): the synonym changes "
                     "nothing until they do"), file=sys.stderr)
    return 0


def cmd_synonyms_remove(settings: Settings, args: argparse.Namespace) -> int:
    stored = _stored_synonyms(settings, args.tenant)
    gone = [p for p in args.phrases if " ".join(p.split()).lower() not in stored]
    if gone:
        raise UserError(f"{_shown(args.tenant)} has no synonym '{_shown(gone[0])}'; "
                        "`synonyms list` shows the ones it has.")
    wanted = {" ".join(p.split()).lower() for p in args.phrases}
    _save_synonyms(settings, args.tenant, {k: v for k, v in stored.items() if k not in wanted})
    return 0


# ---- tenants -----------------------------------------------------------------------------


def cmd_tenants_list(settings: Settings, args: argparse.Namespace) -> int:
    from core import store

    for t in store.list_tenants(settings):
        print(f"{t['id']}\t{t['collection']}")
    for tenant in store.tenants_being_deleted(settings):  # on stderr: stdout stays one tenant a line
        print(f"note: tenant {_shown(tenant)} is being deleted (a delete stopped midway); finish it with "
              f"`tenants delete --tenant {_shown(tenant)} --yes`", file=sys.stderr)
    return 0


def cmd_tenants_delete(settings: Settings, args: argparse.Namespace) -> int:
    from core import tenant_deletion

    try:
        resumed = tenant_deletion.check_deletable(settings, args.tenant)
    except LookupError as exc:
        raise UserError(str(exc)) from None
    held = tenant_deletion.footprint(settings, args.tenant).sentence()
    if not args.yes:
        what = "finish deleting" if resumed else "delete"
        raise UserError(f"This would {what} tenant {_shown(args.tenant)} and everything it holds ({held}); "
                        "add --yes to do it.")
    # a write of the tenant that is running (an upload indexing) finishes first: said, as the
    # wait can be minutes and a silent command looked hung (QA pass)
    print(f"deleting tenant {_shown(args.tenant)} (a write of it that is running finishes first)…",
          file=sys.stderr, flush=True)
    done = tenant_deletion.delete_tenant(settings, args.tenant)
    print(f"{'finished deleting' if done.resumed else 'deleted'} tenant {_shown(done.tenant)}: "
          f"{done.footprint.sentence()}")
    return 0


def _new_tenant_ok(settings: Settings, tenant: str) -> None:
    """A tenant the CLI is about to create follows the console's rules for new ids (no path
    separator, markup or control character, no case twin of an existing id); existing
    tenants keep working whatever an older version let through."""
    from core import store
    from core.tenants import EVAL_TENANT_PREFIX, TenantBeingDeleted, is_eval_tenant, validate_new_tenant

    if tenant in store.tenants_being_deleted(settings):  # said before "created tenant", not after
        raise TenantBeingDeleted(tenant)
    existing = [t["id"] for t in store.list_tenants(settings)]
    if tenant not in existing:
        validate_new_tenant(tenant, existing)
        if is_eval_tenant(tenant):  # as the console says: the harness empties these
            raise TenantError(f"Tenant ids starting with '{EVAL_TENANT_PREFIX}' are reserved for the eval "
                              "harness; choose another id.")


def cmd_tenants_create(settings: Settings, args: argparse.Namespace) -> int:
    from core import store
    from core.documents import ensure_tenant
    from core.tenants import collection_name

    _new_tenant_ok(settings, args.name)
    existed = store.tenant_exists(settings, args.name)
    ensure_tenant(settings, args.name)
    print(f"{'exists already:' if existed else 'created'} {args.name} ({collection_name(args.name)})")
    return 0


# ---- documents ---------------------------------------------------------------------------


PROGRESS_AFTER_S = 5.0  # a file taking longer than this gets progress lines on stderr
PROGRESS_EVERY_S = 10.0  # at most this often per stage (embedding a big file takes minutes)
_STAGE_WORDS = {"parse": "reading", "chunk": "chunking", "embed": "embedding", "index": "indexing"}


def _progress_printer(name: str) -> Any:
    """A progress callback for one file: silent for quick files, so stdout stays one line a
    file and stderr shows only that a long file is still moving."""
    import time

    started = time.monotonic()
    last: dict[str, Any] = {"stage": None, "at": 0.0}

    def report(stage: str, fraction: float) -> None:
        now = time.monotonic()
        if stage not in _STAGE_WORDS or now - started < PROGRESS_AFTER_S:
            return
        if stage == last["stage"] and now - last["at"] < PROGRESS_EVERY_S:
            return
        last.update(stage=stage, at=now)
        print(f"  {_shown(name)}: {_STAGE_WORDS[stage]} {fraction:.0%} ({now - started:.0f}s)", file=sys.stderr,
              flush=True)

    return report


def cmd_ingest(settings: Settings, args: argparse.Namespace) -> int:
    from core.documents import (
        document_names,
        ensure_tenant,
        exclusions_note,
        ingest_files,
        skipped_in_folders,
    )
    from core.schema import SUPPORTED_FORMATS

    missing = [str(p) for p in args.paths if not Path(p).exists()]
    if missing:
        raise UserError(f"No such file or folder: {missing[0]}.")
    _new_tenant_ok(settings, args.tenant)
    from core import store

    if not store.tenant_exists(settings, args.tenant):
        # a typo of a tenant's id made a new one without a word (a reliability pass)
        print(f"created tenant {_shown(args.tenant)} (it did not exist; `tenants list` shows the others)",
              file=sys.stderr, flush=True)
    ensure_tenant(settings, args.tenant)
    # each file of the run with the name it is indexed under (a folder's files of one name:
    # each by its path in the folder); the keys are the files, in order (`iter_files`)
    names = document_names(args.paths)
    files = list(names)
    for path, why in skipped_in_folders(args.paths):  # stderr: stdout stays one line an ingested file
        print(f"skipped    {_shown(str(path))}: {why}", file=sys.stderr, flush=True)
    if not files:
        raise UserError(f"No supported files found ({SUPPORTED_FORMATS}).")
    failed = 0
    ready: list[str] = []  # documents indexed now: their answer vectors are prepared after
    for path, result in ingest_files(settings, args.tenant, files, uploaded_by=args.by, names=names,
                                     progress_for=lambda p: _progress_printer(names.get(p, p.name))):
        shown_as = names.get(path, path.name)
        if result.status == "ready" and result.doc_id:
            ready.append(result.doc_id)
        if result.status == "failed":
            failed += 1
            print(f"failed     {_shown(shown_as)}: {_shown(result.error)}", flush=True)
            continue
        print(f"{result.status:<10} {_shown(shown_as)}  pages={_pages(result)} chunks={result.chunks} "
              f"{result.seconds:.2f}s{_ingest_note(result, shown_as)}", flush=True)
        for warning in result.warnings:  # stderr: stdout stays one line a file
            print(f"  {_shown(shown_as)}: {_shown(warning)}", file=sys.stderr, flush=True)
        carried = exclusions_note(result.exclusions_kept, result.exclusions_dropped)
        if carried:
            print(f"  {_shown(shown_as)}: {_shown(carried)}", file=sys.stderr, flush=True)
    if ready and not args.no_prepare:
        _prepare(settings, args.tenant, ready, sys.stderr)  # stdout stays one line a file
    if failed:
        print(f"error: {failed} of {len(files)} file(s) failed.", file=sys.stderr)
    return 1 if failed else 0


def _pages(result: Any) -> str:
    """An ingest line's pages: "-" for a format without pages, "2/3" when one page's text
    is not indexed."""
    if result.pages is None:
        return "-"
    if result.pages and result.pages_left_out:
        return f"{result.pages - result.pages_left_out}/{result.pages}"
    return str(result.pages)


def _ingest_note(result: Any, name: str) -> str:
    """What an ingest line says after its numbers: the version replaced, or the document
    of another name that holds the same bytes."""
    other = result.same_as if result.same_as and result.same_as != name else None
    if result.status == "unchanged":
        return f"  (same content as {_shown(other)}, already indexed)" if other else ""
    said = ([f"replaced {result.replaced}"] if result.replaced else []) + (
        [f"same content as {_shown(other)}"] if other else [])
    return f"  ({'; '.join(said)})" if said else ""


def cmd_prepare(settings: Settings, args: argparse.Namespace) -> int:
    from core import store

    if not store.tenant_exists(settings, args.tenant):
        raise UserError(f"There is no tenant {args.tenant!r}; `tenants list` shows them.")
    _prepare(settings, args.tenant, None, sys.stdout)
    return 0


def _prepare(settings: Settings, tenant: str, doc_ids: list[str] | None, out: Any) -> None:
    """Prepare the answer vectors (core/answer/prepare.py) with a progress line on stderr."""
    import time

    from core.answer.prepare import prepare_answer_vectors
    from core.answer_vectors import preparing
    from core.models import get_embedder

    last = {"at": time.monotonic()}

    def report(done: int, total: int) -> None:
        if time.monotonic() - last["at"] >= PROGRESS_EVERY_S:
            last["at"] = time.monotonic()
            print(f"  preparing answers: {done} of {total} passages", file=sys.stderr, flush=True)

    def waiting() -> None:
        print(f"  another preparation of {_shown(tenant)}'s answers is running; waiting for it to finish",
              file=sys.stderr, flush=True)

    # one preparation at a time: the one that waited then embeds only what is still missing
    with preparing(settings, tenant, on_wait=waiting):
        done = prepare_answer_vectors(settings, tenant, get_embedder(num_threads=settings.embed_threads), doc_ids,
                                      progress=report)
    print(f"prepared   {done.units} sentence vectors ({done.embedded} new) {done.seconds:.2f}s", file=out, flush=True)


def cmd_doctor(settings: Settings, args: argparse.Namespace) -> int:
    """Compare the tenant's four stores; with --repair make them follow the registry.
    Exit 0 when they agree (after the repair), 1 when they do not."""
    from core import doctor, index, journal, store
    from core.tenants import TenantBeingDeleted

    unfinished = doctor.unfinished_deletions(settings)  # invisible to every listing: said here
    if args.tenant in unfinished:  # a delete stopped midway: what is left of it, and what finishes it
        print(_shown("left: " + unfinished[args.tenant]))
        raise UserError(str(TenantBeingDeleted(args.tenant)))
    if not store.tenant_exists(settings, args.tenant):
        raise UserError(f"There is no tenant {args.tenant!r}; `tenants list` shows them.")
    if args.repair:
        with index.tenant_lock(settings, args.tenant):
            found = doctor.repair(settings, args.tenant)
            journal.end(settings, args.tenant)
        after = doctor.check(settings, args.tenant)
    else:
        found = after = doctor.check(settings, args.tenant)
    for line in found.lines():
        print(_shown(("repaired: " if args.repair else "") + line))
    for line in [*found.notes(), *unfinished.values()]:
        print(_shown("note: " + line))
    if found.consistent and not found.missing_files:
        print(f"ok: the registry, vectors, BM25 index and kept files of {_shown(args.tenant)} agree.")
    elif not after.consistent:
        # what to do next: a reliability pass ran the check twice after a killed delete and
        # read the same list, with no word of the write left half-done or of --repair
        record = journal.pending(settings, args.tenant)
        repair = f"`python -m core.cli doctor --tenant {_shown(args.tenant)} --repair`"
        print(f"fix: an interrupted {record.get('op') or 'write'} left these; the next ask or upload finishes it, "
              f"or {repair} now." if record and not args.repair else
              f"fix: {repair} makes the vectors, BM25 index and kept files follow the registry.")
    return 0 if after.consistent else 1


def cmd_docs_list(settings: Settings, args: argparse.Namespace) -> int:
    from core.documents import list_documents
    from core.store import document_notes
    from core.withdrawn import out_of_force

    _require_tenant(settings, args.tenant)  # a typo must not look like an empty tenant
    docs = list_documents(settings, args.tenant)
    # an old edition kept beside the new one: said here as on the Documents page (QA pass)
    withdrawn = out_of_force(settings, args.tenant, {d["doc_id"] for d in docs if d["status"] == "ready"})
    if args.json:
        keep = ("doc_id", "file_name", "sha256", "size", "pages", "chunks", "status", "error",
                "uploaded_at", "uploaded_by", "format", "lang")
        print(json.dumps([{"tenant": args.tenant, **{k: d.get(k) for k in keep}, "notes": document_notes(d),
                           "out_of_force": withdrawn.get(d["doc_id"])} for d in docs], ensure_ascii=False, indent=2))
        return 0
    for d in docs:
        pages = "-" if d["pages"] is None else d["pages"]
        extra = f"  {_shown(d['error'])}" if d["error"] else ""
        print(f"{d['doc_id']}  {d['status']:<8} pages={pages:<4} chunks={d['chunks']:<4} {_shown(d['file_name'])}{extra}")
        if d["doc_id"] in withdrawn:
            print(f"    out of force: {_shown(withdrawn[d['doc_id']])}")
        for note in document_notes(d):  # what indexing noted: pages read by OCR, left out, skipped
            print(f"    note: {_shown(note)}")
    return 0


def cmd_docs_delete(settings: Settings, args: argparse.Namespace) -> int:
    from core.documents import delete_document

    if not delete_document(settings, args.tenant, args.doc_id):
        raise UserError(f"No document {args.doc_id} in tenant {args.tenant}; see `docs list`.")
    print(f"deleted {args.doc_id}")
    return 0


def cmd_docs_reindex(settings: Settings, args: argparse.Namespace) -> int:
    """Read documents' kept originals again (the Documents page's re-index, many at once):
    one line a document, as `ingest` prints; exit 1 when any failed (it stays as it was)."""
    from core import store
    from core.documents import reindex_document

    if not store.tenant_exists(settings, args.tenant):
        raise UserError(f"There is no tenant {args.tenant!r}; `tenants list` shows them.")
    if bool(args.doc_ids) == args.all:
        raise UserError("Name the documents to read again (DOC_ID ..., see `docs list`) or give --all, not both.")
    docs = {d["doc_id"]: d for d in store.list_documents(settings, args.tenant)}
    unknown = [d for d in args.doc_ids if d not in docs]
    if unknown:
        raise UserError(f"No document {unknown[0]} in tenant {args.tenant}; see `docs list`.")
    wanted = args.doc_ids or [d for d, doc in docs.items() if doc["status"] == "ready"]
    failed, ready = 0, []
    for doc_id in wanted:
        name = docs[doc_id]["file_name"]
        result = reindex_document(settings, args.tenant, doc_id, progress=_progress_printer(name))
        if result.status == "failed":
            failed += 1
            print(f"failed     {_shown(name)}: {_shown(result.error)} (it stays as it was)", flush=True)
            continue
        ready.append(result.doc_id)
        print(f"reindexed  {_shown(name)}  pages={_pages(result)} chunks={result.chunks} {result.seconds:.2f}s",
              flush=True)
    if ready and not args.no_prepare:
        _prepare(settings, args.tenant, ready, sys.stderr)
    if failed:
        print(f"error: {failed} of {len(wanted)} document(s) failed.", file=sys.stderr)
    return 1 if failed else 0


def cmd_docs_exclude(settings: Settings, args: argparse.Namespace) -> int:
    from core.documents import exclude_chunk

    try:
        exclude_chunk(settings, args.tenant, args.chunk_id, excluded=args.action == "exclude")
    except LookupError as exc:
        raise UserError(str(exc)) from None
    print(f"{args.action}d {args.chunk_id}")
    return 0


# ---- console accounts ----------------------------------------------------------------------


def cmd_users_add(settings: Settings, args: argparse.Namespace) -> int:
    import getpass

    from core import users

    existing = next((u for u in users.list_users(settings) if u["username"] == args.name.lower()), None)
    # one role per tenant: a new one takes the old one's place, and the line says so
    replaced = (existing or {}).get("roles", {}).get(args.tenant)
    if args.password_stdin:
        password: str | None = sys.stdin.readline().rstrip("\n")
    elif args.organisation_only or existing:
        password = None  # an existing user gets one more role; the password stays
    elif not sys.stdin.isatty():  # getpass fell back to a pipe and failed with a traceback
        raise UserError("No terminal to ask the password on; pipe it in with --password-stdin.")
    else:
        try:
            password = getpass.getpass(f"Password for {args.name}: ")
        except (EOFError, KeyboardInterrupt):
            raise UserError("No password given; the user was not added.") from None
    try:
        outcome = users.add_user(settings, args.name, password, args.tenant, args.role,
                                 organisation_only=args.organisation_only)
    except (ValueError, LookupError) as exc:
        raise UserError(str(exc)) from None
    was = f" (was {replaced}; a user holds one role in a tenant)" if replaced and replaced != args.role else ""
    print(f"{outcome} user {args.name.lower()}: {args.role} of {args.tenant}{was}")
    return 0


def cmd_users_list(settings: Settings, args: argparse.Namespace) -> int:
    from core import users

    rows = users.list_users(settings)
    for u in rows:
        roles = ", ".join(f"{role} of {tenant}" for tenant, role in sorted(u["roles"].items())) or "no tenant"
        print(f"{u['username']}\t{roles}")
    if not rows:
        print("no users: the console runs in single-user mode (no sign-in); add one to turn sign-in on")
    return 0


def cmd_users_remove(settings: Settings, args: argparse.Namespace) -> int:
    from core import users

    if not users.remove_user(settings, args.name, args.tenant):
        raise UserError(f"No user {args.name}" + (f" with a role in {args.tenant}." if args.tenant else "."))
    print(f"removed {args.name}" + (f" from {args.tenant}" if args.tenant else ""))
    return 0


# ---- API keys ----------------------------------------------------------------------------


def cmd_keys_create(settings: Settings, args: argparse.Namespace) -> int:
    from core import keys

    try:
        key_id, key = keys.create_key(settings, args.tenant, args.label)
    except LookupError as exc:
        raise UserError(str(exc)) from None
    print(f"created key {key_id} for tenant {args.tenant}; it is shown only now, keep it secret:")
    print(key)  # alone on the last line, for scripts
    return 0


def cmd_keys_list(settings: Settings, args: argparse.Namespace) -> int:
    from core import keys

    _require_tenant(settings, args.tenant)
    rows = keys.list_keys(settings, args.tenant)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    for r in rows:
        state = "revoked" if r["revoked_at"] else "live"
        used = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["last_used_at"])) if r["last_used_at"] else "never"
        print(f"{r['key_id']}\t{state}\tlast used {used}\t{r['label'] or ''}")
    if not rows:
        print(f"no keys for tenant {args.tenant}; create one with `keys create --tenant {args.tenant}`")
    return 0


def cmd_keys_revoke(settings: Settings, args: argparse.Namespace) -> int:
    from core import keys

    if not keys.revoke_key(settings, args.tenant, args.key_id):
        raise UserError(f"No live key {args.key_id} for tenant {args.tenant}; see `keys list`.")
    print(f"revoked {args.key_id}")
    return 0


# ---- ask and verify ----------------------------------------------------------------------


def _row_problem(line: str, required: tuple[str, ...]) -> tuple[dict[str, Any] | None, str | None]:
    """The row a JSONL line holds, or what is wrong with it (said after "FILE:N")."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON ({exc.msg})."
    if not isinstance(row, dict):
        return None, "is not a JSON object; write one {...} per line."
    for key in required:
        if key not in row:
            return None, f"has no '{key}' field."
        if key != "id" and not isinstance(row[key], str):
            return None, f"has a '{key}' that is not text; write it in quotes."
        if key != "id" and not row[key].strip():
            return None, f"has an empty '{key}'; give it text or remove the row."
        if key != "id" and not _encodable(row[key]):
            return None, (f"has a '{key}' with characters that are not text (a lone surrogate such as \\ud800); "
                          "fix it or remove the row.")
    if isinstance(row.get("previous"), str) and not _encodable(row["previous"]):
        return None, "has a 'previous' with characters that are not text (a lone surrogate such as \\ud800)."
    if row.get("previous") is not None and not isinstance(row["previous"], str):
        # a number here reached the pipeline and came back as "TypeError: 'int' object ..." (QA pass)
        return None, "has a 'previous' that is not text; write the question before it in quotes, or leave it out."
    return row, None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a JSON "\ud800" reached the output file and failed it mid-run
        return False
    return True


BAD_LINES_SHOWN = 5  # a file of many bad lines names the first few and counts the rest


def _read_batch(path: Path, out: Path | str, required: tuple[str, ...]) -> list[dict[str, Any]]:
    """`_read_jsonl`, refused up front when the output would overwrite it (a reliability pass
    wrote the answers over the questions)."""
    if Path(out).resolve() == Path(path).resolve():
        raise UserError(f"--out is the batch file itself ({path}); write to another file, or the questions are lost.")
    return _read_jsonl(path, required)


def _read_jsonl(path: Path, required: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every row of a JSONL file, checked before the first is used. Every bad line is named
    at once (up to BAD_LINES_SHOWN): one told at a time took a run per mistake (QA pass)."""
    if not path.is_file():
        raise UserError(f"No such file: {path}." if not path.exists() else f"{path} is a folder; give a JSONL file.")
    try:
        text = path.read_text(encoding="utf-8-sig")  # Notepad's UTF-8 starts with a BOM
    except UnicodeDecodeError:
        raise UserError(f"{path} is not UTF-8 text; save it as UTF-8 JSONL.") from None
    rows, problems = [], []
    lines_of_id: dict[str, list[int]] = {}  # an id (as JSON: any value, hashable or not) -> its lines
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row, problem = _row_problem(line, required)
        if problem:
            problems.append(f"{path}:{n} {problem}")
            continue
        if "id" in required:
            lines_of_id.setdefault(json.dumps(row["id"], ensure_ascii=False, sort_keys=True), []).append(n)
        rows.append(row)
    # output rows are told apart by their id alone: a repeated id is refused before any row runs
    problems += [f"{path} has the id {shown} on lines {', '.join(map(str, lines[:-1]))} and {lines[-1]}; "
                 "give each row its own id." for shown, lines in sorted(lines_of_id.items(), key=lambda kv: kv[1])
                 if len(lines) > 1]
    if len(problems) == 1:
        raise UserError(problems[0])
    if problems:
        more = len(problems) - BAD_LINES_SHOWN
        raise UserError(f"{path} has {len(problems)} problems; nothing was run:\n  "
                        + "\n  ".join(problems[:BAD_LINES_SHOWN]) + (f"\n  ... and {more} more." if more > 0 else ""))
    return rows


def _require_tenant(settings: Settings, tenant: str) -> None:
    """A typo in the tenant name must not look like a refusal ("no passages to search")."""
    from core import store

    if not store.tenant_exists(settings, tenant):
        raise UserError(f"No tenant named '{tenant}'; see `tenants list`, or ingest documents into it first.")


def cmd_ask(settings: Settings, args: argparse.Namespace) -> int:
    from core.pipeline import ask
    from core.trace import ORIGIN_BATCH

    _require_tenant(settings, args.tenant)
    if args.batch:
        if not args.out:
            raise UserError("--batch needs --out FILE.")
        rows = _read_batch(args.batch, args.out, ("id", "question"))  # every row checked before the first ask
        failed = 0
        with open(args.out, "w", encoding="utf-8") as out:
            for row in rows:
                try:
                    # a row may name the question asked before it ("previous"): a chat follow-up
                    record = {"id": row["id"], **ask(settings, args.tenant, row["question"], previous=row.get("previous"),
                                                     origin=ORIGIN_BATCH).to_dict()}
                except Exception as exc:  # one bad row must not lose the answers of the others
                    failed += 1
                    record = {"id": row["id"], "error": f"{type(exc).__name__}: {exc}", "route": "error"}
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        print(f"wrote {len(rows)} answers to {args.out}" + (f"; {failed} failed (see their 'error')" if failed else ""))
        return 1 if failed else 0
    if not args.question:
        raise UserError("Give a question, or --batch FILE --out FILE.")
    answer = ask(settings, args.tenant, args.question, previous=args.after)
    if args.json:
        print(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2))
        return 0
    model = f" ({answer.model})" if answer.model else ""
    print(f"[{answer.status}] confidence={answer.confidence:.2f} factuality={answer.factuality:.0f}% "
          f"provider={answer.provider}{model}")
    if answer.asked_as:
        print(f"  read as: {_shown(answer.asked_as)}")
    print(_shown(answer.answer, lines=True))
    if answer.refusal_reason:
        print(f"  why: {_shown(answer.refusal_reason)}")
    if answer.note:  # what to read the answer with
        print(f"  note: {_shown(answer.note)}")
    for c in answer.citations:
        page = f" {page_label(c.page, c.source)}" if c.page else ""
        section = f" § {_shown(c.section)}" if c.section else ""  # a CSV has none: no "§ :"
        print(f"  [{c.index}] {_shown(c.source)}{page}{section}: “{_shown(c.quote)}”")
    for c in answer.closest:
        page = f" {page_label(c.get('page'), c.get('source') or '')}" if c.get("page") else ""
        near = f"“{c['sentence']}”" if c.get("sentence") else c.get("snippet")
        never = " (its text addressed to an AI model is never quoted)" if c.get("left_out") else ""
        print(f"  closest: {_shown(c.get('source'))}{page}{never}: {_shown(near)}")
    return 0


def cmd_verify(settings: Settings, args: argparse.Namespace) -> int:
    from core.verify import verify_pair

    judge = None
    if args.judge == "llm":
        from core.llm import LLMClient, LLMUnavailable
        from core.llm_judge import CheckedJudge, LLMJudge

        try:
            judge = CheckedJudge(LLMJudge(LLMClient(settings), settings.judge_threshold))
        except LLMUnavailable as exc:
            raise UserError(str(exc)) from None
    rows = _read_batch(args.batch, args.out, ("id", "premise", "claim"))
    with open(args.out, "w", encoding="utf-8") as out:
        for row in rows:
            verdict = verify_pair(row["premise"], row["claim"], judge)
            out.write(json.dumps({"id": row["id"], "verdict": verdict.verdict, "score": verdict.score,
                                  "reason": verdict.reason}, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} verdicts to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
