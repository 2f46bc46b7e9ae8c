"""Fidelity measurement: does each perturbation keep the prompt's meaning, and how does the
catalog compare with its peers?

* :mod:`fidelity.stage`: the fidelity stage on ``eval/corpus/`` (applied rate, magnitude,
  numbers and JSON preserved, embedding similarity, optional judge, negative control), with
  :mod:`fidelity.embedding`, :mod:`fidelity.judge`, :mod:`fidelity.regions`,
  :mod:`fidelity.stats`, :mod:`fidelity.synonym_yield`, :mod:`fidelity.figure` and the report
  section :mod:`fidelity.section`;
* :mod:`fidelity.catalog`: the catalog's counts and digest;
* :mod:`fidelity.peers`: per-call latency against glitchlings and nlpaug;
* :mod:`fidelity.brittlebench_compare`: native entries against their brittlebench-tier counterparts.
"""
