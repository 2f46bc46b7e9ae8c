"""The robustness harness: suites from eval sets, runs against a model, graded reports.

See the README section "Robustness harness". Heavy imports (matplotlib, the model client) are lazy.
"""
