"""OpenTelemetry export: an in-process OTLP (gRPC) collector receives every ask's spans."""

from __future__ import annotations

import socket
from concurrent import futures
from dataclasses import replace

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from core import telemetry
from core.config import load_settings
from core.documents import ingest_file


class Collector(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self) -> None:
        self.spans: list = []

    def Export(self, request, context):  # noqa: N802 - the gRPC method name
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                self.spans.extend(scope_spans.spans)
        return trace_service_pb2.ExportTraceServiceResponse()


@pytest.fixture
def collector():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    sink = Collector()
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(sink, server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    sink.endpoint = f"http://127.0.0.1:{port}"
    yield sink
    server.stop(0)


def _attrs(span) -> dict:
    out = {}
    for kv in span.attributes:
        v = kv.value
        out[kv.key] = v.string_value or v.int_value or v.double_value or v.bool_value
    return out


def test_every_ask_sends_its_stage_spans_with_tenant_status_and_confidence(settings, write_file, collector):
    from core.pipeline import ask

    assert ingest_file(settings, "acme", write_file("a.md", "# Leave\n\nStaff earn 25 days of leave.\n")).status == "ready"
    traced = replace(settings, otel_endpoint=collector.endpoint)
    answer = ask(traced, "acme", "How many days of leave do staff earn?")
    telemetry.flush()
    names = [s.name for s in collector.spans]
    assert {"groundwork.ask", "groundwork.retrieve", "groundwork.gate", "groundwork.generate",
            "groundwork.verify"} <= set(names)
    root = next(s for s in collector.spans if s.name == "groundwork.ask")
    attrs = _attrs(root)
    assert attrs["groundwork.tenant"] == "acme" and attrs["groundwork.status"] == answer.status
    assert attrs["groundwork.trace_id"] == answer.trace_id and attrs["groundwork.route"] == answer.route
    assert abs(attrs.get("groundwork.confidence", 0.0) - answer.confidence) < 1e-6
    children = [s for s in collector.spans if s.name != "groundwork.ask"]
    assert all(c.parent_span_id == root.span_id and c.trace_id == root.trace_id for c in children)
    assert all(root.start_time_unix_nano <= c.start_time_unix_nano <= c.end_time_unix_nano <= root.end_time_unix_nano
               for c in children)


def test_nothing_is_sent_without_an_endpoint(settings, write_file, collector):
    from core.pipeline import ask

    assert load_settings({"GROUNDWORK_DATA": str(settings.data_dir)}).otel_endpoint is None
    assert load_settings({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4317"}).otel_endpoint == "http://x:4317"
    assert ingest_file(settings, "acme", write_file("a.md", "# Leave\n\nStaff earn 25 days of leave.\n")).status == "ready"
    ask(settings, "acme", "How many days of leave do staff earn?")
    telemetry.flush()
    assert collector.spans == []
    assert telemetry.emit_ask(None, {}, None, None) is False


def test_cost_estimate_from_tokens_and_prices():
    assert telemetry.cost_usd({"prompt": 2000, "completion": 500}, 0.5, 1.5) == pytest.approx(1.75)
    assert telemetry.cost_usd(None, 1.0, 1.0) == 0.0
