"""The Lambda cost model: what one call costs at each memory size.

* :mod:`costmodel.prices`: Lambda and API Gateway prices, billing rules, the duration model;
* :mod:`costmodel.snapstart`: SnapStart's cache and restore prices against billed INITs;
* :mod:`costmodel.scenarios`: the sweeps' inputs (entry x text length x batch, as API events);
* :mod:`costmodel.local`: the handler timed in-process (no AWS);
* :mod:`costmodel.remote`: a memory sweep on a deployed function (boto3);
* :mod:`costmodel.lambda_logs`: Lambda's REPORT log lines;
* :mod:`costmodel.render`: the table, CSV, plot and console lines;
* :mod:`costmodel.cli`: the command line, ``python eval/run_all.py run cost``.
"""
