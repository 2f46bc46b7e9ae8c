"""schema: rewrites of a JSON Schema given as text (docs/spec/catalog.md §8).

The input is parsed into a *lexeme tree*: objects keep their members in document order, and every
number, string and literal keeps its source spelling (``1e5`` stays ``1e5``, ``"\\u00e9"`` stays
escaped). Entries edit the tree at the schema positions of §8 and, only when something changed,
the whole document is re-emitted in the input's own style (compact or pretty); otherwise the input
comes back byte-identical.

Parsing uses the stdlib ``json`` decoder with hooks that keep the lexemes; when that cannot be
exact (one string value spelled two ways) or runs into the recursion limit, an iterative token
parser takes over. Walks and re-emission are iterative as well, so a document nested 1,000 levels
deep is handled like any other. The only recursion is the ``inline_defs`` rewrite, which follows
schema nodes and stops 100 levels below the root (§8). Every re-emission is bounded by the output
limit of §1.14 (``size_limit`` beyond it; ``inline_defs`` has its own, smaller bound).

>>> from perturber.rng import Draws
>>> reorder_enum('{"enum": [1, 2]}', Draws(0), rate=1.0).text
'{"enum": [2, 1]}'
"""

from __future__ import annotations

from urllib.parse import unquote

from .. import text as tm
from ..jsontext import MAX_NESTING, Copy, Obj, detect_style, dump, parse_object
from ..jsontext import decode_string as _dec
from ..jsontext import is_string as _is_str
from ..jsontext import key_lexeme as _key
from ..jsontext import string_value as _str_value
from ..registry import Outcome, perturbation, rate, unchanged
from ..rng import Draws, permutation, select

__all__ = [
    "reorder_properties",
    "reorder_enum",
    "reorder_union",
    "expand_type_shorthand",
    "inline_defs",
    "add_redundant_constraints",
    "additional_properties_false",
]

MAX_SCHEMA_LEVEL = 100  # schema nodes deeper than this below the root are not walked (§8)


class _Doc:
    __slots__ = ("text", "lead", "body", "trail", "root", "draft")

    def __init__(self, text, lead, body, trail, root) -> None:
        self.text, self.lead, self.body, self.trail, self.root = text, lead, body, trail, root
        self.draft = _draft(_str_value(root.get("$schema")))


def _draft(uri) -> int:
    """3, 4, 6 or 7 for a legacy ``$schema``; 0 for 2019-09, 2020-12, anything else or none."""
    if uri is not None:
        for number in (3, 4, 6, 7):
            if f"draft-0{number}" in uri:
                return number
    return 0


def _load(text: str):
    """The parsed document, or None when the input is not a JSON object (``not_json_schema``)."""
    body = text.strip()  # str.strip() strips exactly the str.isspace() characters
    if body[:1] != "{":
        return None
    root = parse_object(body, MAX_NESTING)
    if root is None:
        return None
    lead = len(text) - len(text.lstrip())
    return _Doc(text, text[:lead], body, text[lead + len(body) :], root)


# --------------------------------------------------------------------------------------------
# Re-emission in the input's style
# --------------------------------------------------------------------------------------------


def _emit(doc: _Doc, root, limit: int | None = None):
    """``(text, copies)`` of the whole edited document, or None past ``limit`` code points.

    Without an entry limit, the global output bound of §1.14 applies (``8 × len + 100,000``):
    pretty re-emission of a nearly compact, deeply nested input could otherwise grow
    quadratically.
    """
    if limit is None:
        limit = 8 * len(doc.text) + 100_000
    done = dump(
        root, detect_style(doc.body, tm.newline_style(doc.text)), limit - len(doc.lead) - len(doc.trail)
    )
    if done is None:
        return None
    return doc.lead + done[0] + doc.trail, done[1]


def _finish(text: str, doc: _Doc, edits: int, limit: int | None = None) -> Outcome:
    if edits == 0:
        return unchanged(text, "no_change")
    done = _emit(doc, doc.root, limit)
    if done is None:
        return unchanged(text, "size_limit")
    return Outcome(done[0], edits)


# --------------------------------------------------------------------------------------------
# Schema positions (§8)
# --------------------------------------------------------------------------------------------

_MAP, _ARRAY, _SINGLE, _ITEMS = range(4)
_KINDS = {
    "properties": _MAP,
    "patternProperties": _MAP,
    "$defs": _MAP,
    "definitions": _MAP,
    "dependentSchemas": _MAP,
    "anyOf": _ARRAY,
    "oneOf": _ARRAY,
    "allOf": _ARRAY,
    "prefixItems": _ARRAY,
    "items": _ITEMS,
    "additionalItems": _SINGLE,
    "contains": _SINGLE,
    "additionalProperties": _SINGLE,
    "unevaluatedItems": _SINGLE,
    "unevaluatedProperties": _SINGLE,
    "propertyNames": _SINGLE,
    "not": _SINGLE,
    "if": _SINGLE,
    "then": _SINGLE,
    "else": _SINGLE,
    "contentSchema": _SINGLE,
}
_UNIONS = ("anyOf", "oneOf", "allOf")
_DEF_CONTAINERS = ("$defs", "definitions")
_REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")


def _children(node: Obj, extra: bool = False) -> list:
    """Child schema nodes ``(child, via, segments)`` in document order. ``via`` is the array
    keyword a child is an element of (else None); ``segments`` its JSON-pointer path from
    ``node``. ``extra`` also follows draft-04–07 ``dependencies`` (used by conservative checks)."""
    kids: list[tuple[Obj, str | None, tuple[str, ...]]] = []
    for key, _, value in node.members:
        kind = _KINDS.get(key)
        if kind is None:
            if extra and key == "dependencies" and type(value) is Obj:
                kind = _MAP
            else:
                continue
        tv = type(value)
        if tv is Obj:
            if kind == _MAP:
                kids.extend((v, None, (key, k)) for k, _, v in value.members if type(v) is Obj)
            elif kind != _ARRAY:
                kids.append((value, None, (key,)))
        elif tv is list and (kind == _ARRAY or kind == _ITEMS):
            kids.extend((v, key, (key, str(i))) for i, v in enumerate(value) if type(v) is Obj)
    return kids


def _walk(root: Obj) -> list:
    """Schema nodes in pre-order document order, as ``(node, level, via, parent, segments)``;
    ``parent`` is the index of the parent entry (-1 for the root)."""
    out: list[tuple] = []
    stack: list[tuple] = [(root, 0, None, -1, ())]
    while stack:
        entry = stack.pop()
        here = len(out)
        out.append(entry)
        level = entry[1]
        if level < MAX_SCHEMA_LEVEL:
            kids = _children(entry[0])
            for child, via, segs in reversed(kids):
                stack.append((child, level + 1, via, here, segs))
    return out


def _path(entries: list, i: int) -> tuple:
    parts = []
    while i >= 0:
        entry = entries[i]
        parts.append(entry[4])
        i = entry[3]
    return tuple(seg for segs in reversed(parts) for seg in segs)


def _pointer(ref: str):
    """JSON-pointer segments of a local ref (``#/a/b`` → ``('a', 'b')``, ``#`` → ``()``), after
    percent-decoding the fragment (RFC 6901 §6); None for anything else (anchors, other URIs)."""
    if ref[:1] != "#":
        return None
    fragment = unquote(ref[1:])
    if fragment == "":
        return ()
    if fragment[0] != "/":
        return None
    return tuple(s.replace("~1", "/").replace("~0", "~") for s in fragment[1:].split("/"))


def _local_pointers(root: Obj) -> list:
    """Every local JSON pointer used by a ``$ref``/``$dynamicRef``/``$recursiveRef`` anywhere in
    the document (data positions included: conservative), as segment tuples."""
    out = []
    stack = [root]
    while stack:
        v = stack.pop()
        if type(v) is Obj:
            for k, _, x in v.members:
                if type(x) is str:
                    if k in _REF_KEYS and x[:1] == '"':
                        p = _pointer(_dec(x))
                        if p:
                            out.append(p)
                else:
                    stack.append(x)
        elif type(v) is list:
            stack.extend(x for x in v if type(x) is not str)
    return out


def _pointer_trie(root: Obj) -> dict:
    """The local pointers of ``_local_pointers`` as a trie: nested dicts keyed by segment."""
    trie: dict = {}
    for p in _local_pointers(root):
        node = trie
        for seg in p:
            node = node.setdefault(seg, {})
    return trie


def _trie_at(trie: dict, path) -> dict:
    """The trie node under ``path`` (empty if no pointer goes that way)."""
    for seg in path:
        below = trie.get(seg)
        if below is None:
            return {}
        trie = below
    return trie


def _same(a, b) -> bool:
    """Lexeme-exact equality of two values (iterative)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is str:
            if x != y:
                return False
        elif type(x) is Obj:
            if len(x.members) != len(y.members):
                return False
            for mx, my in zip(x.members, y.members):
                if mx[1] != my[1]:
                    return False
                stack.append((mx[2], my[2]))
        else:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
    return True


def _permute(items: list, rng: Draws) -> bool:
    """Reorder ``items`` in place by ``P(len(items))``; True if the array now reads differently."""
    perm = permutation(len(items), rng)
    old = list(items)
    items[:] = [old[j] for j in perm]
    return any(j != i and not _same(old[j], old[i]) for i, j in enumerate(perm))


def _type_names(value) -> list:
    """The string names of a ``type`` value (a string, or the strings of an array)."""
    if type(value) is str:
        return [_dec(value)] if value[:1] == '"' else []
    if type(value) is list:
        return [_dec(x) for x in value if _is_str(x)]
    return []


def _open(text: str, intensity=None):
    """Shared start: ``(doc, None)`` or ``(None, outcome)`` for not_json_schema/zero_intensity."""
    doc = _load(text)
    if doc is None:
        return None, unchanged(text, "not_json_schema")
    if intensity is not None and intensity == 0:
        return None, unchanged(text, "zero_intensity")
    return doc, None


# --------------------------------------------------------------------------------------------
# 8.1–8.3 reorderings (seeded)
# --------------------------------------------------------------------------------------------


@perturbation(
    "reorder_properties",
    family="schema",
    seed_sensitive=True,
    skip_zero_intensity=False,
    params=[rate(1.0, "fraction of eligible nodes")],
    description="Reorder the keys of `properties` objects; `required` follows the new order.",
    reasons=("not_json_schema", "no_candidates", "size_limit"),
)
def reorder_properties(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Non-identity reorder of ``properties`` at a fraction of the nodes that have ≥ 2 of them.

    >>> from perturber.rng import Draws
    >>> s = '{"properties":{"a":{"type":"string"},"b":{}},"required":["a","b"]}'
    >>> reorder_properties(s, Draws(3), rate=1.0).text
    '{"properties":{"b":{},"a":{"type":"string"}},"required":["b","a"]}'
    """
    doc, early = _open(text, rate)
    if early:
        return early
    nodes = [
        e[0]
        for e in _walk(doc.root)
        if type(e[0].get("properties")) is Obj and len(e[0].index["properties"].members) >= 2
    ]
    if not nodes:
        return unchanged(text, "no_candidates")
    chosen = select(nodes, rng, rate=rate)
    for node in chosen:
        props = node.index["properties"]
        _permute(props.members, rng)  # keys are unique: always a visible change
        required = node.get("required")
        if type(required) is list and all(_is_str(x) for x in required):
            where = {m[0]: i for i, m in enumerate(props.members)}
            last = len(where)
            keyed = sorted(range(len(required)), key=lambda i: (where.get(_dec(required[i]), last), i))
            required[:] = [required[i] for i in keyed]
    return _finish(text, doc, len(chosen))


@perturbation(
    "reorder_enum",
    family="schema",
    seed_sensitive=True,
    skip_zero_intensity=False,
    params=[rate(1.0, "fraction of eligible enum arrays")],
    description="Reorder the members of `enum` arrays at schema positions.",
    reasons=("not_json_schema", "no_candidates", "size_limit"),
)
def reorder_enum(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Non-identity reorder of a fraction of the ``enum`` arrays with ≥ 2 members.

    >>> from perturber.rng import Draws
    >>> reorder_enum('{"enum":["red","green","blue"]}', Draws(3), rate=1.0).text
    '{"enum":["blue","red","green"]}'
    """
    doc, early = _open(text, rate)
    if early:
        return early
    arrays = [
        e[0].index["enum"]
        for e in _walk(doc.root)
        if type(e[0].get("enum")) is list and len(e[0].index["enum"]) >= 2
    ]
    if not arrays:
        return unchanged(text, "no_candidates")
    edits = sum(_permute(items, rng) for items in select(arrays, rng, rate=rate))
    return _finish(text, doc, edits)


@perturbation(
    "reorder_union",
    family="schema",
    seed_sensitive=True,
    skip_zero_intensity=False,
    params=[rate(1.0, "fraction of eligible anyOf/oneOf/allOf arrays")],
    description="Reorder the branches of `anyOf`, `oneOf` and `allOf` arrays.",
    reasons=("not_json_schema", "no_candidates", "size_limit"),
)
def reorder_union(text: str, rng: Draws, *, rate: float) -> Outcome:
    """Non-identity reorder of a fraction of the union arrays with ≥ 2 branches.

    >>> from perturber.rng import Draws
    >>> reorder_union('{"anyOf":[{"type":"string"},{"type":"null"}]}', Draws(0), rate=1.0).text
    '{"anyOf":[{"type":"null"},{"type":"string"}]}'
    """
    doc, early = _open(text, rate)
    if early:
        return early
    entries = _walk(doc.root)
    # An array that a local JSON pointer indexes into (`#/anyOf/1/...`) keeps its order: moving
    # its branches would retarget the pointer.
    trie = _pointer_trie(doc.root) if "ref" in doc.body or "\\u" in doc.body else {}
    arrays = []
    for i, entry in enumerate(entries):
        node = entry[0]
        for key, _, value in node.members:
            if key in _UNIONS and type(value) is list and len(value) >= 2:
                if trie and _trie_at(trie, _path(entries, i) + (key,)):
                    continue
                arrays.append(value)
    if not arrays:
        return unchanged(text, "no_candidates")
    edits = sum(_permute(items, rng) for items in select(arrays, rng, rate=rate))
    return _finish(text, doc, edits)


# --------------------------------------------------------------------------------------------
# 8.4, 8.6, 8.7 member rewrites (not seeded)
# --------------------------------------------------------------------------------------------


@perturbation(
    "expand_type_shorthand",
    family="schema",
    description="Rewrite a `type` array as an `anyOf` of single-type branches.",
    reasons=("not_json_schema", "no_candidates", "size_limit"),
)
def expand_type_shorthand(text: str, rng: Draws) -> Outcome:
    """``"type":[t1,t2,…]`` becomes ``"anyOf":[{"type":t1},…]`` at the same key position.

    >>> expand_type_shorthand('{"type":["string","null"],"minLength":1}', None).text
    '{"anyOf":[{"type":"string"},{"type":"null"}],"minLength":1}'
    """
    doc, early = _open(text)
    if early:
        return early
    if doc.draft == 3:
        return unchanged(text, "no_candidates")  # draft-03 has no anyOf
    edits = 0
    for entry in _walk(doc.root):
        node = entry[0]
        types = node.get("type")
        if type(types) is not list or len(types) < 2 or "anyOf" in node.index:
            continue
        if not all(_is_str(x) for x in types):
            continue
        seen, branches = set(), []
        for lexeme in types:
            name = _dec(lexeme)
            if name not in seen:
                seen.add(name)
                branches.append(Obj([("type", '"type"', lexeme)]))
        if len(branches) < 2:
            continue
        at = next(i for i, m in enumerate(node.members) if m[0] == "type")
        node.members[at] = ("anyOf", '"anyOf"', branches)
        del node.index["type"]
        node.index["anyOf"] = branches
        edits += 1
    if not edits:
        return unchanged(text, "no_candidates")
    return _finish(text, doc, edits)


@perturbation(
    "add_redundant_constraints",
    family="schema",
    description='Add `"minItems":0` to array nodes and `"minProperties":0` to object nodes that lack them.',
    reasons=("not_json_schema", "no_candidates", "size_limit"),
)
def add_redundant_constraints(text: str, rng: Draws) -> Outcome:
    """Append always-true bounds at the end of array- and object-typed nodes.

    >>> s = '{"type":"object","properties":{"tags":{"type":["array","null"]}}}'
    >>> add_redundant_constraints(s, None).text
    '{"type":"object","properties":{"tags":{"type":["array","null"],"minItems":0}},"minProperties":0}'
    """
    doc, early = _open(text)
    if early:
        return early
    edits = 0
    for entry in _walk(doc.root):
        node = entry[0]
        types = _type_names(node.get("type"))
        for wanted, keyword in (("array", "minItems"), ("object", "minProperties")):
            if wanted in types and keyword not in node.index:
                node.members.append((keyword, _key(keyword), "0"))
                node.index[keyword] = "0"
                edits += 1
    if not edits:
        return unchanged(text, "no_candidates")
    return _finish(text, doc, edits)


_OPENERS = (
    "additionalProperties",
    "unevaluatedProperties",
    "patternProperties",
    "$ref",
    "allOf",
    "anyOf",
    "oneOf",
)


@perturbation(
    "additional_properties_false",
    family="schema",
    in_scope=False,
    description='Close object nodes with `"additionalProperties":false` (narrows the accepted set).',
    reasons=("not_json_schema", "no_candidates", "size_limit"),
)
def additional_properties_false(text: str, rng: Draws) -> Outcome:
    """Append ``"additionalProperties":false`` to plain object nodes outside composition branches.

    >>> additional_properties_false('{"type":"object","properties":{"a":{"type":"string"}}}', None).text
    '{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}'
    """
    doc, early = _open(text)
    if early:
        return early
    edits = 0
    for node, _, via, _, _ in _walk(doc.root):
        if via in _UNIONS or type(node.get("properties")) is not Obj:
            continue
        if "object" not in _type_names(node.get("type")):
            continue
        if any(k in node.index for k in _OPENERS):
            continue
        node.members.append(("additionalProperties", '"additionalProperties"', "false"))
        node.index["additionalProperties"] = "false"
        edits += 1
    if not edits:
        return unchanged(text, "no_candidates")
    return _finish(text, doc, edits)


# --------------------------------------------------------------------------------------------
# 8.5 inline_defs
# --------------------------------------------------------------------------------------------

_ID_KEYS = ("$id", "$anchor", "$dynamicAnchor")
_ROOT_KEPT = ("$schema", "$defs", "definitions")  # kept at a legacy root whose $ref is inlined


def _def_target(ref: str):
    """``(container, name)`` for the exact forms ``#/$defs/<name>`` / ``#/definitions/<name>``.

    >>> _def_target("#/$defs/a~1b%20c"), _def_target("#/$defs/a/b"), _def_target("#/$defs/a%2Fb")
    (('$defs', 'a/b c'), None, None)
    """
    for prefix, container in (("#/$defs/", "$defs"), ("#/definitions/", "definitions")):
        if ref.startswith(prefix):
            raw = ref[len(prefix) :]
            if "/" in raw:
                return None
            name = unquote(raw)
            if "/" in name:  # %2F: a deeper pointer once the fragment is decoded
                return None
            return container, name.replace("~1", "/").replace("~0", "~")
    return None


def _opens_resource(node: Obj, draft: int) -> bool:
    """True when ``node`` changes the base URI (``$id``; ``id`` in draft-03/04)."""
    if "$id" in node.index:
        return True
    return draft in (3, 4) and _is_str(node.get("id"))


def _has_identity(node: Obj, draft: int) -> bool:
    """Whether a definition holds ``$id``, ``$anchor`` or ``$dynamicAnchor`` (or a draft-03/04
    ``id``) on itself or on any schema node below it (no depth limit; ``dependencies`` too)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if any(k in n.index for k in _ID_KEYS) or (draft in (3, 4) and _is_str(n.get("id"))):
            return True
        stack.extend(child for child, _, _ in _children(n, extra=True))
    return False


def _on_cycle(order: list, edges: dict) -> set:
    """Definition keys that lie on a cycle of the reference graph (iterative Tarjan)."""
    index, low, on_stack, stack, cyclic = {}, {}, set(), [], set()
    counter = 0
    for start in order:
        if start in index:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work = [(start, 0)]
        while work:
            v, i = work[-1]
            succ = edges.get(v, ())
            if i < len(succ):
                work[-1] = (v, i + 1)
                w = succ[i]
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1 or v in succ:
                    cyclic.update(component)
    return cyclic


def _scan(node, skip_root_defs: bool):
    """Refs and copies in one region of the output: ``(refs, copies)`` where ``refs`` are the
    ``(container, name)`` (``name`` None for the container itself) that some remaining local
    ``$ref``/``$dynamicRef``/``$recursiveRef`` anywhere in the region points into, and ``copies``
    the definitions inlined directly in it (not looking inside the copies)."""
    refs, copies = [], []
    stack = [node]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is Copy:
            copies.append(v.key)
        elif t is Obj:
            for k, _, x in v.members:
                if type(x) is str:
                    if k in _REF_KEYS and x[:1] == '"':
                        p = _pointer(_dec(x))
                        if p and p[0] in _DEF_CONTAINERS:
                            refs.append((p[0], p[1] if len(p) > 1 else None))
                elif not (skip_root_defs and v is node and k in _DEF_CONTAINERS):
                    stack.append(x)
        elif t is list:
            stack.extend(x for x in v if type(x) is not str)
    return refs, copies


def _root_defs(root: Obj) -> tuple[dict, list]:
    """The root definitions (``$defs``/``definitions`` members) by ``(container, name)``, and
    their keys in document order."""
    defs: dict = {}
    order: list = []
    for cname, _, container in root.members:
        if cname in _DEF_CONTAINERS and type(container) is Obj:
            for name, _, value in container.members:
                defs[(cname, name)] = value
                order.append((cname, name))
    return defs, order


def _inlinable(root: Obj, defs: dict, order: list, draft: int) -> tuple[set, dict]:
    """The definitions that may be inlined (boolean, or objects off every reference cycle and
    without identity), and the reference graph between definitions: from the eligible refs at
    walked positions outside ``$id`` resources (such a ref resolves against that resource)."""
    entries = _walk(root)
    region: list = [None] * len(entries)
    inside_id: list = [False] * len(entries)
    edges: dict = {}
    for i, (node, _level, _, parent, segs) in enumerate(entries):
        if parent >= 0:
            region[i] = region[parent]
            inside_id[i] = inside_id[parent]
            if parent == 0 and segs[0] in _DEF_CONTAINERS:
                region[i] = segs
            if _opens_resource(node, draft):
                inside_id[i] = True
        ref = _str_value(node.get("$ref"))
        if ref is None or inside_id[i]:
            continue
        target = _def_target(ref)
        if target in defs and region[i] is not None:
            edges.setdefault(region[i], []).append(target)
    cyclic = _on_cycle(order, edges)
    inlinable = set()
    for key in order:
        value = defs[key]
        if value in ("true", "false"):
            inlinable.add(key)
        elif type(value) is Obj and key not in cyclic and not _has_identity(value, draft):
            inlinable.add(key)
    return inlinable, edges


def _drop_inlined(new_root: Obj, order: list, replaced: set, done: dict) -> Obj:
    """``new_root`` without the inlined definitions, except those that a remaining ref (in any
    emitted region: the root, a definition that stays, or a copy) still points into."""
    containers = {k: v for k, _, v in new_root.members if k in _DEF_CONTAINERS and type(v) is Obj}
    in_container = {}
    for cname in _DEF_CONTAINERS:
        if cname in containers:
            for name, _, v in containers[cname].members:
                in_container[(cname, name)] = v
    keep = set()
    needed = set()
    seen = set()
    queue = [None] + [k for k in order if k not in replaced and k in in_container]
    while queue:
        reg = queue.pop()
        if reg in seen:
            continue
        seen.add(reg)
        if reg is None:
            refs, copies = _scan(new_root, True)
        else:
            refs, copies = _scan(done[reg] if reg in done else in_container[reg], False)
        queue.extend(copies)
        for r in refs:
            if r in needed:
                continue
            needed.add(r)
            hits = [r] if r[1] is not None else [k for k in order if k[0] == r[0]]
            for k in hits:
                if k in replaced and k not in keep:
                    keep.add(k)
                    queue.append(k)
    members = []
    for k, kl, v in new_root.members:
        if k in _DEF_CONTAINERS and type(v) is Obj:
            kept = [m for m in v.members if (k, m[0]) not in replaced or (k, m[0]) in keep]
            if len(kept) < len(v.members):
                if not kept:
                    continue
                v = Obj(kept)
        members.append((k, kl, v))
    return Obj(members)


class _Inliner:
    """The rewrite of ``inline_defs``: each reference to an inlinable root definition becomes a
    copy of that definition's rewritten content, in one walk of the schema. ``path`` is the
    walk's position (segments from the root), followed only in legacy drafts.

    >>> root = parse_object('{"$defs":{"A":{"type":"string"}},"items":{"$ref":"#/$defs/A"}}')
    >>> inliner = _Inliner(root, 0)
    >>> inliner.rewrite_definitions(*_root_defs(root), {("$defs", "A")}, {})
    >>> type(inliner.rewrite(root, 0, False, ()).index["items"]).__name__, inliner.created
    ('Copy', [('$defs', 'A')])
    """

    __slots__ = ("draft", "legacy", "through", "done", "created")

    def __init__(self, root: Obj, draft: int) -> None:
        self.draft = draft
        self.legacy = draft != 0  # draft-03/04/06/07: siblings of $ref have no effect
        # Legacy drafts drop the siblings of an inlined $ref: a local pointer that continues into
        # such a sibling would lose its target, so that ref is left alone.
        self.through = _pointer_trie(root) if self.legacy else {}
        self.done: dict = {}  # inlinable key -> its rewritten content (shared by every copy)
        self.created: list = []  # targets of the copies made

    def rewrite_definitions(self, defs: dict, order: list, inlinable: set, edges: dict) -> None:
        """Rewrite the inlinable definitions before anything that copies them (they form a
        DAG): depth first, each after the definitions it refers to."""
        done = self.done
        for start in order:
            if start not in inlinable or start in done:
                continue
            work = [(start, iter([t for t in edges.get(start, ()) if t in inlinable]))]
            pending = {start}
            while work:
                key, successors = work[-1]
                nxt = next(successors, None)
                if nxt is None:
                    work.pop()
                    value = defs[key]
                    done[key] = value if type(value) is str else self.rewrite(value, 1, False, key)
                elif nxt not in done and nxt not in pending:
                    pending.add(nxt)
                    work.append((nxt, iter([t for t in edges.get(nxt, ()) if t in inlinable])))

    def target(self, node: Obj, level: int, path) -> tuple | None:
        """The definition whose copy replaces ``node``'s ``$ref``, or None when it stays."""
        ref = _str_value(node.get("$ref"))
        if ref is None:
            return None
        target = _def_target(ref)
        if target not in self.done:
            return None
        if self.legacy:
            nexts = _trie_at(self.through, path)  # segments that pointers continue with
            if level == 0:
                if self.draft == 3 or any(seg not in _ROOT_KEPT for seg in nexts):
                    return None  # draft-03 has no allOf to wrap the root's copy in
            elif nexts:
                return None
        elif len(node.members) > 1 and "allOf" in node.index and type(node.index["allOf"]) is not list:
            return None
        return target

    def rewrite(self, node: Obj, level: int, inside: bool, path) -> object:
        """``node`` with its inlinable references replaced (``inside``: within an embedded
        resource, where references stay)."""
        if level and not inside and _opens_resource(node, self.draft):
            inside = True
        target = None if inside else self.target(node, level, path)
        if target is None:
            return Obj([(k, kl, self.member(k, v, level, inside, path)) for k, kl, v in node.members])
        copy = Copy(target, self.done[target])
        self.created.append(target)
        if self.legacy:
            return copy if level else self._legacy_root(node, copy, path)
        if len(node.members) == 1 and level:
            return copy
        members = []
        for k, kl, v in node.members:
            if k == "$ref":
                if "allOf" not in node.index:
                    members.append(("allOf", '"allOf"', [copy]))
                continue
            nv = self.member(k, v, level, inside, path)
            if k == "allOf":
                nv = nv + [copy]  # keeps the existing branches' indices
            members.append((k, kl, nv))
        return Obj(members)

    def _legacy_root(self, node: Obj, copy: Copy, path) -> Obj:
        """The root of a legacy-draft schema whose ``$ref`` is inlined: the copy in an
        ``allOf``, and only the root members that draft keeps."""
        members = []
        for k, kl, v in node.members:
            if k == "$ref":
                members.append(("allOf", '"allOf"', [copy]))
            elif k in _ROOT_KEPT:
                members.append((k, kl, self.member(k, v, 0, False, path)))
        return Obj(members)

    def member(self, key: str, value, level: int, inside: bool, path):
        """The value of member ``key`` of a schema at ``level``, rewritten where it holds
        schemas."""
        kind = _KINDS.get(key)
        if kind is None or level >= MAX_SCHEMA_LEVEL:
            return value
        tv = type(value)
        down = level + 1
        legacy = self.legacy
        if tv is Obj:
            if kind == _MAP:
                return self._schema_map(key, value, level, inside, path)
            if kind == _ARRAY:
                return value
            return self.rewrite(value, down, inside, path + (key,) if legacy else None)
        if tv is list and (kind == _ARRAY or kind == _ITEMS):
            return [
                self.rewrite(v, down, inside, path + (key, str(i)) if legacy else None)
                if type(v) is Obj
                else v
                for i, v in enumerate(value)
            ]
        return value

    def _schema_map(self, key: str, value: Obj, level: int, inside: bool, path) -> Obj:
        """A member whose values are schemas (``properties``, ``$defs``, ...): each rewritten;
        a root definition that was inlined keeps its rewritten content."""
        members = []
        for k, kl, v in value.members:
            if level == 0 and key in _DEF_CONTAINERS and (key, k) in self.done:
                nv = self.done[(key, k)]
            elif type(v) is Obj:
                nv = self.rewrite(v, level + 1, inside, path + (key, k) if self.legacy else None)
            else:
                nv = v
            members.append((k, kl, nv))
        return Obj(members)


@perturbation(
    "inline_defs",
    family="schema",
    description="Replace `$ref`s to root definitions with copies of them and drop the "
    "definitions no longer referenced.",
    reasons=("not_json_schema", "no_candidates", "size_limit"),
)
def inline_defs(text: str, rng: Draws) -> Outcome:
    """Inline every non-recursive, identity-free root definition at its references.

    >>> s = '{"$defs":{"Id":{"type":"integer"}},'
    >>> s += '"properties":{"id":{"$ref":"#/$defs/Id","description":"key"}}}'
    >>> inline_defs(s, None).text
    '{"properties":{"id":{"allOf":[{"type":"integer"}],"description":"key"}}}'
    """
    doc, early = _open(text)
    if early:
        return early
    root = doc.root
    defs, order = _root_defs(root)
    if not defs:
        return unchanged(text, "no_candidates")
    inlinable, edges = _inlinable(root, defs, order, doc.draft)
    if not inlinable:
        return unchanged(text, "no_candidates")
    inliner = _Inliner(root, doc.draft)
    inliner.rewrite_definitions(defs, order, inlinable, edges)
    new_root = inliner.rewrite(root, 0, False, ())
    assert type(new_root) is Obj  # the root is never replaced by a Copy
    if not inliner.created:
        return unchanged(text, "no_candidates")
    doc_root = _drop_inlined(new_root, order, set(inliner.created), inliner.done)
    done_text = _emit(doc, doc_root, 4 * len(text))
    if done_text is None:
        return unchanged(text, "size_limit")
    return Outcome(done_text[0], done_text[1])
