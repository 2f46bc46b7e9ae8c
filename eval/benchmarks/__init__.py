"""Benchmarks: how fast and how heavy perturber is where it runs.

* :mod:`benchmarks.service`: HTTP throughput of one uvicorn worker;
* :mod:`benchmarks.lambda_runtime`: the function under AWS's runtime client, INIT figures;
* :mod:`benchmarks.lambda_compare`: Lambda import, INIT, zip, handler and HTTP figures, this tree
  against another;
* :mod:`benchmarks.llm`: the model-backed tier under batches;
* :mod:`benchmarks.robustness`: the robustness harness (suite, evaluate, report, the documented runs);
* :mod:`benchmarks.smoke`: the smoke test of a running endpoint (deployed or local);
* :mod:`benchmarks.latency`: in-process latency per entry (warm, cold, 1 MB), and
  :mod:`benchmarks.latency_compare`: the same for two trees, side by side;
* :mod:`benchmarks.memory`: resident memory per scenario (hostile words, ordinary texts, Lambda);
* :mod:`benchmarks.side_by_side`: against the reference implementation, then
  :mod:`benchmarks.performance_report` writes ``docs/performance.md``.
"""
