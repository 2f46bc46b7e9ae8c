"""What the harness needs to know about an entry, read from its declaration in the registry.

Each entry declares where a failure it causes is best fixed (``fix_at``), the parameter that states
a directional entry's direction, how its severity level is read, whether it may move text, a
gate of its own, its family of the graded framework (``perturber.registry.perturbation``). Every other harness module asks
:func:`entry_facts`; none names an entry.

>>> entry_facts("zero_width").fix_at
'input_normalisation'
>>> entry_facts("scale_quantity").direction({"exponent": -2})
'down'
>>> entry_facts("context_load").level_rule, entry_facts("syntactic_paraphrasing").numbers
('ratio', 'multiset')
>>> entry_facts("no_such_entry")
EntryFacts(fix_at=None, direction_param=None, level_rule=None, numbers='position', gate=None, graded_family=None)
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import registry
from ..errors import UnknownPerturbation

INPUT_NORMALISATION, PROMPT = registry.FIX_AT


@dataclass(frozen=True)
class EntryFacts:
    """``fix_at``: where a failure is best fixed (``input_normalisation``, ``prompt`` or None);
    ``direction_param``: a directional entry's parameter whose sign says up (> 0) or down;
    ``level_rule``: how its level is read (``ratio``: achieved expansion ratio; ``param:NAME``:
    the parameter's value; ``choice:NAME``: the index of the choice; None: magnitude bands);
    ``numbers``: the number gate of an invariant entry (``position``: every number survives where
    it stood; ``multiset``: text may move, every number keeps its value); ``gate``: a rule of its
    own replacing the number gates (``boundary``: a knowledge-boundary rewrite); ``graded_family``:
    its family of the graded framework when its catalog family does not give it."""

    fix_at: str | None = None
    direction_param: str | None = None
    level_rule: str | None = None
    numbers: str = "position"
    gate: str | None = None
    graded_family: str | None = None

    def direction(self, params: dict) -> str | None:
        """``up``/``down`` for a directional entry with a stated direction, else None."""
        if self.direction_param is None:
            return None
        value = (params or {}).get(self.direction_param, 1)
        return "up" if value > 0 else "down"


def entry_facts(name: str, category: str = "native") -> EntryFacts:
    """The facts entry ``name`` declares (an entry the catalog does not know has none)."""
    try:
        spec = registry.get(name, category)
    except UnknownPerturbation:
        return EntryFacts()
    return EntryFacts(
        fix_at=spec.fix_at,
        direction_param=spec.direction_param,
        level_rule=spec.level_rule,
        numbers="multiset" if spec.moves_text else "position",
        gate=spec.gate,
        graded_family=spec.graded_family,
    )
