"""formatting family (docs/spec/catalog.md §7): extra_whitespace, tabs_for_spaces, line_wrap,
markdown_wrap, strip_markdown, bullet_reformat."""

import re
import sys

import pytest
from helpers import NoDraws, run
from hypothesis import given, settings
from hypothesis import strategies as st

from perturber import native, registry
from perturber import text as tm
from perturber.errors import InvalidParams
from perturber.perturbations import formatting
from perturber.text import cluster_spans

NAMES = [
    "extra_whitespace",
    "tabs_for_spaces",
    "line_wrap",
    "markdown_wrap",
    "strip_markdown",
    "bullet_reformat",
]


# --------------------------------------------------------------------------------------------
# Declarations and shared reasons
# --------------------------------------------------------------------------------------------


def test_declarations_match_catalog_table():
    rows = {s.name: s for s in registry.entries() if s.family == "formatting"}
    assert sorted(rows) == sorted(NAMES)
    for name, spec in rows.items():
        assert spec.in_scope and spec.expectation == "invariant" and not spec.model_backed
        assert spec.seed_sensitive == (name == "extra_whitespace")
    assert rows["extra_whitespace"].intensity == "rate"
    assert rows["extra_whitespace"].defaults == {"rate": 0.3}
    assert rows["line_wrap"].intensity == "width"
    assert rows["line_wrap"].defaults == {"width": 40}
    (w,) = rows["line_wrap"].params
    assert (w.type, w.ge, w.le) == (int, 10, 1000)
    (m,) = rows["bullet_reformat"].params
    assert (m.default, m.choices) == ("-", ("-", "*", "+"))
    for name in ("tabs_for_spaces", "markdown_wrap", "strip_markdown"):
        assert rows[name].params == () and rows[name].intensity is None


@pytest.mark.parametrize("name", NAMES)
def test_empty_input(name):
    r = run("", name)
    assert (r.text, r.applied, r.reason, r.edits) == ("", False, "empty_input", 0)


def test_extra_whitespace_zero_intensity():
    r = run("a b c", "extra_whitespace", {"rate": 0})
    assert (r.text, r.reason) == ("a b c", "zero_intensity")


@pytest.mark.parametrize(
    "name,params",
    [
        ("extra_whitespace", {"rate": 1.5}),
        ("extra_whitespace", {"rate": 0.00005}),
        ("extra_whitespace", {"rate": True}),
        ("line_wrap", {"width": 9}),
        ("line_wrap", {"width": 1001}),
        ("line_wrap", {"width": 20.0}),
        ("bullet_reformat", {"marker": "•"}),
        ("bullet_reformat", {"marker": "1."}),
        ("markdown_wrap", {"fence": "~"}),
    ],
)
def test_parameter_validation(name, params):
    with pytest.raises(InvalidParams):
        run("text", name, params)


@pytest.mark.parametrize("name", [n for n in NAMES if n != "extra_whitespace"])
def test_seed_insensitive_entries_make_no_draws(name):
    spec = registry.get(name)
    text = "## T\n\n1. a  b **c**\n2. d e f g h i j k l m n o p q r s t u v w x y z\n    x  y\n"
    out = spec.function(text, NoDraws(), **spec.defaults)
    assert out.text != text
    assert run(text, name, seed=0).text == run(text, name, seed=987654321).text


def test_re_whitespace_class_is_str_isspace():
    # The module relies on ``\s`` in ``re`` being exactly §1.5's whitespace.
    pat = re.compile(r"\s")
    bad = [
        c
        for c in range(sys.maxunicode + 1)
        if not 0xD800 <= c <= 0xDFFF and bool(pat.match(chr(c))) != chr(c).isspace()
    ]
    assert bad == []


# --------------------------------------------------------------------------------------------
# 7.1 extra_whitespace
# --------------------------------------------------------------------------------------------


def test_extra_whitespace_catalog_example():
    text = "Which of these objects is opaque?"
    r = run(text, "extra_whitespace", {"rate": 0.3}, seed=0)
    assert r.applied and r.edits == 2  # 5 gaps, k = 2
    assert r.text.count("  ") == 2
    assert r.text.replace("  ", " ") == text


def test_extra_whitespace_rate_one_doubles_every_candidate():
    r = run("a b, c.d e", "extra_whitespace", {"rate": 1.0})
    assert (r.text, r.edits) == ("a  b,  c.d  e", 3)


def test_extra_whitespace_seeded():
    text = " ".join(f"w{i}" for i in range(60))
    outs = {run(text, "extra_whitespace", {"rate": 0.5}, seed=s).text for s in range(6)}
    assert len(outs) > 1
    assert (
        run(text, "extra_whitespace", {"rate": 0.5}, seed=3).text
        == run(text, "extra_whitespace", {"rate": 0.5}, seed=3).text
    )
    for out in outs:
        assert out.count("  ") == 30 and out.replace("  ", " ") == text


def test_extra_whitespace_must_not_touch_indentation():
    text = "  a b\n    c d\n"
    r = run(text, "extra_whitespace", {"rate": 1.0})
    assert r.text == "  a  b\n    c  d\n"


def test_extra_whitespace_must_not_touch_wider_runs_tabs_or_line_breaks():
    assert run("a  b", "extra_whitespace", {"rate": 1.0}).reason == "no_candidates"
    assert run("a\tb\nc\r\nd", "extra_whitespace", {"rate": 1.0}).reason == "no_candidates"
    assert run("a \tb", "extra_whitespace", {"rate": 1.0}).reason == "no_candidates"
    r = run("a  b c\td\ne f", "extra_whitespace", {"rate": 1.0})
    assert r.text == "a  b  c\td\ne  f"


def test_extra_whitespace_must_not_touch_code():
    text = "x `a b` y\n```\nc d\n```\nz w"
    r = run(text, "extra_whitespace", {"rate": 1.0})
    assert r.text == "x  `a b`  y\n```\nc d\n```\nz  w"


def test_extra_whitespace_protected_urls_and_emails_untouched():
    text = "see https://x.io/a?b=c and mail a.b@c.de now"
    r = run(text, "extra_whitespace", {"rate": 1.0})
    assert "https://x.io/a?b=c" in r.text and "a.b@c.de" in r.text and r.edits == 5


def test_extra_whitespace_no_candidates():
    assert run("word", "extra_whitespace").reason == "no_candidates"
    assert run("   ", "extra_whitespace").reason == "no_candidates"


def test_extra_whitespace_keeps_clusters():
    # the space carrying a combining mark stays its base; the new space goes before it
    r = run("a \u0301b", "extra_whitespace", {"rate": 1.0})
    assert r.text == "a  \u0301b"
    # a space glued to a ZWJ and carrying a mark cannot be doubled at a cluster boundary
    assert run("a\u200d \u0301", "extra_whitespace", {"rate": 1.0}).reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 7.2 tabs_for_spaces
# --------------------------------------------------------------------------------------------


def test_tabs_for_spaces_catalog_example():
    r = run("a  b c\n      indented text", "tabs_for_spaces")
    assert r.text == "a\tb\tc\n\t  indented\ttext"
    assert r.edits == 4


def test_tabs_for_spaces_leading_groups_of_four():
    r = run("        x\n     y\n   z", "tabs_for_spaces")
    assert r.text == "\t\tx\n\t y\n   z" and r.edits == 2
    assert run("   z", "tabs_for_spaces").reason == "no_candidates"


def test_tabs_for_spaces_must_not_change_code_block_indentation():
    text = "```\n    def f():\n        return  1\n```\n    after  code\nuse `a  b` here"
    r = run(text, "tabs_for_spaces")
    assert r.text == "```\n    def f():\n        return  1\n```\n\tafter\tcode\nuse\t`a  b`\there"


def test_tabs_for_spaces_must_not_touch_trailing_spaces_or_line_breaks():
    text = "a b   \r\n    \r\nc\r\n"
    r = run(text, "tabs_for_spaces")
    assert r.text == "a\tb   \r\n    \r\nc\r\n"
    assert run("x   \n   \n", "tabs_for_spaces").reason == "no_candidates"


def test_tabs_for_spaces_only_u0020_runs():
    assert run("a\u00a0b\u3000c\td", "tabs_for_spaces").reason == "no_candidates"


# --------------------------------------------------------------------------------------------
# 7.3 line_wrap
# --------------------------------------------------------------------------------------------


def test_line_wrap_catalog_example():
    r = run("The quick brown fox jumps over the lazy dog.", "line_wrap", {"width": 20})
    assert r.text == "The quick brown fox\njumps over the lazy\ndog."
    assert r.edits == 2


def test_line_wrap_default_width_40():
    text = "one two three four five six seven eight nine ten eleven twelve"
    r = run(text, "line_wrap")
    assert r.text == "one two three four five six seven eight\nnine ten eleven twelve"


def test_line_wrap_hanging_indent_and_quote_prefix():
    w = {"width": 20}
    assert (
        run("- alpha beta gamma delta epsilon zeta", "line_wrap", w).text
        == "- alpha beta gamma\n  delta epsilon zeta"
    )
    assert (
        run("  12. alpha beta gamma delta epsilon", "line_wrap", w).text
        == "  12. alpha beta\n      gamma delta\n      epsilon"
    )
    assert (
        run("(a) alpha beta gamma delta epsilon", "line_wrap", w).text
        == "(a) alpha beta gamma\n    delta epsilon"
    )
    assert (
        run("> > alpha beta gamma delta epsilon", "line_wrap", w).text
        == "> > alpha beta gamma\n> > delta epsilon"
    )
    assert (
        run("    plain alpha beta gamma delta", "line_wrap", w).text
        == "    plain alpha beta\n    gamma delta"
    )


def test_line_wrap_wide_prefix_is_dropped():
    # a 10-space indent is at least width / 2 for width 20: continuation lines get no prefix
    r = run("          alpha beta gamma delta", "line_wrap", {"width": 20})
    assert r.text == "          alpha beta\ngamma delta"


def test_line_wrap_uses_text_newline_style():
    r = run("x\r\nalpha beta gamma delta epsilon", "line_wrap", {"width": 12})
    assert r.text == "x\r\nalpha beta\r\ngamma delta\r\nepsilon"


def test_line_wrap_must_not_break_inside_word_url_or_code():
    text = (
        "see supercalifragilisticexpialidocious and https://example.com/a/very/long/path "
        "or `code with spaces inside` end"
    )
    r = run(text, "line_wrap", {"width": 10})
    assert r.text.split("\n") == [
        "see",
        "supercalifragilisticexpialidocious",
        "and",
        "https://example.com/a/very/long/path",
        "or",
        "`code with spaces inside`",
        "end",
    ]


def test_line_wrap_must_not_remove_existing_line_breaks():
    text = "alpha beta gamma\n\nshort\ndelta epsilon zeta eta\n"
    r = run(text, "line_wrap", {"width": 10})
    assert r.text == "alpha beta\ngamma\n\nshort\ndelta\nepsilon\nzeta eta\n"
    assert r.text.count("\n") == text.count("\n") + r.edits


def test_line_wrap_must_not_wrap_code_tables_or_headings():
    text = (
        "```\nthis code line is long enough to wrap\n```\n| a | b | c | d | e | f |\n"
        "# a heading that is long enough to wrap\nAnswer:"
    )
    assert run(text, "line_wrap", {"width": 10}).reason == "no_candidates"


def test_line_wrap_keeps_trailing_whitespace_on_the_last_line():
    r = run("alpha beta gamma delta   \nx", "line_wrap", {"width": 10})
    assert r.text == "alpha beta\ngamma\ndelta   \nx"
    assert run("short line             ", "line_wrap", {"width": 10}).reason == "no_change"


def test_line_wrap_no_candidates():
    assert run("short", "line_wrap", {"width": 10}).reason == "no_candidates"
    assert run("averyveryverylongwordwithoutspaces", "line_wrap", {"width": 10}).reason == "no_candidates"
    assert run("- averyveryverylongword", "line_wrap", {"width": 10}).reason == "no_candidates"


def test_line_wrap_counts_clusters():
    e = "cafe\u0301"  # 5 code points, 4 clusters
    r = run(" ".join([e] * 5), "line_wrap", {"width": 10})
    assert r.text == f"{e} {e}\n{e} {e}\n{e}"


def test_line_wrap_lines_fit_unless_one_chunk():
    words = [("x" * (i % 7 + 1)) for i in range(200)]
    text = " ".join(words)
    for width in (10, 17, 33):
        r = run(text, "line_wrap", {"width": width})
        for line in r.text.split("\n"):
            assert len(line) <= width or " " not in line
        assert r.text.replace("\n", " ") == text


# --------------------------------------------------------------------------------------------
# 7.4 markdown_wrap
# --------------------------------------------------------------------------------------------


def test_markdown_wrap_catalog_example():
    r = run("print(1)", "markdown_wrap")
    assert (r.text, r.edits) == ("```\nprint(1)\n```", 1)


def test_markdown_wrap_trailing_line_break_and_crlf():
    assert run("a\n", "markdown_wrap").text == "```\na\n```"
    assert run("a\r\nb", "markdown_wrap").text == "```\r\na\r\nb\r\n```"
    assert run("a\r\nb\r\n", "markdown_wrap").text == "```\r\na\r\nb\r\n```"


def test_markdown_wrap_must_not_let_inner_fences_close_early():
    text = "Run:\n```\nx = 1\n```\nthen ````` done"
    r = run(text, "markdown_wrap")
    assert r.text == "``````\n" + text + "\n``````"
    assert run("a `` b", "markdown_wrap").text == "```\na `` b\n```"
    assert run("```", "markdown_wrap").text == "````\n```\n````"


# --------------------------------------------------------------------------------------------
# 7.5 strip_markdown
# --------------------------------------------------------------------------------------------


def sm(text):
    return run(text, "strip_markdown")


def test_strip_markdown_catalog_example():
    text = "## Setup\n\n1. Install **my_tool** via `pip`.\n2. See [docs](https://x.io).\n\nCompute 2*3*4."
    r = sm(text)
    assert r.text == "Setup\n\nInstall my_tool via pip.\nSee docs.\n\nCompute 2*3*4."
    assert r.edits == 6  # heading, 2 list markers, bold, code, link


def test_strip_markdown_must_not_destroy_identifiers_and_products():
    text = "Use snake_case, edit __init__.py, compute 2*3*4 and a*b*c."
    r = sm(text)
    assert (r.text, r.reason) == (text, "no_candidates")
    assert sm("x_y_z and my_var_name").reason == "no_candidates"


def test_strip_markdown_must_not_remove_blank_lines():
    text = "# A\n\n\n**b**\n   \n\t\nc\n\n"
    assert sm(text).text == "A\n\n\nb\n   \n\t\nc\n\n"


def test_strip_markdown_fences_removed_content_verbatim():
    text = "Intro\n```py\nx = **1**  # `a`\n    [k](v)\n```\nafter *it*"
    r = sm(text)
    assert r.text == "Intro\nx = **1**  # `a`\n    [k](v)\nafter it"
    assert r.edits == 3


def test_strip_markdown_removed_last_line_takes_the_break_before_it():
    assert sm("text\n```\ncode\n```").text == "text\ncode"
    assert sm("text\n~~~\ncode\n~~~\n").text == "text\ncode\n"
    assert sm("x\n```\n```").text == "x"


def test_strip_markdown_headings():
    assert sm("# Title #\n## C# ##\n###### Six\n# Use C#").text == "Title\nC#\nSix\nUse C#"
    assert sm("####### seven").reason == "no_candidates"
    assert sm("#hashtag").reason == "no_candidates"


def test_strip_markdown_setext_and_thematic_breaks():
    text = "Title\n=====\n\nSub\n---\n\n***\n- - -\n___"
    r = sm(text)
    assert r.text == "Title\n\nSub\n\n\n\n"
    assert r.edits == 5
    # a dash line below a blank line is a thematic break, not an underline
    assert sm("a\n\n---\nb").text == "a\n\n\nb"


def test_strip_markdown_quotes_and_lists():
    text = "> > nested *q*\n>plain\n- [ ] task\n- [x] done\n  * nested\n10) ten\n+ plus"
    r = sm(text)
    assert r.text == "nested q\nplain\ntask\ndone\n  nested\nten\nplus"
    assert r.edits == 3 + 1 + 2 + 2 + 1 + 1 + 1


def test_strip_markdown_links_images_autolinks():
    assert sm('![alt *t*](img.png "title") x').text == "alt t x"
    assert sm("[a [b] c](u(v)w) tail").text == "a [b] c tail"
    assert sm("[http://x.io](http://x.io)").text == "http://x.io"
    assert sm("see <https://x.io/a> now").text == "see https://x.io/a now"
    assert sm("**[docs](https://x.io)**").text == "docs"
    assert sm("[no target] and [x](unclosed").reason == "no_candidates"


def test_strip_markdown_emphasis_forms():
    assert sm("***bi*** **b** __b__ *i* _i_").text == "bi b b i i"
    assert sm("*a **b** c*").text == "a b c"
    assert sm("**bold**: text *it*.").text == "bold: text it."
    # flanking: whitespace inside the delimiters, or a run glued to words, is literal
    for text in ["a * b * c", "x**2 + y**2", "f(*args, **kwargs)", "*.txt and *.py", "*a*b"]:
        assert sm(text).reason == "no_candidates", text


def test_strip_markdown_inline_code_and_escapes():
    r = sm("a ``b ` *c*`` d \\*e\\* \\\\ f")
    assert r.text == "a b ` *c* d *e* \\ f"
    assert sm("unmatched ` tick and \\q").reason == "no_candidates"


def test_strip_markdown_urls_and_emails_change_only_through_links():
    text = "Go to https://x.io/*a*_b_\\_c and mail __a__b@c.de"
    assert sm(text).reason == "no_candidates"
    assert sm("Visit **https://x.io/a** now").reason == "no_candidates"


def test_strip_markdown_keeps_line_endings():
    assert sm("# A\r\n\r\n- b\r\n```\r\nc\r\n```\r\n").text == "A\r\n\r\nb\r\nc\r\n"


def test_strip_markdown_no_candidates():
    assert sm("Just a plain question about cats?").reason == "no_candidates"


def test_strip_markdown_output_is_subsequence_of_input():
    text = "# T #\n> - [x] **a** _b_ `c` [d](e) ![f](g) <https://h.io> \\*\n```\nk\n```\n1. z\n---\n"
    out = sm(text).text
    it = iter(text)
    assert all(c in it for c in out)


# --------------------------------------------------------------------------------------------
# 7.6 bullet_reformat
# --------------------------------------------------------------------------------------------


def test_bullet_reformat_catalog_example():
    r = run("Steps:\n1. Mix\n2) Bake\n\nA. Option", "bullet_reformat")
    assert (r.text, r.edits) == ("Steps:\n- Mix\n- Bake\n\nA. Option", 2)


@pytest.mark.parametrize("marker", ["-", "*", "+"])
def test_bullet_reformat_markers_keep_following_whitespace(marker):
    r = run("1.\tMix\n2)   Bake", "bullet_reformat", {"marker": marker})
    assert r.text == f"{marker}\tMix\n{marker}   Bake"


def test_bullet_reformat_groups_by_indentation():
    text = "1. a\n   1. b\n2. c\n  3. d"
    r = run(text, "bullet_reformat")
    assert r.text == "- a\n   1. b\n- c\n  3. d"


def test_bullet_reformat_must_not_convert_lettered_options():
    text = "A. one\nB. two\nb) three\n(c) four"
    assert run(text, "bullet_reformat").reason == "no_candidates"


def test_bullet_reformat_must_not_convert_lone_numbered_line():
    assert run("1999. It was a good year.\n2000. So was this.", "bullet_reformat").reason == "no_candidates"
    assert run("Intro\n1. Only one step here.", "bullet_reformat").reason == "no_candidates"


def test_bullet_reformat_must_not_touch_code_blocks():
    text = "```\n1. a\n2. b\n```\n3. c"
    assert run(text, "bullet_reformat").reason == "no_candidates"
    text2 = "1. x\n```\n2. a\n```\n3. c"
    assert run(text2, "bullet_reformat").text == "- x\n```\n2. a\n```\n- c"


# --------------------------------------------------------------------------------------------
# All entries: clusters and arbitrary input
# --------------------------------------------------------------------------------------------

NASTY = [
    "a\u200d \u0301b  c\n    \u0301x",
    "👨‍👩‍👧 👍🏽 🇫🇷 *x*",
    "\r\n\r# \u202e\n- \u0301a",
    "\x00 \x1c \x85 \u2028 x",
    "*\u0301a*\u0301",
    "`\u0301` [\u0301](\u0301)",
    "_" * 50 + "*" * 50 + "[" * 30 + "(" * 30,
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", NASTY)
def test_never_splits_clusters(name, text):
    params = {"rate": 1.0} if name == "extra_whitespace" else ({"width": 10} if name == "line_wrap" else {})
    r = run(text, name, params, seed=5)
    before = {text[s:e] for s, e in cluster_spans(text)}
    for s, e in cluster_spans(r.text):
        c = r.text[s:e]
        if e - s > 1 and c != "\r\n" or c in ("\u0301", "\u200d"):
            assert c in before, (name, text, r.text, c)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", " ", "  ", "    ", "\n", "\t", "é", "x\u0301", "`c d`", "\u00a0"]), max_size=20
    ).map("".join)
)
def test_tabs_for_spaces_substitution_is_the_edit_loop(text):
    """The one-substitution path of tabs_for_spaces (no cluster joins, no protection, no line
    led by 4 spaces) gives the text of the edit loop."""
    if (
        formatting._cluster_starts(text) is None
        and not (text.startswith("    ") or "\n    " in text)
        and not formatting._protected(text)
    ):
        assert formatting._INNER_RUN.sub("\t", text) == tm.splice(text, formatting._tab_edits(text))


wrap_lines = st.lists(
    st.sampled_from(["a", "bb", "ccc", "dddddddd", "x" * 25, " ", " ", "  ", "   ", "é", "’", "."]),
    max_size=40,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(wrap_lines, st.integers(10, 40), st.integers(0, 8), st.integers(0, 3))
def test_line_wrap_jumps_to_the_breaks_the_scan_finds(line, width, pw, indent):
    """The breaks found by searching for the run past each line's width are those of the
    run-by-run scan, for lines whose horizontal whitespace is U+0020."""
    text = " " * indent + line
    first = re.compile(r"\S").search(text)
    if first is None:
        return
    last = len(text.rstrip())
    runs = formatting._runs(text, first.end(), len(text), tm.Spans(), None)
    scan = formatting._scan_breaks(runs, None, 0, last, width, pw) if runs else []
    assert formatting._jump_breaks(text, 0, first.end(), last, width, pw) == scan
    if native.c is not None and text.isascii():  # the C twin, on an ASCII text's bytes
        assert native.c.wrap_breaks(text.encode("ascii"), 0, first.end(), last, width, pw) == scan
