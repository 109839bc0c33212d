"""The one split of the pair reader: it trains on the written domains and is judged on the
real corpora, whose questions nobody here wrote (a module of its own so that fit.py, run
with torch and without the project's requirements, can read it)."""

HELD = ("handbook", "vueguide", "debhandbook", "debreference")
