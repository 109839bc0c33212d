"""OpenTelemetry spans for every ask, sent to an OTLP endpoint when one is configured.

With `OTEL_EXPORTER_OTLP_ENDPOINT` set (the standard variable, read into
`Settings.otel_endpoint`; gRPC, e.g. `http://collector:4317`), each ask becomes a span `groundwork.ask` with one child per stage
(retrieve, gate, generate, verify, closest), timed from the ask's own stage timings, with
the tenant, status, route, confidence, provider, model, token counts and cost as
attributes (Phoenix, Jaeger, Tempo or any OTLP collector reads them). Without the variable
nothing is set up and nothing is sent. The spans are built after the ask from its measured
timings, so tracing never sits inside the answer path, and they go out from a background
batch processor, so a slow collector never slows an ask.
"""

from __future__ import annotations

import threading
import time
from typing import Any

_providers: dict[str, Any] = {}  # one exporter per endpoint per process (OTel's own model)
_lock = threading.Lock()
STAGES = ("retrieve", "gate", "generate", "verify", "closest")


def _provider(endpoint: str) -> Any:
    with _lock:
        if endpoint not in _providers:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            provider = TracerProvider(resource=Resource.create({"service.name": "groundwork"}))
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
            _providers[endpoint] = provider
        return _providers[endpoint]


def cost_usd(tokens: dict[str, int] | None, price_in_per_1k: float, price_out_per_1k: float) -> float:
    """The model's cost estimate for one ask from its token counts and per-1k prices."""
    tokens = tokens or {}
    return round(tokens.get("prompt", 0) / 1000 * price_in_per_1k
                 + tokens.get("completion", 0) / 1000 * price_out_per_1k, 6)


def emit_ask(target: str | None, answer: dict[str, Any], tokens: dict[str, int] | None,
             cost: float | None) -> bool:
    """Send one ask's spans to `target` (Settings.otel_endpoint) if set; True when queued."""
    if not target:
        return False
    tracer = _provider(target).get_tracer("groundwork")
    timings = answer.get("timings_ms") or {}
    end = time.time_ns()
    start = end - int(float(timings.get("total", 0.0)) * 1e6)
    attributes = {
        "groundwork.tenant": answer.get("tenant") or "", "groundwork.status": answer.get("status") or "",
        "groundwork.route": answer.get("route") or "", "groundwork.confidence": float(answer.get("confidence") or 0),
        "groundwork.provider": answer.get("provider") or "", "groundwork.model": answer.get("model") or "",
        "groundwork.trace_id": answer.get("trace_id") or "",
        "llm.token_count.prompt": int((tokens or {}).get("prompt", 0)),
        "llm.token_count.completion": int((tokens or {}).get("completion", 0)),
        "groundwork.cost_usd": float(cost or 0.0),
    }
    if answer.get("refusal_code"):
        attributes["groundwork.refusal_code"] = answer["refusal_code"]
    root = tracer.start_span("groundwork.ask", start_time=start, attributes=attributes)
    from opentelemetry import trace as otel_trace

    context = otel_trace.set_span_in_context(root)
    at = start
    for stage in STAGES:
        if stage not in timings:
            continue
        length = int(float(timings[stage]) * 1e6)
        span = tracer.start_span(f"groundwork.{stage}", context=context, start_time=at,
                                 attributes={"groundwork.tenant": attributes["groundwork.tenant"]})
        span.end(end_time=min(at + length, end))
        at = min(at + length, end)
    root.end(end_time=end)
    return True


def flush(timeout_ms: int = 10_000) -> None:
    """Send what is queued (tests; a process about to exit)."""
    for provider in list(_providers.values()):
        provider.force_flush(timeout_ms)
