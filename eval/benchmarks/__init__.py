"""Benchmarks: how fast and how heavy perturber is where it runs.

* :mod:`benchmarks.service`: HTTP throughput of one uvicorn worker;
* :mod:`benchmarks.lambda_runtime`: the function under AWS's runtime client, INIT figures;
* :mod:`benchmarks.lambda_compare`: Lambda import, INIT, zip, handler and HTTP figures, this tree
  against another;
* :mod:`benchmarks.llm`: the model-backed tier under batches;
* :mod:`benchmarks.robustness`: the robustness harness (suite, evaluate, report, the documented runs);
* :mod:`benchmarks.smoke`: the smoke test of a running endpoint (deployed or local).

The in-process latency, memory and side-by-side benchmarks are ``eval/bench*.py`` (run by path).
"""
