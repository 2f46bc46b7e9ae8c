"""What eval/'s jobs share: where things are (:mod:`evalkit.paths`), the corpus
(:mod:`evalkit.corpus`), report sections and ``eval/out/REPORT.md`` (:mod:`evalkit.sections`,
:mod:`evalkit.report`), the tools ``eval/run_all.py`` runs (:mod:`evalkit.tools`) and a scriptable
OpenAI-compatible server (:mod:`evalkit.chat_server`). Nothing here is imported by the library.
"""
