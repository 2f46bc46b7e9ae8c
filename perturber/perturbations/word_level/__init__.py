"""word_level family (docs/spec/catalog.md §5), one module per mechanism group."""

from . import spacing, synonym, typos  # noqa: F401  (modules register their entries on import)
