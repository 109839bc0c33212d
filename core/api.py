"""The HTTP API: the CLI's use cases over HTTP, for integrations (FastAPI, run by uvicorn).

    python -m core.api --host 127.0.0.1 --port 8765

Every request carries `Authorization: Bearer <key>`; the key (core/keys.py) decides the
tenant, so no request names one and none can reach another tenant's data. A request that
also sends `X-Groundwork-Tenant` naming another tenant is refused (403). Bodies are capped
before they are read (JSON 64 KiB, uploads the console's file limit). The schema is at
`/openapi.json`, the docs at `/docs`. The console does not need this service running.

An upload is accepted (202) and indexed in the background (core/ingest_jobs.py), polled at
`/v1/ingest-jobs/{job_id}`; `?wait=true` indexes it within the request as before. Each
request writes one access line (core/access_log.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, File, Header, HTTPException, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, field_validator
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException as StarletteHTTPException

from core import abandoned_deletions, access_log, eval_jobs, ingest_jobs, keys, store
from core.config import MAX_QUESTION_CHARS, Settings, load_settings
from core.eval_rows import EVAL_SPLITS
from core.schema import SUPPORTED_FORMATS
from core.tenants import TenantBeingDeleted

MAX_JSON_BYTES = 64 * 1024
MAX_VERIFY_PAIRS = 100


class AskBody(BaseModel):
    # the pipeline's own limit, so the published schema says what the server accepts; the
    # pattern (published, checked by the validator below) says blanks alone are no question
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, json_schema_extra={"pattern": r"\S"},
                          description="The question, with at least one character that is not a space; "
                                      "an empty or blank one is refused (422).")
    previous: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS,
                                 description="The question asked just before in the same chat (follow-ups).")

    @field_validator("question", mode="before")
    @classmethod
    def _not_blank(cls, question: Any) -> Any:
        # "" got pydantic's string_too_short and "  " the pipeline's sentence: one sentence
        # for both, as a field error like every other (422); runs before min_length
        from core.pipeline import EMPTY_QUESTION, is_empty_question

        if isinstance(question, str) and is_empty_question(question):
            raise PydanticCustomError("empty_question", EMPTY_QUESTION)
        return question


class Pair(BaseModel):
    id: str | None = None
    premise: str = Field(min_length=1, max_length=20000)
    claim: str = Field(min_length=1, max_length=4000)


class VerifyBody(BaseModel):
    pairs: list[Pair] = Field(min_length=1, max_length=MAX_VERIFY_PAIRS)


class EvalRunBody(BaseModel):
    set: str = Field(min_length=1, max_length=200, description="An eval set's name (GET /v1/eval-sets).")
    split: str = Field(default="all", description="all, or the set's rows of one split (calib, test).")
    ingest: bool = Field(default=False, description="Build fresh eval tenants from the set's corpus and ask "
                                                    "them; without it every question is asked of this tenant.")
    limit: int | None = Field(default=None, ge=1, le=100000, description="Only the first N questions.")

    @field_validator("split")
    @classmethod
    def _known_split(cls, split: str) -> str:
        # refused here (422), not by the background run's own argument check, whose
        # message only its log would hold
        if split not in ("all", *EVAL_SPLITS):
            raise ValueError(f"The split must be one of all, {', '.join(EVAL_SPLITS)}")
        return split


# what a client sees of a job record (not the paths or process ids on the server)
JOB_FIELDS = ("job_id", "set", "split", "ingest", "limit", "status", "phase", "done", "total", "current",
              "started_at", "finished_at", "run_id", "error")


# where the server keeps its data and which services it talks to are the operator's, not
# a key holder's: a stored report carries them for the console, the API leaves them out
_SERVER_INTERNALS = ("data_dir", "chroma_url", "otel_endpoint", "llm_base_url", "llm_fallback_base_url")


def _without_server_internals(report: dict[str, Any]) -> dict[str, Any]:
    out = dict(report)
    out["settings"] = {k: v for k, v in (report.get("settings") or {}).items() if k not in _SERVER_INTERNALS}
    if out.get("set_path"):
        out["set_path"] = out["set_path"].replace("\\", "/").rsplit("/", 1)[-1]
    return out


def _job_view(record: dict[str, Any] | None, job_id: str | None = None) -> dict[str, Any]:
    """What a client sees of a job; 404 when the tenant has no such job (None)."""
    if record is None:
        raise HTTPException(404, f"No eval job {job_id} for this tenant.")
    out = {k: record.get(k) for k in JOB_FIELDS}
    if record.get("status") == eval_jobs.RUNNING:
        out["progress"] = {"fraction": round(eval_jobs.fraction(record), 4), "line": eval_jobs.describe(record)}
    return out


# what a client sees of an upload job (not where its bytes wait, nor the process running it)
INGEST_JOB_FIELDS = ("job_id", "file_name", "size", "phase", "doc_id", "error", "result", "created_at",
                     "started_at", "finished_at", "cancel_requested_at")


def _ingest_job_view(record: dict[str, Any] | None, job_id: str | None = None) -> dict[str, Any]:
    """What a client sees of an upload job; 404 when the tenant has no such job (None)."""
    if record is None:
        raise HTTPException(404, f"No ingest job {job_id} for this tenant.")
    out = {k: record.get(k) for k in INGEST_JOB_FIELDS}
    out["status_url"] = f"/v1/ingest-jobs/{record['job_id']}"
    if record.get("phase") in ingest_jobs.RUNNING:
        out["progress"] = {"stage": record.get("stage") or "queued", "fraction": record.get("fraction") or 0.0}
    return out


class BodyLimit:
    """ASGI middleware: a body over its route's limit gets 413 before the app reads it
    (Content-Length checked up front; a chunked body read up to the limit, then replayed)."""

    def __init__(self, app: Any, upload_bytes: int) -> None:
        self.app, self.upload_bytes = app, upload_bytes

    async def __call__(self, scope: dict, receive: Callable[[], Awaitable[dict]], send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.upload_bytes if scope["path"].rstrip("/") == "/v1/documents" else MAX_JSON_BYTES
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await _too_large(send, limit)
            return
        if length is not None:
            await self.app(scope, receive, send)
            return
        # chunked: read it up to the limit first (an app that fails mid-read says 400, not 413)
        messages, seen = [], 0
        while True:
            message = await receive()
            messages.append(message)
            seen += len(message.get("body", b""))
            if seen > limit:
                await _too_large(send, limit)
                return
            if message["type"] != "http.request" or not message.get("more_body"):
                break
        replay = iter(messages)

        async def replayed() -> dict:
            return next(replay, None) or await receive()

        await self.app(scope, replayed, send)


def _header_text(value: str) -> str:
    """A header as its sender wrote it: HTTP hands header bytes over as Latin-1, and a
    tenant id in Cyrillic arrives as UTF-8 bytes read that way."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value


_FIELD_WORDS = {"previous": "previous question"}  # a field whose name alone reads oddly in a sentence


def _field_name(loc: Any) -> str:
    """A field's place in the body as a client wrote it: "question", "pairs[0].claim"."""
    name = ""
    for part in tuple(loc or ())[1:]:  # loc[0] is "body"
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return _FIELD_WORDS.get(name, name or "body")


def _sentence(error: dict[str, Any]) -> str:
    """One sentence a person can act on for a field error, never holding the value sent
    (a 2,000-character question came back whole in pydantic's `input`)."""
    kind, field, ctx = error.get("type"), _field_name(error.get("loc")), error.get("ctx") or {}
    sent = error.get("input")
    if kind == "json_invalid":
        where = tuple(error.get("loc") or ())[-1:]  # FastAPI's ("body", position)
        at = f" at character {where[0]}" if where and isinstance(where[0], int) else ""
        # the parser's "unterminated string starting at" already ends with "at"
        said = str(ctx.get("error", "malformed")).lower().removesuffix(" at") if at else str(ctx.get("error", "malformed")).lower()
        return (f"The body is not valid JSON ({said}{at}); "
                "check its quotes, commas and braces and send it again.")
    if kind == "string_too_long":
        length = f"{len(sent):,} characters" if isinstance(sent, str) else "too long"
        return f"The {field} is {length}; keep it to {ctx.get('max_length', 0):,} characters or fewer."
    if kind == "string_too_short":  # every text field here needs one character at least
        return f"The {field} is empty; fill it in."
    if kind in ("too_short", "too_long"):
        bound = "at least" if kind == "too_short" else "at most"
        return f"The {field} list holds {len(sent) if isinstance(sent, list) else 'a wrong number of'} items; " \
               f"send {bound} {ctx.get('min_length' if kind == 'too_short' else 'max_length')}."
    if kind == "missing":
        return ("The request has no body; send a JSON object." if field == "body" else
                f"The request has no {field}; add it.")
    if kind == "string_type":
        return f"The {field} must be text (a JSON string)."
    if kind == "string_unicode":
        return (f"The {field} holds characters that are not text (a lone surrogate such as \\ud800); "
                "send it as UTF-8 text.")
    if kind in ("model_attributes_type", "dict_type", "model_type") and field == "body":
        return "The body must be a JSON object of the fields this endpoint takes (see /docs)."
    return _as_sentence(str(error.get("msg", "")).removeprefix("Value error, "), field)


def _as_sentence(msg: str, field: str) -> str:
    """Pydantic's message ("Input should be a valid integer") said of the field, as a sentence."""
    if msg.startswith("Input "):
        msg = f"The {field} " + msg.removeprefix("Input ")
    msg = msg[:1].upper() + msg[1:]
    return msg if msg.endswith(".") else msg + "."


def _field_errors(errors: list[Any]) -> list[dict[str, Any]]:
    """The API's error shape: each field at fault with its type and one sentence, without
    pydantic's `input`, `ctx` and `url` (the body sent, echoed back)."""
    return [{"type": e.get("type"),
             # a JSON error's position is said in its sentence; its field is the body
             "loc": ["body"] if e.get("type") == "json_invalid" else list(e.get("loc") or ()),
             "msg": _sentence(e)} for e in errors]


def _unprocessable(detail: dict[str, Any]) -> Response:
    # ASCII-escaped: a lone surrogate a client sent can never fail the reply
    return Response(json.dumps(detail, ensure_ascii=True), status_code=422, media_type="application/json")


async def _invalid_request(request: Request, exc: RequestValidationError) -> Response:
    """422 with the fields at fault, each with one sentence (`_field_errors`)."""
    detail: dict = {"detail": jsonable_encoder(_field_errors(list(exc.errors())))}
    sent = request.headers.get("content-type", "")
    if request.method == "POST" and "json" not in sent and "multipart" not in sent \
            and any(e.get("loc") == ("body",) for e in exc.errors()):
        # curl -d sends form encoding: the body was never read as JSON at all
        detail["hint"] = (f"The body was sent as {sent or 'no content type'}; send JSON with the header "
                          "'Content-Type: application/json'.")
    return _unprocessable(detail)


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """FastAPI's own errors as they are, but a body that is no text (bytes that are not
    UTF-8), which FastAPI answers "There was an error parsing the body" (400): said as the
    other body errors are (422, the field at fault and one sentence)."""
    if isinstance(exc.__cause__, UnicodeDecodeError):
        return _unprocessable({"detail": [{"type": "body_not_text", "loc": ["body"], "msg": (
            "The body is not UTF-8 text; send the JSON encoded as UTF-8.")}]})
    return await http_exception_handler(request, exc)


def _empty_file(name: str) -> JSONResponse:
    """400 for a 0-byte upload, in the upload result's shape, with the console's sentence."""
    from core.documents import IngestResult
    from core.ingest import EMPTY

    return JSONResponse(IngestResult(name, "failed", error=EMPTY).to_dict(), status_code=400)


def _not_cancelled(job: dict[str, Any]) -> str:
    """Why a DELETE of an upload job changed nothing, with what to do instead."""
    job_id, doc_id = job["job_id"], job.get("doc_id")
    if job["phase"] == ingest_jobs.DONE and doc_id:
        return (f"Ingest job {job_id} was already indexed as document {doc_id}, so it cannot be cancelled; "
                f"delete the document with DELETE /v1/documents/{doc_id} if you do not want it.")
    if job["phase"] == ingest_jobs.INDEXING:  # past its commit point: the document is being written
        return (f"Ingest job {job_id} was already being written to the index, so it cannot be cancelled; "
                "once its status URL says done, delete its document with DELETE /v1/documents/{doc_id} "
                "if you do not want it.")
    return f"Ingest job {job_id} is {job['phase']}, so it cannot be cancelled."


async def _too_large(send: Callable, limit: int) -> None:
    body = json.dumps({"detail": f"The request body is over {limit:,} bytes; send less."}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def create_app(settings: Settings) -> FastAPI:
    app = FastAPI(title="Groundwork API", version="1",
                  description="Answers only from a tenant's own documents, every sentence cited. "
                              "Authenticate with `Authorization: Bearer <key>` (`python -m core.cli keys create`).")
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    # uploads a stopped server left waiting: settled now, so their bytes do not wait for a poll
    ingest_jobs.settle_abandoned(settings)
    # a tenant deletion whose process died (a killed `tenants delete`): finished on a thread
    abandoned_deletions.finish_in_background(settings)

    async def _server_error(request: Request, exc: Exception) -> Response:
        """A full data disk is said as such (507, one sentence); any other failure stays a
        bare 500 (uvicorn still logs its traceback)."""
        from core.disk import full_sentence, is_full

        if is_full(exc):
            return JSONResponse({"detail": full_sentence(settings)}, status_code=507)
        return JSONResponse({"detail": "Internal server error; see the server's log."}, status_code=500)

    app.add_exception_handler(Exception, _server_error)

    def tenant_of(request: Request, x_groundwork_tenant: str | None = Header(default=None)) -> str:
        auth = request.headers.get("authorization", "")
        scheme, _, key = auth.partition(" ")
        holder = keys.holder_of(settings, key.strip()) if scheme.lower() == "bearer" else None
        if holder is None:
            raise HTTPException(401, "A valid API key is required: send Authorization: Bearer <key>.",
                                headers={"WWW-Authenticate": "Bearer"})
        tenant = holder["tenant"]
        access_log.note_caller(request.scope, tenant, holder["key_id"], holder["label"])
        if x_groundwork_tenant is not None and _header_text(x_groundwork_tenant) != tenant:
            raise HTTPException(403, "This key does not reach that tenant.")
        return tenant

    @app.post("/v1/ask", summary="Ask a question; the same Answer JSON as `core.cli ask --json`")
    def ask(body: AskBody, tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        from core.index import VectorStoreUnavailable
        from core.pipeline import ask as pipeline_ask

        try:
            return pipeline_ask(settings, tenant, body.question, body.previous).to_dict()
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        except VectorStoreUnavailable as exc:
            raise HTTPException(503, str(exc)) from None

    @app.get("/v1/documents", summary="The tenant's documents")
    def documents(tenant: str = Depends(tenant_of)) -> list[dict[str, Any]]:
        from core.documents import list_documents
        from core.store import document_notes

        return [{**{k: d.get(k) for k in ("doc_id", "file_name", "status", "pages", "chunks", "lang", "format",
                                          "size", "uploaded_at", "uploaded_by", "error")},
                 "notes": document_notes(d)}  # what indexing noted: pages read by OCR, left out, skipped
                for d in list_documents(settings, tenant)]

    @app.post("/v1/documents", status_code=202,
              summary=f"Upload one file ({SUPPORTED_FORMATS}; multipart field `file`): 202 with an ingest job "
                      "to poll at GET /v1/ingest-jobs/{job_id}; with ?wait=true indexed within the request",
              responses={200: {"description": "?wait=true: the document as indexed (status ready or unchanged)"},
                         400: {"description": "An empty (0-byte) file: nothing is recorded"},
                         422: {"description": "A file refused (no text, binary, unsupported, over the size "
                                              "limit; with ?wait=true also one that failed to index)"}})
    async def upload(request: Request, file: Annotated[UploadFile, File()], tenant: str = Depends(tenant_of),
                     wait: bool = Query(False, description="Index within the request and answer with the "
                                                           "document (the API's first behaviour).")) -> JSONResponse:
        # two `file` parts: FastAPI hands over the last, and the first was dropped without a
        # word (a reliability pass)
        sent = len((await request.form()).getlist("file"))
        if sent > 1:
            raise RequestValidationError([{"type": "too_many_files", "loc": ("body", "file"),
                                           "msg": f"This request carried {sent} files under `file`; "
                                                  "send one file per request."}])
        name, data = file.filename or "upload", await file.read()
        if not data:  # refused before anything is recorded: no job, no failed row (a QA pass found one)
            return _empty_file(name)
        if wait:
            return await run_in_threadpool(_ingest, name, data, tenant)
        return await run_in_threadpool(_accept, name, data, tenant, access_log.caller(request.scope).get("key_id"))

    def _accept(name: str, data: bytes, tenant: str, key_id: str | None) -> JSONResponse:
        from core.documents import IngestResult

        try:
            job = ingest_jobs.accept(settings, tenant, name, data, uploaded_by="api", key_id=key_id)
        except ingest_jobs.Refused as exc:  # refused as a synchronous upload says it, but nothing is kept
            return JSONResponse(IngestResult(name, "failed", error=str(exc)).to_dict(), status_code=422)
        except TenantBeingDeleted as exc:  # its key was valid a moment ago (QA pass: a 500)
            return JSONResponse(IngestResult(name, "failed", error=str(exc)).to_dict(), status_code=409)
        view = _ingest_job_view(job)
        return JSONResponse(view, status_code=202, headers={"Location": view["status_url"]})

    def _ingest(name: str, data: bytes, tenant: str) -> JSONResponse:
        from core.answer.prepare import prepare_in_background
        from core.documents import ingest_bytes

        result = ingest_bytes(settings, tenant, name, data, uploaded_by="api")
        if result.status == "ready" and result.doc_id:  # answer vectors after the response
            prepare_in_background(settings, tenant, [result.doc_id])
        out = result.to_dict()
        return JSONResponse(out, status_code=422 if out.get("status") == "failed" else 200)

    @app.get("/v1/ingest-jobs", summary="The tenant's upload jobs, newest first")
    def ingest_jobs_list(tenant: str = Depends(tenant_of)) -> list[dict[str, Any]]:
        return [_ingest_job_view(j) for j in ingest_jobs.jobs(settings, tenant)]

    @app.get("/v1/ingest-jobs/{job_id}",
             summary="One upload job: queued, indexing (with progress), done (doc_id), failed (error) or interrupted")
    def ingest_job(job_id: str, tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        return _ingest_job_view(ingest_jobs.get(settings, tenant, job_id), job_id)

    @app.delete("/v1/ingest-jobs/{job_id}",
                summary="Cancel an upload job: a queued one now (200); an indexing one at its next safe point "
                        "(202, the status URL says the outcome); one already indexed or ended: 409",
                responses={202: {"description": "Cancel requested: the job stops before its commit"},
                           409: {"description": "Already indexed (delete its document instead), or ended"}})
    def ingest_job_cancel(job_id: str, tenant: str = Depends(tenant_of)) -> JSONResponse:
        job = _ingest_job_view(ingest_jobs.cancel(settings, tenant, job_id), job_id)
        if job["phase"] == ingest_jobs.CANCELLED:
            return JSONResponse(job)
        if job["phase"] == ingest_jobs.INDEXING and job["cancel_requested_at"]:
            return JSONResponse(job, status_code=202, headers={"Location": job["status_url"]})
        raise HTTPException(409, _not_cancelled(job))

    @app.delete("/v1/documents/{doc_id}", summary="Delete one of the tenant's documents")
    def delete(doc_id: str, tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        from core.disk import DiskFull
        from core.documents import delete_document

        try:
            deleted = delete_document(settings, tenant, doc_id)
        except DiskFull as exc:
            raise HTTPException(507, str(exc)) from None
        if not deleted:
            raise HTTPException(404, f"No document {doc_id} in this tenant.")
        return {"deleted": doc_id}

    @app.post("/v1/verify", summary="Check claims against premises (the deterministic checks)")
    def verify(body: VerifyBody, tenant: str = Depends(tenant_of)) -> list[dict[str, Any]]:
        from core.verify import verify_pair

        out = []
        for pair in body.pairs:
            v = verify_pair(pair.premise, pair.claim, None)
            out.append({"id": pair.id, "verdict": v.verdict, "score": v.score, "reason": v.reason})
        return out

    @app.get("/v1/eval-runs", summary="The tenant's stored eval runs, newest first (overall figures)")
    def eval_runs(tenant: str = Depends(tenant_of)) -> list[dict[str, Any]]:
        runs = store.list_eval_runs(settings, tenant=tenant)
        return [{k: r.get(k) for k in ("run_id", "set_name", "created_at", "split", "mode", "overall")}
                for r in sorted(runs, key=lambda r: r.get("created_at") or 0, reverse=True)]

    @app.get("/v1/eval-runs/{run_id}", summary="One stored eval run's whole report")
    def eval_run(run_id: str, tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        report = store.get_eval_run(settings, run_id, tenant=tenant)
        if report is None:
            raise HTTPException(404, f"No eval run {run_id} for this tenant.")
        return _without_server_internals(report)

    @app.get("/v1/eval-sets", summary="The eval sets this tenant can run (bundled, and its own built in the console)")
    def eval_sets(tenant: str = Depends(tenant_of)) -> list[str]:
        return [p.stem for p in eval_jobs.eval_sets(settings, tenant)]

    @app.post("/v1/eval-runs", status_code=202,
              summary="Start an eval run in the background; poll GET /v1/eval-jobs/{job_id}")
    def start_eval_run(body: EvalRunBody, tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        path = eval_jobs.find_set(settings, body.set, tenant)
        if path is None:
            raise HTTPException(404, f"No eval set named {body.set!r}: GET /v1/eval-sets lists them.")
        # without --ingest the run asks only this tenant, whatever tenant the set's rows name
        try:
            return _job_view(eval_jobs.start(settings, path, owner=tenant, split=body.split,
                                   tenant=None if body.ingest else tenant, ingest=body.ingest, limit=body.limit))
        except ValueError as exc:  # JobRunning: one run at a time per tenant
            raise HTTPException(409, str(exc)) from None

    @app.get("/v1/eval-jobs", summary="The tenant's eval jobs, newest first")
    def eval_jobs_list(tenant: str = Depends(tenant_of)) -> list[dict[str, Any]]:
        return [_job_view(j) for j in eval_jobs.jobs(settings, tenant)]

    @app.get("/v1/eval-jobs/{job_id}", summary="One eval job: its phase, progress, and run id once done")
    def eval_job(job_id: str, tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        return _job_view(eval_jobs.get(settings, tenant, job_id), job_id)

    @app.delete("/v1/eval-jobs/{job_id}", summary="Cancel a running eval job (nothing of it is stored)")
    def cancel_eval_job(job_id: str, tenant: str = Depends(tenant_of)) -> dict[str, Any]:
        return _job_view(eval_jobs.cancel(settings, tenant, job_id), job_id)

    app.add_middleware(BodyLimit, upload_bytes=settings.max_file_mb * 1024 * 1024 + 64 * 1024)
    app.add_middleware(access_log.AccessLog)  # outermost of ours: a 413 is logged too
    return app


def main(argv: list[str] | None = None) -> int:
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m core.api", description="Groundwork HTTP API")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8780)
    parser.add_argument("--no-access-log", action="store_true",
                        help="Do not print the access log (one line per request) on stderr.")
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
    except ValueError as exc:  # a GROUNDWORK_* variable that is no value of its setting
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not args.no_access_log:
        access_log.show_on_stderr()  # uvicorn's own lines stay at warning level
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
