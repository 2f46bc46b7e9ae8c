"""The Markdown inline parser of ``strip_markdown`` (docs/spec/catalog.md §7.5): escapes, code spans,
links and images, autolinks and emphasis, found in one scan per line and removed as edits.

>>> dels = []
>>> strip_inline("Use **bold** and `code`.", 0, 24, [], [], None, dels)
2
>>> dels
[(4, 6, ''), (10, 12, ''), (17, 18, ''), (22, 23, '')]
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right

from .. import text as tm


def match_end(pattern: re.Pattern[str], text: str, start: int, end: int) -> int:
    """End of ``pattern``'s match at ``start``, which the caller knows exists (maybe empty)."""
    m = pattern.match(text, start, end)
    assert m is not None, (pattern.pattern, start)
    return m.end()


BACKTICK_RUN = re.compile(r"`+")
WHITESPACE_SET = frozenset(tm.WHITESPACE)
_INLINE_HINT = re.compile(r"[\\`\[<*_]")
_L1 = re.compile(r"[\\`]")
_SPECIAL = re.compile(r"[\\`\[!<*_]")
_BRACKETS = re.compile(r"[\[\]()]")
_DELIM_RUN = re.compile(r"\*+|_+")
_URL_HEAD = re.compile(r"(?i)https?://|ftp://|www\.")
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _wordish(c: str) -> bool:
    return c.isalnum() or (c >= "\u0300" and unicodedata.category(c)[0] == "M")


class _Inline:
    """Inline rules 6–9 of §7.5 on one line remainder ``text[rs:re]``.

    Pass 1 finds escapes and code spans (left to right, as the scan meets them).  Pass 2 walks
    the line as the scan does, without emphasis, to find links, images, autolinks and the
    stretches copied verbatim (URLs and e-mail addresses).  Emphasis closers are then the
    delimiter runs that the scan sees as plain text, grouped by the link label they sit in.
    Pass 3 walks again, now matching emphasis, and records the deletions.  All passes are
    iterative (no recursion) and O(len) up to logarithmic look-ups.
    """

    __slots__ = (
        "text",
        "rs",
        "re",
        "glue",
        "url_starts",
        "url_ends",
        "url_kind",
        "esc",
        "code",
        "opaque_s",
        "opaque_e",
        "links",
        "autolinks",
        "verbatim",
        "removed",
        "labels",
        "label_id",
        "closers",
        "dels",
        "edits",
    )

    def __init__(self, text, rs, re_, urls, glue, dels):
        self.text, self.rs, self.re, self.glue, self.dels = text, rs, re_, glue, dels
        self.url_starts = [u[0] for u in urls]
        self.url_ends = [u[1] for u in urls]
        self.url_kind = [bool(_URL_HEAD.match(text, u[0])) for u in urls]
        self.edits = 0

    def ok(self, *pos: int) -> bool:
        g = self.glue
        return g is None or not any(g[p] for p in pos)

    def in_url(self, x: int) -> bool:
        i = bisect_right(self.url_starts, x) - 1
        return i >= 0 and x < self.url_ends[i]

    # -- pass 1: escapes and code spans -----------------------------------------------------
    def lex(self) -> None:
        text, rs, re_ = self.text, self.rs, self.re
        runs_by_len: dict[int, list[int]] = {}
        if text.find("`", rs, re_) != -1:
            for run in BACKTICK_RUN.finditer(text, rs, re_):
                if not self.in_url(run.start()):
                    runs_by_len.setdefault(run.end() - run.start(), []).append(run.start())
        esc: set[int] = set()
        code: dict[int, tuple[int, int]] = {}
        opaque: list[tuple[int, int]] = []
        p = rs
        while p < re_:
            m = _L1.search(text, p, re_)
            if m is None:
                break
            x = m.start()
            i = bisect_right(self.url_starts, x) - 1
            if i >= 0 and x < self.url_ends[i]:
                p = self.url_ends[i]
                continue
            if text[x] == "\\":
                if x + 1 < re_ and text[x + 1] in _PUNCT and self.ok(x, x + 1):
                    esc.add(x)
                    opaque.append((x + 1, x + 2))
                    p = x + 2
                else:
                    p = x + 1
                continue
            z = match_end(BACKTICK_RUN, text, x, re_)
            n = z - x
            lst = runs_by_len.get(n)
            q = -1
            if lst:
                k = bisect_left(lst, z)
                if k < len(lst):
                    q = lst[k]
            if q != -1 and self.ok(x, z, q, q + n):
                code[x] = (q + n, n)
                opaque.append((x, q + n))
                p = q + n
            else:
                p = z
        self.esc, self.code = esc, code
        self.opaque_s = [a for a, _ in opaque]
        self.opaque_e = [b for _, b in opaque]

    def opaque(self, x: int) -> bool:
        i = bisect_right(self.opaque_s, x) - 1
        return i >= 0 and x < self.opaque_e[i]

    # -- pass 2: links and verbatim stretches -----------------------------------------------
    def structure(self) -> None:
        text, rs, re_ = self.text, self.rs, self.re
        match_br: dict[int, int] = {}
        match_par: dict[int, int] = {}
        if text.find("[", rs, re_) != -1:
            sb: list[int] = []
            sp: list[int] = []
            for m in _BRACKETS.finditer(text, rs, re_):
                x = m.start()
                if self.opaque(x):
                    continue
                c = text[x]
                if c == "[":
                    sb.append(x)
                elif c == "]":
                    if sb:
                        match_br[sb.pop()] = x
                elif c == "(":
                    sp.append(x)
                elif sp:
                    match_par[sp.pop()] = x
        self.links: dict[int, tuple[int, int, int]] = {}  # start ('[' or '!') -> (lb, j, k)
        self.autolinks: dict[int, int] = {}
        self.verbatim: list[tuple[int, int]] = []
        self.removed: list[tuple[int, int]] = []  # link brackets and targets
        self.labels: list[tuple[int, int, int]] = []
        self.label_id: dict[int, int] = {}

        def link_at(lb: int, b: int, x: int) -> bool:
            j = match_br.get(lb)
            if j is None or j + 1 >= b or text[j + 1] != "(":
                return False
            k = match_par.get(j + 1)
            if k is None or k >= b or not self.ok(x, lb + 1, j, k + 1):
                return False
            self.links[x] = (lb, j, k)
            return True

        stack: list[tuple[int, int]] = []
        p, b = rs, re_
        while True:
            if p >= b:
                if not stack:
                    break
                p, b = stack.pop()
                continue
            x = self._next(p, b)
            if x < 0:
                p = -x
                continue
            c = text[x]
            if c == "\\":
                p = x + 2 if x in self.esc else x + 1
            elif c == "`":
                sp_ = self.code.get(x)
                p = sp_[0] if sp_ else match_end(BACKTICK_RUN, text, x, b)
            elif c == "[" or c == "!":
                lb = x if c == "[" else x + 1
                if (c == "[" or (lb < b and text[lb] == "[")) and link_at(lb, b, x):
                    j, k = self.links[x][1:]
                    self.removed.append((x, lb + 1))
                    self.removed.append((j, k + 1))
                    lid = len(self.labels) + 1
                    self.labels.append((lb + 1, j, lid))
                    self.label_id[x] = lid
                    stack.append((k + 1, b))
                    p, b = lb + 1, j
                else:
                    p = x + 1
            elif c == "<":
                i = bisect_left(self.url_starts, x + 1)
                if (
                    i < len(self.url_starts)
                    and self.url_starts[i] == x + 1
                    and self.url_kind[i]
                    and self.url_ends[i] < b
                    and text[self.url_ends[i]] == ">"
                    and self.ok(x, x + 1, self.url_ends[i], self.url_ends[i] + 1)
                ):
                    ue = self.url_ends[i]
                    self.autolinks[x] = ue
                    self.removed.append((x, x + 1))
                    self.verbatim.append((x + 1, ue))
                    self.removed.append((ue, ue + 1))
                    p = ue + 1
                else:
                    p = x + 1
            else:  # * or _
                p = match_end(_DELIM_RUN, text, x, b)

    def _next(self, p: int, b: int) -> int:
        """The next special position in ``[p, b)``; a URL met first is copied verbatim and
        the position after it is returned negated (so is ``-b`` when nothing is left)."""
        m = _SPECIAL.search(self.text, p, b)
        x = m.start() if m is not None else b
        i = bisect_left(self.url_starts, p)
        if i < len(self.url_starts) and self.url_starts[i] < b and self.url_starts[i] <= x:
            end = min(self.url_ends[i], b)
            if self.verbatim is not None:
                self.verbatim.append((self.url_starts[i], end))
            return -end
        return x if m is not None else -b

    # -- emphasis closers -------------------------------------------------------------------
    def find_closers(self) -> None:
        text, rs, re_ = self.text, self.rs, self.re
        self.closers: dict[tuple[str, int, int], list[int]] = {}
        if text.find("*", rs, re_) == -1 and text.find("_", rs, re_) == -1:
            return
        blocked = sorted(self.verbatim + self.removed + list(zip(self.opaque_s, self.opaque_e)))
        bs = [a for a, _ in blocked]
        be = []
        hi = -1
        for _, e in blocked:  # running maximum of ends makes a prefix test exact
            hi = max(hi, e)
            be.append(hi)
        labels = self.labels
        li = 0
        st: list[tuple[int, int]] = []
        for m in _DELIM_RUN.finditer(text, rs, re_):
            a, z = m.span()
            i = bisect_right(bs, a) - 1
            if i >= 0 and a < be[i]:
                # Inside a blocked stretch.  Only an escaped first character can leave the
                # rest of the run open; nothing else splits a run.
                a = be[i]
                if a >= z:
                    continue
            while st and st[-1][0] <= a:
                st.pop()
            while li < len(labels) and labels[li][0] <= a:
                ls, le, lid = labels[li]
                li += 1
                while st and st[-1][0] <= ls:
                    st.pop()
                if a < le:
                    st.append((le, lid))
            cont = st[-1][1] if st else 0
            c = text[a]
            # A closer is a whole run of 1-3 '*' or 1-2 '_', preceded by non-whitespace.
            if z - a > (3 if c == "*" else 2) or a - 1 < rs or text[a - 1] in WHITESPACE_SET:
                continue
            if self._outer_right(z) and (c == "_" or _wordish(text[a - 1])):
                continue
            if self.ok(a, z):
                self.closers.setdefault((c, z - a, cont), []).append(a)

    def _outer_right(self, z: int) -> bool:
        text, re_ = self.text, self.re
        if z >= re_:
            return False
        c = text[z]
        return _wordish(c) or (c in ".:" and z + 1 < re_ and text[z + 1].isalnum())

    def _outer_left(self, x: int) -> bool:
        text, rs = self.text, self.rs
        if x <= rs:
            return False
        c = text[x - 1]
        return _wordish(c) or (c in ".:" and x - 2 >= rs and text[x - 2].isalnum())

    # -- pass 3: the scan proper ------------------------------------------------------------
    def scan(self) -> None:
        text, dels = self.text, self.dels
        self.verbatim = None  # type: ignore[assignment]  # recorded in pass 2 already
        stack: list[tuple[int, int, int]] = []
        p, b, cont = self.rs, self.re, 0
        while True:
            if p >= b:
                if not stack:
                    break
                p, b, cont = stack.pop()
                continue
            x = self._next(p, b)
            if x < 0:
                p = -x
                continue
            c = text[x]
            if c == "\\":
                if x in self.esc:
                    dels.append((x, x + 1, ""))
                    self.edits += 1
                    p = x + 2
                else:
                    p = x + 1
            elif c == "`":
                sp = self.code.get(x)
                if sp:
                    end, n = sp
                    dels.append((x, x + n, ""))
                    dels.append((end - n, end, ""))
                    self.edits += 1
                    p = end
                else:
                    p = match_end(BACKTICK_RUN, text, x, b)
            elif c == "[" or c == "!":
                lk = self.links.get(x)
                if lk is not None and lk[2] < b:
                    lb, j, k = lk
                    dels.append((x, lb + 1, ""))
                    dels.append((j, k + 1, ""))
                    self.edits += 1
                    stack.append((k + 1, b, cont))
                    p, b, cont = lb + 1, j, self.label_id[x]
                else:
                    p = x + 1
            elif c == "<":
                ue = self.autolinks.get(x)
                if ue is not None and ue < b:
                    dels.append((x, x + 1, ""))
                    dels.append((ue, ue + 1, ""))
                    self.edits += 1
                    p = ue + 1
                else:
                    p = x + 1
            else:
                z = match_end(_DELIM_RUN, text, x, b)
                matched = False
                # Flanking is judged on the whole run: the character after it must be
                # non-whitespace, and the outer side must not be (word-like) alphanumeric.
                if (
                    z < b
                    and text[z] not in WHITESPACE_SET
                    and self.ok(x)
                    and not (self._outer_left(x) and (c == "_" or _wordish(text[z])))
                ):
                    for L in range(min(z - x, 3 if c == "*" else 2), 0, -1):
                        lst = self.closers.get((c, L, cont))
                        if not lst:
                            continue
                        i = bisect_left(lst, z)
                        if i == len(lst):
                            continue
                        q = lst[i]
                        if q + L > b or not self.ok(x + L):
                            continue
                        dels.append((x, x + L, ""))
                        dels.append((q, q + L, ""))
                        self.edits += 1
                        stack.append((q + L, b, cont))
                        p, b = x + L, q
                        matched = True
                        break
                if not matched:
                    p = z


def strip_inline(
    text: str, rs: int, re_: int, urls: list[tuple[int, int]], url_starts: list[int], glue, dels: list
) -> int:
    """Apply inline rules 6–9 to ``text[rs:re_]``; return the number of occurrences removed."""
    if rs >= re_ or _INLINE_HINT.search(text, rs, re_) is None:
        return 0
    lo = bisect_right(url_starts, rs) - 1
    lo = max(lo, 0)
    hi = bisect_left(url_starts, re_)
    local = [(max(s, rs), min(e, re_)) for s, e in urls[lo:hi] if e > rs and s < re_]
    sc = _Inline(text, rs, re_, local, glue, dels)
    sc.lex()
    sc.structure()
    sc.find_closers()
    sc.scan()
    return sc.edits
