"""The eval harness: metrics (`evals.metrics`), the runner (`evals.run`), gate calibration
(`evals.calibrate`), run comparison (`evals.compare`) and speed benchmarks (`evals.bench`)."""
