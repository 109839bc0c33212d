"""The hand-made question/answer rows several eval tests score."""

from __future__ import annotations

import pytest
from eval_helpers import cite, claim, make_a, make_q, passage


@pytest.fixture
def mixed_rows() -> list[tuple[dict, dict]]:
    """Six questions with hand-computed metric values (see test_eval_metrics)."""
    refund = "Monthly plans can be refunded within 14 days of purchase."
    other = "Annual plans are not refundable."
    return [
        # a1: correct, cited (quote holds the answer), gold passage at rank 2, 2/2 claims supported
        (make_q("a1", expected="14 days", source="refunds.md", quote="refunded within 14 days"),
         make_a(text="Monthly plans can be refunded within 14 days of purchase [1].",
                citations=[cite("r:1", refund, "refunds.md")], claims=[claim("supported")] * 2,
                retrieved=[passage("x:1", "other.md", other, 1), passage("r:1", "refunds.md", refund, 2)],
                total=100)),
        # a2: correct, but its only citation quotes a sentence without the answer; gold at rank 1
        (make_q("a2", expected="not refundable", source="other.md", quote="Annual plans are not refundable",
                category="billing", lang="de"),
         make_a(text="Annual plans are not refundable [1].", citations=[cite("x:1", "Annual plans")],
                claims=[claim("supported"), claim("unsupported")],
                retrieved=[passage("x:1", "other.md", other, 1)], total=200)),
        # a3: refused although answerable
        (make_q("a3", expected="€49", source="shipping.md", quote="costs €49"),
         make_a(status="refused", text="I did not find this.", retrieved=[passage("x:1", "other.md", other, 1)],
                total=300)),
        # a4: answered wrongly
        (make_q("a4", expected="3 years", source="warranty.md", quote="warranty is 3 years", category="billing"),
         make_a(text="The warranty is 2 years [1].", citations=[cite("w:1", "The warranty is 2 years")],
                claims=[claim("unsupported")], retrieved=[], total=400)),
        # u1: unanswerable, refused
        (make_q("u1", kind="unanswerable", tenant="globex", lang="de"),
         make_a(status="refused", text="I did not find this.", total=500, tenant="globex")),
        # m1: misleading, answered
        (make_q("m1", kind="misleading", tenant="globex"),
         make_a(text="Yes, it ships to Mars [1].", citations=[cite("x:1", "ships")], claims=[claim("supported")],
                total=600, tenant="globex")),
    ]
