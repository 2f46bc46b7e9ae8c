/* perturber._native: optional C versions of a few hot loops of the deterministic tier.
 *
 * Every function here has a pure-Python twin that defines it (named in its docstring); the
 * package uses the twin whenever this module is missing, and tests/test_native.py compares the
 * two on generated texts. The functions read a plain text's view (perturber.text.bits.view:
 * ASCII bytes of the text's length with its token structure) and, for draws, the 32-bit words
 * of a perturber.rng.Draws batch; they never hold state between calls.
 *
 * Built against the stable ABI of Python 3.11 (one abi3 module for 3.11 and later).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A view byte's classes (perturber.text.byte_lanes.class_table with the typo bits). */
enum { WORD = 1, JOINER = 2, BINDER = 4, DOT = 8, DIGIT = 16, UPPER = 32 };
static unsigned char CLASSES[256];

static void init_classes(void)
{
    const char *binders = "_/\\@#$%&=+<>|^~[]{}";
    for (int c = '0'; c <= '9'; c++) CLASSES[c] = WORD | DIGIT;
    for (int c = 'a'; c <= 'z'; c++) CLASSES[c] = WORD;
    for (int c = 'A'; c <= 'Z'; c++) CLASSES[c] = WORD | UPPER;
    CLASSES['\''] = CLASSES['-'] = JOINER;
    for (const char *p = binders; *p; p++) CLASSES[(unsigned char)*p] = BINDER;
    CLASSES['.'] = CLASSES[':'] = DOT;
}

#define IS(c, cls) (CLASSES[(unsigned char)(c)] & (cls))

static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }

/* The end of the token that starts at the word character v[s] (§1.6 in a view: word characters
 * and joiners with a word character on both sides). */
static Py_ssize_t token_end(const char *v, Py_ssize_t n, Py_ssize_t s)
{
    Py_ssize_t q = s + 1;
    for (;;) {
        if (q < n && IS(v[q], WORD))
            q++;
        else if (q + 1 < n && IS(v[q], JOINER) && IS(v[q + 1], WORD))
            q += 2;
        else
            return q;
    }
}

/* A token starts at v[s]: a word character that no token lane precedes. */
static int is_token_start(const char *v, Py_ssize_t s)
{
    return IS(v[s], WORD) && !(s > 0 && (IS(v[s - 1], WORD)
                                         || (IS(v[s - 1], JOINER) && s >= 2 && IS(v[s - 2], WORD))));
}

/* The next token at or after p: its start (n when there is none), its end in *end. */
static Py_ssize_t next_token(const char *v, Py_ssize_t n, Py_ssize_t p, Py_ssize_t *end)
{
    while (p < n && !IS(v[p], WORD))
        p++;
    *end = p < n ? token_end(v, n, p) : n;
    return p;
}

/* The bytes `view` as a pointer and a length: 0, or -1 with an exception set (not through a "y#"
 * format: with the 3.13 headers it compiles to a call that Python 3.11 refuses). */
static int read_view(PyObject *view, const char **v, Py_ssize_t *n)
{
    char *buf;
    if (PyBytes_AsStringAndSize(view, &buf, n) < 0)
        return -1;
    *v = buf;
    return 0;
}

/* (start, end) pairs read from a Python sequence: protected spans, terminal runs. */
typedef struct {
    Py_ssize_t *at; /* 2 * count */
    Py_ssize_t count;
} Pairs;

static int read_pairs(PyObject *pairs, Pairs *out)
{
    PyObject *seq = PySequence_Fast(pairs, "expected a sequence of (start, end) pairs");
    if (seq == NULL)
        return -1;
    Py_ssize_t m = PySequence_Size(seq);
    out->count = m;
    out->at = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (m > 0 ? m : 1));
    if (out->at == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *pair = PySequence_GetItem(seq, i);
        if (pair == NULL || !PyArg_ParseTuple(pair, "nn", &out->at[2 * i], &out->at[2 * i + 1])) {
            Py_XDECREF(pair);
            Py_DECREF(seq);
            PyMem_Free(out->at);
            out->at = NULL;
            return -1;
        }
        Py_DECREF(pair);
    }
    Py_DECREF(seq);
    return 0;
}

/* The (view, spans) arguments of a token walk: 0, or -1 with an exception set (spans->at is then
 * not held). */
static int read_view_and_spans(PyObject *args, const char **v, Py_ssize_t *n, Pairs *spans)
{
    PyObject *py_view, *py_spans;
    if (!PyArg_ParseTuple(args, "OO", &py_view, &py_spans) || read_view(py_view, v, n) < 0)
        return -1;
    return read_pairs(py_spans, spans);
}

/* A token [s, e) is free: it touches no binder, no "." / ":" with a word character on its far
 * side, and no protected span of `spans`. */
static int is_free(const char *v, Py_ssize_t n, Py_ssize_t s, Py_ssize_t e, const Pairs *spans)
{
    if (s > 0 && (IS(v[s - 1], BINDER) || (IS(v[s - 1], DOT) && s >= 2 && IS(v[s - 2], WORD))))
        return 0;
    if (e < n && (IS(v[e], BINDER) || (IS(v[e], DOT) && e + 1 < n && IS(v[e + 1], WORD))))
        return 0;
    for (Py_ssize_t i = 0; i < spans->count; i++) {
        Py_ssize_t a = spans->at[2 * i], b = spans->at[2 * i + 1];
        if (a < b && a < e && s < b)
            return 0;
    }
    return 1;
}

/* The classes of a token's code points: `all` of them or'ed, `late` those after its first, and
 * its number of word characters. */
typedef struct {
    unsigned all, late;
    Py_ssize_t letters;
} TokenClasses;

static TokenClasses token_classes(const char *v, Py_ssize_t s, Py_ssize_t e)
{
    TokenClasses t = {CLASSES[(unsigned char)v[s]], 0, 0};
    for (Py_ssize_t q = s; q < e; q++) {
        unsigned c = CLASSES[(unsigned char)v[q]];
        t.late |= q > s ? c : 0;
        t.letters += (c & WORD) != 0;
    }
    t.all |= t.late;
    return t;
}

/* The token [s, e) (classes t) is one of `units` (a set of bytes; unit symbols are one to three
 * letters): 1 or 0, or -1 with an exception set. */
static int is_unit(const char *v, Py_ssize_t s, Py_ssize_t e, TokenClasses t, PyObject *units)
{
    if (e - s > 3 || (t.all & JOINER))
        return 0;
    PyObject *word = PyBytes_FromStringAndSize(v + s, e - s);
    int found = word == NULL ? -1 : PySet_Contains(units, word);
    Py_XDECREF(word);
    return found;
}

/* Append the int i to the list; -1 on error. */
static int append_index(PyObject *list, Py_ssize_t i)
{
    PyObject *item = PyLong_FromSsize_t(i);
    int status = item == NULL ? -1 : PyList_Append(list, item);
    Py_XDECREF(item);
    return status;
}

PyDoc_STRVAR(typo_starts_doc,
"typo_starts(view, spans, min_letters) -> list[int]\n\n"
"The starts of the typo candidates of a plain text (typo_mechanics._typo_starts_plain): its free\n"
"tokens (none bound, none in a protected span of `spans`) with no digit, no upper-case letter\n"
"after the first and at least `min_letters` word characters.");

static PyObject *typo_starts(PyObject *module, PyObject *args)
{
    (void)module;
    const char *v;
    PyObject *py_view;
    Py_ssize_t n, min_letters, e;
    PyObject *py_spans;
    Pairs spans;
    if (!PyArg_ParseTuple(args, "OOn", &py_view, &py_spans, &min_letters) || read_view(py_view, &v, &n) < 0
        || read_pairs(py_spans, &spans) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t s = next_token(v, n, 0, &e); out != NULL && s < n; s = next_token(v, n, e, &e)) {
        TokenClasses t = token_classes(v, s, e);
        if (!(t.all & DIGIT) && !(t.late & UPPER) && t.letters >= min_letters && is_free(v, n, s, e, &spans)
            && append_index(out, s) < 0)
            Py_CLEAR(out);
    }
    PyMem_Free(spans.at);
    return out;
}

PyDoc_STRVAR(stretch_sites_doc,
"stretch_sites(view, spans, runs, units) -> list[int]\n\n"
"The code points repeated_chars may repeat in a plain text, ascending (typos._stretch_ends):\n"
"the last of each free token (none bound, none in a protected span of `spans`) of two or more\n"
"code points with no digit and no upper-case letter after the first that is not one of `units`\n"
"(a set of bytes), and the last of each terminal run (start, end) of `runs`.");

static PyObject *stretch_sites(PyObject *module, PyObject *args)
{
    (void)module;
    const char *v;
    PyObject *py_view;
    Py_ssize_t n, e;
    PyObject *py_spans, *py_runs, *units, *out = NULL;
    Pairs spans = {NULL, 0}, runs = {NULL, 0};
    char *flags = NULL;
    if (!PyArg_ParseTuple(args, "OOOO", &py_view, &py_spans, &py_runs, &units) || read_view(py_view, &v, &n) < 0
        || read_pairs(py_spans, &spans) < 0 || read_pairs(py_runs, &runs) < 0)
        goto done;
    if ((flags = PyMem_Calloc(n > 0 ? n : 1, 1)) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t s = next_token(v, n, 0, &e); s < n; s = next_token(v, n, e, &e)) {
        TokenClasses t = token_classes(v, s, e);
        if (e - s < 2 || (t.all & DIGIT) || (t.late & UPPER) || !is_free(v, n, s, e, &spans))
            continue;
        int unit = is_unit(v, s, e, t, units);
        if (unit < 0)
            goto done;
        if (unit)
            continue;
        flags[e - 1] = 1;
    }
    for (Py_ssize_t i = 0; i < runs.count; i++) {
        if (runs.at[2 * i] >= runs.at[2 * i + 1] || runs.at[2 * i + 1] > n) {
            PyErr_SetString(PyExc_ValueError, "a terminal run outside the text");
            goto done;
        }
        flags[runs.at[2 * i + 1] - 1] = 1;
    }
    out = PyList_New(0);
    for (const char *f = memchr(flags, 1, n); out != NULL && f != NULL; f = memchr(f + 1, 1, n - (f + 1 - flags)))
        if (append_index(out, f - flags) < 0)
            Py_CLEAR(out);
done:
    PyMem_Free(flags);
    PyMem_Free(runs.at);
    PyMem_Free(spans.at);
    return out;
}

PyDoc_STRVAR(free_starts_doc,
"free_starts(view, spans) -> bytes\n\n"
"A byte per code point of a plain text: 1 at the start of each free token (none bound, none in a\n"
"protected span of `spans`), else 0 (typo_mechanics.typo_lanes(text).free as bytes).");

static PyObject *free_starts(PyObject *module, PyObject *args)
{
    (void)module;
    const char *v;
    Py_ssize_t n, e;
    Pairs spans;
    if (read_view_and_spans(args, &v, &n, &spans) < 0)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    char *flags = out == NULL ? NULL : PyBytes_AsString(out);
    if (flags != NULL) {
        memset(flags, 0, n);
        for (Py_ssize_t s = next_token(v, n, 0, &e); s < n; s = next_token(v, n, e, &e))
            flags[s] = (char)is_free(v, n, s, e, &spans);
    }
    PyMem_Free(spans.at);
    return out;
}

/* A free token [s, e) without a digit (word_merge and word_split take only these). */
static int is_free_alpha(const char *v, Py_ssize_t n, Py_ssize_t s, Py_ssize_t e, const Pairs *spans)
{
    for (Py_ssize_t q = s; q < e; q++)
        if (IS(v[q], DIGIT))
            return 0;
    return is_free(v, n, s, e, spans);
}

/* What a token walk lists for the token [s, e): an index, or -1 for none; `state` (two indices,
 * -1 at first) carries what a walk needs from the tokens before. */
typedef Py_ssize_t (*TokenVisit)(const char *v, Py_ssize_t n, Py_ssize_t s, Py_ssize_t e, const Pairs *spans,
                                 Py_ssize_t *state);

/* The list of what `visit` gives for the tokens of the (view, spans) arguments, in text order. */
static PyObject *walk_tokens(PyObject *args, TokenVisit visit)
{
    const char *v;
    Py_ssize_t n, e, state[2] = {-1, -1};
    Pairs spans;
    if (read_view_and_spans(args, &v, &n, &spans) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t s = next_token(v, n, 0, &e); out != NULL && s < n; s = next_token(v, n, e, &e)) {
        Py_ssize_t got = visit(v, n, s, e, &spans, state);
        if (got >= 0 && append_index(out, got) < 0)
            Py_CLEAR(out);
    }
    PyMem_Free(spans.at);
    return out;
}

/* split_starts: the token's start when it is free, without a digit, and holds two adjacent word
 * characters, the first not its first code point, the second not its last. */
static Py_ssize_t split_start(const char *v, Py_ssize_t n, Py_ssize_t s, Py_ssize_t e, const Pairs *spans,
                              Py_ssize_t *state)
{
    (void)state;
    int splits = 0;
    for (Py_ssize_t q = s + 2; q <= e - 2 && !splits; q++)
        splits = IS(v[q - 1], WORD) && IS(v[q], WORD);
    return splits && is_free_alpha(v, n, s, e, spans) ? s : -1;
}

/* merge_lefts: the start of the token before when both are free without a digit and one U+0020
 * lies between them; state: the start of the token before when it is such a token (else -1),
 * and its end. */
static Py_ssize_t merge_left(const char *v, Py_ssize_t n, Py_ssize_t s, Py_ssize_t e, const Pairs *spans,
                             Py_ssize_t *state)
{
    int alpha = is_free_alpha(v, n, s, e, spans);
    Py_ssize_t left = state[0], left_end = state[1];
    state[0] = alpha ? s : -1;
    state[1] = e;
    return alpha && left >= 0 && s == left_end + 1 && v[left_end] == ' ' ? left : -1;
}

PyDoc_STRVAR(split_starts_doc,
"split_starts(view, spans) -> list[int]\n\n"
"The starts of the tokens word_split may split in a plain text (spacing._split_starts): free\n"
"tokens (none bound, none in a protected span of `spans`) without a digit that hold two adjacent\n"
"word characters, the first not the token's first code point, the second not its last.");

static PyObject *split_starts(PyObject *module, PyObject *args)
{
    (void)module;
    return walk_tokens(args, split_start);
}

PyDoc_STRVAR(merge_lefts_doc,
"merge_lefts(view, spans) -> list[int]\n\n"
"The starts of the left tokens of the gaps word_merge may delete in a plain text\n"
"(spacing._merge_lefts): a free token without a digit (none bound, none in a protected span of\n"
"`spans`), then one U+0020, then another such token.");

static PyObject *merge_lefts(PyObject *module, PyObject *args)
{
    (void)module;
    return walk_tokens(args, merge_left);
}

PyDoc_STRVAR(free_words_doc,
"free_words(view, words, folded, longest) -> list[tuple[int, int]]\n\n"
"(start, end), ascending, of the free tokens (none bound) of the view of a plain text that holds\n"
"no protected span whose text (lower-cased when `folded`) is one of `words` (a set of bytes,\n"
"none longer than `longest`): bits.free_word_spans.");

static PyObject *free_words(PyObject *module, PyObject *args)
{
    (void)module;
    const char *v;
    PyObject *py_view, *words;
    Py_ssize_t n, e, longest;
    int folded;
    Pairs none = {NULL, 0};
    char low[64];
    if (!PyArg_ParseTuple(args, "OOpn", &py_view, &words, &folded, &longest) || read_view(py_view, &v, &n) < 0)
        return NULL;
    if (longest < 0 || longest > (Py_ssize_t)sizeof(low)) {
        PyErr_SetString(PyExc_ValueError, "longest must be between 0 and 64");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    for (Py_ssize_t s = next_token(v, n, 0, &e); out != NULL && s < n; s = next_token(v, n, e, &e)) {
        if (e - s > longest || !is_free(v, n, s, e, &none))
            continue;
        for (Py_ssize_t q = s; q < e; q++)
            low[q - s] = folded ? lower(v[q]) : v[q];
        PyObject *token = PyBytes_FromStringAndSize(low, e - s);
        int found = token == NULL ? -1 : PySet_Contains(words, token);
        Py_XDECREF(token);
        PyObject *span = found == 1 ? Py_BuildValue("(nn)", s, e) : NULL;
        if (found < 0 || (found == 1 && (span == NULL || PyList_Append(out, span) < 0)))
            Py_CLEAR(out);
        Py_XDECREF(span);
    }
    return out;
}

PyDoc_STRVAR(wrap_breaks_doc,
"wrap_breaks(view, s, start, last, width, pw) -> list[tuple[int, int]]\n\n"
"formatting._jump_breaks of an ASCII text (`view`: its bytes) whose only horizontal whitespace is\n"
"U+0020: the runs of spaces at which greedy packing breaks the line that starts at `s`, whose\n"
"chunks start at `start` and whose content ends at `last` (`width` columns, continuation lines\n"
"starting at column `pw`).");

static PyObject *wrap_breaks(PyObject *module, PyObject *args)
{
    (void)module;
    const char *v;
    PyObject *py_view;
    Py_ssize_t n, s, start, last, width, pw;
    if (!PyArg_ParseTuple(args, "Onnnnn", &py_view, &s, &start, &last, &width, &pw)
        || read_view(py_view, &v, &n) < 0)
        return NULL;
    if (!(0 <= s && s < start && start <= last && last <= n) || width < 1 || pw < 0) {
        PyErr_SetString(PyExc_ValueError, "need 0 <= s < start <= last <= len(view), width >= 1, pw >= 0");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    Py_ssize_t cur = start; /* the start of the first run the line can still break at */
    while (cur < last && v[cur] != ' ')
        cur++;
    if (cur == last)
        return out;
    Py_ssize_t origin = s, col = 0; /* the current line's first offset and its column */
    while (out != NULL && cur >= 0) {
        Py_ssize_t lim = origin + width - col; /* a chunk may end here */
        if (last <= lim)
            break;
        Py_ssize_t after = -1; /* the first run that starts past the limit */
        for (Py_ssize_t p = (lim > cur ? lim : cur) + 1; p < last && after < 0; p++)
            if (v[p] == ' ' && v[p - 1] != ' ')
                after = p;
        Py_ssize_t q = (after < 0 ? last : after) - 1; /* the last space of the run before it */
        while (v[q] != ' ')
            q--;
        Py_ssize_t rs = q;
        while (rs > 0 && v[rs - 1] == ' ')
            rs--;
        PyObject *brk = Py_BuildValue("(nn)", rs, q + 1);
        if (brk == NULL || PyList_Append(out, brk) < 0)
            Py_CLEAR(out);
        Py_XDECREF(brk);
        origin = q + 1;
        col = pw;
        cur = after;
    }
    return out;
}

/* For punctuation_spaces: ASCII punctuation without "_" ([!-/:-@[-^`{-~]), the ASCII characters
 * str.isspace() accepts, and the digits. */
static int is_punct(char c) { return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '^') || c == '`' || (c >= '{' && c <= '~'); }
static int is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

PyDoc_STRVAR(punct_spaces_doc,
"punct_spaces(text, exempt) -> (bytes, int)\n\n"
"punctuation_spaces on an ASCII text (its bytes): a space inserted before and after each run of\n"
"punctuation, or each part of a run between the code points flagged in `exempt` (one byte per\n"
"code point), where no whitespace is; a lone character between two digits is left alone. The new\n"
"text and the number of spaces inserted.");

static PyObject *punct_spaces(PyObject *module, PyObject *args)
{
    (void)module;
    const char *v;
    PyObject *py_text, *py_exempt;
    Py_buffer ex;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OO", &py_text, &py_exempt) || read_view(py_text, &v, &n) < 0
        || PyObject_GetBuffer(py_exempt, &ex, PyBUF_SIMPLE) < 0)
        return NULL;
    if (ex.len != n) {
        PyErr_SetString(PyExc_ValueError, "exempt must hold one byte per code point");
        PyBuffer_Release(&ex);
        return NULL;
    }
    const char *x = ex.buf;
    Py_ssize_t *at = PyMem_Malloc(sizeof(Py_ssize_t) * (2 * n + 1)), k = 0;
    if (at == NULL) {
        PyBuffer_Release(&ex);
        return PyErr_NoMemory();
    }
#define INSERT_AT(p) (at[k++] = (p)) /* ascending: a run's end is before the next run's start */
    for (Py_ssize_t p = 0; p < n;) {
        if (!is_punct(v[p])) {
            p++;
            continue;
        }
        Py_ssize_t s = p, exempt = 0;
        for (; p < n && is_punct(v[p]); p++)
            exempt |= x[p];
        Py_ssize_t e = p;
        if (!exempt) {
            if (e - s == 1 && s > 0 && s < n - 1 && is_digit(v[s - 1]) && is_digit(v[s + 1]))
                continue;
            if (s > 0 && !is_space(v[s - 1]))
                INSERT_AT(s);
            if (e < n && !is_space(v[e]))
                INSERT_AT(e);
            continue;
        }
        Py_ssize_t a = s; /* the sub-runs [a, i) between exempt code points */
        for (Py_ssize_t i = s; i <= e; i++) {
            if (i < e && !x[i])
                continue;
            if (a < i) {
                if (a > 0 && !is_space(v[a - 1]))
                    INSERT_AT(a);
                if (i < n && !is_space(v[i]))
                    INSERT_AT(i);
            }
            a = i + 1;
        }
    }
#undef INSERT_AT
    PyBuffer_Release(&ex);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n + k);
    char *w = out == NULL ? NULL : PyBytes_AsString(out);
    if (w != NULL) {
        Py_ssize_t from = 0;
        for (Py_ssize_t j = 0; j < k; j++) {
            memcpy(w, v + from, at[j] - from);
            w += at[j] - from;
            *w++ = ' ';
            from = at[j];
        }
        memcpy(w, v + from, n - from);
    }
    PyMem_Free(at);
    return out == NULL ? NULL : Py_BuildValue("(Nn)", out, k);
}

/* The ASCII characters of perturber.text.HSPACE (horizontal whitespace: str.isspace() but not a line
 * break), and the ends of a unit of §1.9 in an ASCII text. */
static int is_hspace(char c) { return c == ' ' || c == '\t' || c == '\x0b' || c == '\x0c' || (c >= '\x1c' && c <= '\x1f'); }
static int is_unit_end(char c) { return c == '.' || c == '!' || c == '?' || c == '\r' || c == '\n'; }

PyDoc_STRVAR(drop_groups_doc,
"drop_groups(text, spans) -> bytes | None\n\n"
"drop_stop_words on an ASCII text (its bytes) whose dropped tokens are `spans` (ascending): None\n"
"when a stop word may be alone in its unit with other stop words only (a unit between two of\n"
". ! ? CR LF holds a dropped token and no other word character: the units decide), else the\n"
"text without its groups of dropped tokens (tokens apart by horizontal whitespace only), each\n"
"with the run of horizontal whitespace before it when it has one and does not start its line,\n"
"else with the run after it (spacing._removal_edits).");

static PyObject *drop_groups(PyObject *module, PyObject *args)
{
    (void)module;
    const char *v;
    Py_ssize_t n;
    Pairs spans;
    if (read_view_and_spans(args, &v, &n, &spans) < 0)
        return NULL;
    PyObject *out = NULL;
    char *dropped = PyMem_Calloc(n > 0 ? n : 1, 1); /* 1 in a dropped token, then 2 in a deleted range */
    if (dropped == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < spans.count; i++) {
        Py_ssize_t a = spans.at[2 * i], b = spans.at[2 * i + 1];
        if (a < 0 || b > n || a >= b || (i > 0 && a < spans.at[2 * i - 1])) {
            PyErr_SetString(PyExc_ValueError, "spans must be ascending, non-empty and inside the text");
            goto done;
        }
        memset(dropped + a, 1, b - a);
    }
    int has_drop = 0, has_word = 0; /* in the current unit */
    for (Py_ssize_t p = 0; p <= n; p++) {
        if (p == n || is_unit_end(v[p])) {
            if (has_drop && !has_word) {
                out = Py_NewRef(Py_None);
                goto done;
            }
            has_drop = has_word = 0;
        } else if (dropped[p])
            has_drop = 1;
        else if (IS(v[p], WORD))
            has_word = 1;
    }
    for (Py_ssize_t i = 0; i < spans.count;) {
        Py_ssize_t j = i; /* the group: spans i..j apart by horizontal whitespace only (tokens: never adjacent) */
        for (; j + 1 < spans.count; j++) {
            Py_ssize_t q = spans.at[2 * j + 1], next = spans.at[2 * j + 2];
            while (q < next && is_hspace(v[q]))
                q++;
            if (q != next)
                break;
        }
        Py_ssize_t gs = spans.at[2 * i], ge = spans.at[2 * j + 1], rs = gs, re = ge;
        while (rs > 0 && is_hspace(v[rs - 1]))
            rs--;
        if (rs < gs && rs > 0 && v[rs - 1] != '\r' && v[rs - 1] != '\n')
            gs = rs;
        else
            while (re < n && is_hspace(v[re]))
                re++;
        memset(dropped + gs, 2, re - gs);
        i = j + 1;
    }
    Py_ssize_t kept = 0;
    for (Py_ssize_t p = 0; p < n; p++)
        kept += dropped[p] != 2;
    out = PyBytes_FromStringAndSize(NULL, kept);
    char *w = out == NULL ? NULL : PyBytes_AsString(out);
    if (w != NULL)
        for (Py_ssize_t p = 0; p < n; p++)
            if (dropped[p] != 2)
                *w++ = v[p];
done:
    PyMem_Free(dropped);
    PyMem_Free(spans.at);
    return out;
}

PyDoc_STRVAR(title_case_doc,
"title_case(view, spans, units) -> (bytes, int)\n\n"
"title_case on a plain text's view (character._title_view): the view with the letters to\n"
"upper-case upper-cased (the first letter of each free token that starts with a lower-case\n"
"letter, has no upper-case letter after it and is not one of `units`, and each lower-case letter\n"
"after a hyphen in a free token that starts with a letter and has no upper-case letter after\n"
"it), and the number of tokens that change.");

static PyObject *title_case(PyObject *module, PyObject *args)
{
    (void)module;
    const char *v;
    PyObject *py_view;
    Py_ssize_t n, e, edited = 0;
    PyObject *py_spans, *units;
    Pairs spans;
    if (!PyArg_ParseTuple(args, "OOO", &py_view, &py_spans, &units) || read_view(py_view, &v, &n) < 0
        || read_pairs(py_spans, &spans) < 0)
        return NULL;
    /* a new object to write into (from a string, CPython would share its one-byte bytes) */
    PyObject *out = PyBytes_FromStringAndSize(NULL, n);
    char *o = out == NULL ? NULL : PyBytes_AsString(out);
    if (o != NULL)
        memcpy(o, v, n);
    for (Py_ssize_t s = next_token(v, n, 0, &e); o != NULL && s < n; s = next_token(v, n, e, &e)) {
        TokenClasses t = token_classes(v, s, e);
        if (IS(v[s], DIGIT) || (t.late & UPPER) || !is_free(v, n, s, e, &spans))
            continue;
        int changed = 0;
        if (!IS(v[s], UPPER)) {
            int unit = is_unit(v, s, e, t, units);
            if (unit < 0) {
                Py_CLEAR(out);
                break;
            }
            if (!unit) {
                o[s] = (char)(v[s] - 32);
                changed = 1;
            }
        }
        for (Py_ssize_t q = s + 1; q < e; q++) {
            if (v[q - 1] == '-' && v[q] >= 'a' && v[q] <= 'z') {
                o[q] = (char)(v[q] - 32);
                changed = 1;
            }
        }
        edited += changed;
    }
    PyMem_Free(spans.at);
    return out == NULL ? NULL : Py_BuildValue("(Nn)", out, edited);
}

/* ---- draws: perturber.rng.Draws.below over a batch of words ------------------------------ */

typedef struct {
    Py_buffer view; /* of the current batch */
    const uint32_t *words;
    Py_ssize_t len, pos;
    PyObject *refill; /* Draws._refill: the next batch, once this one is used up */
} Stream;

/* Start drawing from the batch `words` at index `pos`: 0, or -1 with an exception set. */
static int stream_open(Stream *st, PyObject *words, Py_ssize_t pos, PyObject *refill)
{
    if (PyObject_GetBuffer(words, &st->view, PyBUF_SIMPLE) < 0)
        return -1;
    st->words = st->view.buf;
    st->len = st->view.len / 4;
    st->pos = pos;
    st->refill = refill;
    if (pos < 0 || pos > st->len) {
        PyBuffer_Release(&st->view);
        PyErr_SetString(PyExc_ValueError, "pos outside the batch");
        return -1;
    }
    return 0;
}

/* The next 32-bit word of the stream: 0, or -1 with an exception set. */
static int next_word(Stream *st, uint32_t *word)
{
    if (st->pos >= st->len) {
        PyObject *batch = PyObject_CallNoArgs(st->refill);
        if (batch == NULL)
            return -1;
        PyBuffer_Release(&st->view);
        int failed = PyObject_GetBuffer(batch, &st->view, PyBUF_SIMPLE);
        Py_DECREF(batch); /* the view holds it */
        if (failed < 0)
            return -1;
        st->words = st->view.buf;
        st->len = st->view.len / 4;
        st->pos = 0;
        if (st->len == 0) {
            PyErr_SetString(PyExc_ValueError, "refill gave an empty batch");
            return -1;
        }
    }
    *word = st->words[st->pos++];
    return 0;
}

/* Draws.below(n) (1 <= n < 2**32): the draw, or -1 with an exception set. */
static long below(Stream *st, uint32_t n)
{
    int bits = 0;
    for (uint32_t m = n; m; m >>= 1)
        bits++;
    for (;;) {
        uint32_t word;
        if (next_word(st, &word) < 0)
            return -1;
        uint32_t r = word >> (32 - bits);
        if (r < n)
            return (long)r;
    }
}

/* Draws.sample(range(n), k) (0 <= k <= n < 2**32): the frozen partial Fisher-Yates of §1.4, in
 * draw order, into `out`; -1 on error. The pool is kept as the positions that moved (value + 1,
 * 0: still its own index) in zeroed memory, so a few draws out of a long range touch little. */
static int sample_draws(Stream *st, Py_ssize_t n, Py_ssize_t k, Py_ssize_t *out)
{
    if (k == 0)
        return 0;
    uint32_t *moved = PyMem_Calloc((size_t)n, sizeof(uint32_t));
    if (moved == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int status = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        long r = below(st, (uint32_t)(n - i));
        if (r < 0) {
            status = -1;
            break;
        }
        Py_ssize_t j = i + r;
        out[i] = moved[j] ? (Py_ssize_t)moved[j] - 1 : j;
        moved[j] = moved[i] ? moved[i] : (uint32_t)i + 1; /* the swap; position i is not read again */
    }
    PyMem_Free(moved);
    return status;
}

/* The indices perturber.rng.chosen draws when it picks k of n (0 <= k <= n): no draw when k is 0
 * or n (range(k)), else sample_draws; -1 on error. */
static int sample_range(Stream *st, Py_ssize_t n, Py_ssize_t k, Py_ssize_t *out)
{
    if (k == 0 || k == n) {
        for (Py_ssize_t i = 0; i < k; i++)
            out[i] = i;
        return 0;
    }
    return sample_draws(st, n, k, out);
}

/* The largest range sample_indices takes: its pool costs 4 bytes an index. */
#define MAX_SAMPLE_RANGE ((Py_ssize_t)1 << 28)

PyDoc_STRVAR(sample_indices_doc,
"sample_indices(n, k, words, pos, refill) -> (list[int], int)\n\n"
"perturber.rng.Draws.sample(range(n), k) (0 <= k <= n <= 2**28), drawing from the batch `words`\n"
"from index `pos` (`refill`: the next batch, as Draws._refill): the k indices in draw order and\n"
"the index after the words read.");

static PyObject *sample_indices(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *words, *refill, *list = NULL;
    Py_ssize_t n, k, pos, *out = NULL;
    Stream st;
    if (!PyArg_ParseTuple(args, "nnOnO", &n, &k, &words, &pos, &refill))
        return NULL;
    if (k < 0 || k > n || n > MAX_SAMPLE_RANGE) {
        PyErr_Format(PyExc_ValueError, "sample of %zd out of %zd", k, n);
        return NULL;
    }
    if (stream_open(&st, words, pos, refill) < 0)
        return NULL;
    out = PyMem_Malloc(sizeof(Py_ssize_t) * (k > 0 ? k : 1));
    if (out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (sample_draws(&st, n, k, out) < 0 || (list = PyList_New(k)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *index = PyLong_FromSsize_t(out[i]);
        if (index == NULL) {
            Py_CLEAR(list);
            goto done;
        }
        PyList_SetItem(list, i, index); /* steals the reference; cannot fail here */
    }
done:
    PyMem_Free(out);
    PyBuffer_Release(&st.view);
    return list == NULL ? NULL : Py_BuildValue("(Nn)", list, st.pos);
}

static int ascending(const void *a, const void *b)
{
    Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return (x > y) - (x < y);
}

/* (parts + [text[at:]] joined, pos): the result of an apply; NULL with an exception set. */
static PyObject *join_with_rest(PyObject *parts, PyObject *text, Py_ssize_t at, Py_ssize_t pos)
{
    PyObject *rest = PyUnicode_Substring(text, at, PyUnicode_GetLength(text));
    if (rest == NULL || PyList_Append(parts, rest) < 0) {
        Py_XDECREF(rest);
        return NULL;
    }
    Py_DECREF(rest);
    PyObject *empty = PyUnicode_FromStringAndSize("", 0);
    PyObject *joined = empty == NULL ? NULL : PyUnicode_Join(empty, parts);
    Py_XDECREF(empty);
    return joined == NULL ? NULL : Py_BuildValue("(Nn)", joined, pos);
}

PyDoc_STRVAR(stretch_apply_doc,
"stretch_apply(text, sites, k, words, pos, refill) -> (str, int)\n\n"
"repeated_chars on a plain text whose candidates repeat the code points at `sites` (ascending,\n"
"ASCII): k of them chosen as perturber.rng.chosen does, each repeated 3 or 4 times (2 + 1 +\n"
"Draws.below(2), in text order), drawing from the batch `words` from index `pos` (`refill`: the\n"
"next batch). The new text and the index after the words read.");

static PyObject *stretch_apply(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *text, *sites, *words, *refill, *seq = NULL, *parts = NULL, *result = NULL;
    Py_ssize_t k, pos, *at = NULL, *chosen = NULL;
    Stream st;
    if (!PyArg_ParseTuple(args, "UOnOnO", &text, &sites, &k, &words, &pos, &refill)
        || stream_open(&st, words, pos, refill) < 0)
        return NULL;
    if ((seq = PySequence_Fast(sites, "sites must be a sequence")) == NULL)
        goto done;
    Py_ssize_t m = PySequence_Size(seq), length = PyUnicode_GetLength(text);
    if (k < 0 || k > m) {
        PyErr_SetString(PyExc_ValueError, "k must be between 0 and the number of sites");
        goto done;
    }
    at = PyMem_Malloc(sizeof(Py_ssize_t) * (m > 0 ? m : 1));
    chosen = PyMem_Malloc(sizeof(Py_ssize_t) * (k > 0 ? k : 1));
    if (at == NULL || chosen == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *item = PySequence_GetItem(seq, i);
        at[i] = item == NULL ? -1 : PyLong_AsSsize_t(item);
        Py_XDECREF(item);
        if (at[i] == -1 && PyErr_Occurred())
            goto done;
        if (at[i] < (i ? at[i - 1] + 1 : 0) || at[i] >= length) {
            PyErr_SetString(PyExc_ValueError, "sites must be ascending offsets in the text");
            goto done;
        }
    }
    if (sample_range(&st, m, k, chosen) < 0)
        goto done;
    qsort(chosen, k, sizeof(Py_ssize_t), ascending);
    if ((parts = PyList_New(0)) == NULL)
        goto done;
    Py_ssize_t prev = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        Py_ssize_t p = at[chosen[i]];
        Py_UCS4 c = PyUnicode_ReadChar(text, p);
        long r = below(&st, 2);
        if (r < 0 || (c == (Py_UCS4)-1 && PyErr_Occurred()))
            goto done;
        if (c > 127) {
            PyErr_SetString(PyExc_ValueError, "a site that is not an ASCII code point");
            goto done;
        }
        char copies[4] = {(char)c, (char)c, (char)c, (char)c};
        PyObject *before = PyUnicode_Substring(text, prev, p);
        PyObject *run = PyUnicode_FromStringAndSize(copies, 3 + r);
        int failed = before == NULL || run == NULL || PyList_Append(parts, before) < 0
                     || PyList_Append(parts, run) < 0;
        Py_XDECREF(before);
        Py_XDECREF(run);
        if (failed)
            goto done;
        prev = p + 1;
    }
    result = join_with_rest(parts, text, prev, st.pos);
done:
    PyMem_Free(chosen);
    PyMem_Free(at);
    Py_XDECREF(parts);
    Py_XDECREF(seq);
    PyBuffer_Release(&st.view);
    return result;
}

/* ---- typos (§5.2) on a token of ASCII letters and joiners ---------------------------------- */

enum { SWAP, DELETE, DUPLICATE, SUBSTITUTE, OPS };
#define SMALL_WORD 64

static char shift(char c, int d) { return (char)((c - 'a' + d + 26) % 26 + 'a'); }

typedef struct {
    Py_ssize_t start, end; /* in the text */
    char out[2];
    int len;
} Edit;

/* The run through position i of low once it holds `letter` (typos._run_with). */
static Py_ssize_t run_with(const char *low, Py_ssize_t n, const Py_ssize_t *left,
                           const Py_ssize_t *right, Py_ssize_t i, char letter)
{
    Py_ssize_t before = (i > 0 && low[i - 1] == letter) ? left[i - 1] : 0;
    return before + 1 + ((i + 1 < n && low[i + 1] == letter) ? right[i + 1] : 0);
}

/* The plan of typos._simple_plan for the token w of n code points, into `positions` (OPS rows
 * of n) and `count`; `kept`: each substitution's shifts (bit 0: -1, bit 1: +1). */
static void simple_plan(const char *w, Py_ssize_t n, char *low, Py_ssize_t *left,
                        Py_ssize_t *right, Py_ssize_t *positions, Py_ssize_t *count,
                        unsigned char *kept)
{
    Py_ssize_t limit = 2, joiners = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        low[i] = lower(w[i]);
        joiners += IS(w[i], JOINER) != 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        left[i] = (i && low[i] == low[i - 1]) ? left[i - 1] + 1 : 1;
        if (left[i] > limit)
            limit = left[i];
    }
    for (Py_ssize_t i = n - 1; i >= 0; i--)
        right[i] = (i + 1 < n && low[i] == low[i + 1]) ? right[i + 1] + 1 : 1;
    memset(count, 0, sizeof(Py_ssize_t) * OPS);
    for (Py_ssize_t i = 0; i < n; i++) {
        char c = low[i];
        if (IS(c, JOINER))
            continue;
        char before = i ? low[i - 1] : 0, after = i + 1 < n ? low[i + 1] : 0;
        if (after && after != c && !IS(after, JOINER)) {
            Py_ssize_t jl = before == after ? left[i - 1] : 0;
            Py_ssize_t jr = (i + 2 < n && low[i + 2] == c) ? right[i + 2] : 0;
            if (jl < limit && jr < limit)
                positions[SWAP * n + count[SWAP]++] = i;
        }
        if (i && !(before == after && !IS(before, JOINER) && left[i - 1] + right[i + 1] > limit))
            positions[DELETE * n + count[DELETE]++] = i;
        if (before != c && after != c)
            positions[DUPLICATE * n + count[DUPLICATE]++] = i;
        char down = shift(c, -1), up = shift(c, 1);
        unsigned char shifts = 3;
        if (down == before || down == after || up == before || up == after)
            shifts = (run_with(low, n, left, right, i, down) <= limit)
                     | (run_with(low, n, left, right, i, up) <= limit) << 1;
        if (shifts) {
            kept[count[SUBSTITUTE]] = shifts;
            positions[SUBSTITUTE * n + count[SUBSTITUTE]++] = i;
        }
    }
    if (n - joiners - 1 < 3) /* a deletion must leave 3 letters */
        count[DELETE] = 0;
}

/* The draws and edit of typos on the token w = text[s:s+n]: 0, or -1 with an exception set. */
static int typo_edit(const char *w, Py_ssize_t n, Py_ssize_t s, Stream *st, Edit *edit)
{
    char low_small[SMALL_WORD];
    Py_ssize_t left_small[SMALL_WORD], right_small[SMALL_WORD], pos_small[OPS * SMALL_WORD];
    unsigned char kept_small[SMALL_WORD];
    char *low = low_small;
    Py_ssize_t *left = left_small, *right = right_small, *positions = pos_small;
    unsigned char *kept = kept_small;
    void *heap = NULL;
    if (n > SMALL_WORD) {
        heap = PyMem_Malloc((size_t)n * (1 + (2 + OPS) * sizeof(Py_ssize_t) + 1));
        if (heap == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        left = heap;
        right = left + n;
        positions = right + n;
        low = (char *)(positions + OPS * n);
        kept = (unsigned char *)(low + n);
    }
    Py_ssize_t count[OPS];
    simple_plan(w, n, low, left, right, positions, count, kept);
    int status = 0, ops = 0;
    for (int op = 0; op < OPS; op++)
        ops += count[op] > 0;
    long k, j, d;
    if (ops == 0) {
        PyErr_SetString(PyExc_ValueError, "a token with no typo option");
        status = -1;
        goto done;
    }
    if ((k = below(st, (uint32_t)ops)) < 0) {
        status = -1;
        goto done;
    }
    int op = 0;
    for (;; op++)
        if (count[op] > 0 && k-- == 0)
            break;
    if ((j = below(st, (uint32_t)count[op])) < 0) {
        status = -1;
        goto done;
    }
    Py_ssize_t i = positions[op * n + j];
    switch (op) {
    case SWAP:
        *edit = (Edit){s + i, s + i + 2, {w[i + 1], w[i]}, 2};
        break;
    case DELETE:
        *edit = (Edit){s + i, s + i + 1, {0, 0}, 0};
        break;
    case DUPLICATE:
        *edit = (Edit){s + i + 1, s + i + 1, {w[i], 0}, 1};
        break;
    default: {
        unsigned char shifts = kept[j];
        if ((d = below(st, shifts == 3 ? 2 : 1)) < 0) {
            status = -1;
            goto done;
        }
        int by = shifts == 3 ? (d ? 1 : -1) : (shifts == 1 ? -1 : 1);
        char letter = shift(lower(w[i]), by);
        if (IS(w[i], UPPER))
            letter = (char)(letter - 32);
        *edit = (Edit){s + i, s + i + 1, {letter, 0}, 1};
    }
    }
done:
    PyMem_Free(heap);
    return status;
}

PyDoc_STRVAR(typos_apply_doc,
"typos_apply(text, view, starts, words, pos, refill) -> (str, int)\n\n"
"typos on a plain text whose chosen candidates start at `starts` (ascending), drawing from the\n"
"batch `words` (32-bit words, native order) from index `pos` (`refill`: the next batch, as\n"
"Draws._refill): the new text and the index after the words read.");

static PyObject *typos_apply(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *text, *starts, *words, *refill, *seq = NULL, *parts = NULL, *result = NULL;
    const char *v;
    PyObject *py_view;
    Py_ssize_t n, pos;
    Edit *edits = NULL;
    Stream st;
    if (!PyArg_ParseTuple(args, "UOOOnO", &text, &py_view, &starts, &words, &pos, &refill) || read_view(py_view, &v, &n) < 0
        || stream_open(&st, words, pos, refill) < 0)
        return NULL;
    if ((seq = PySequence_Fast(starts, "starts must be a sequence")) == NULL)
        goto done;
    Py_ssize_t m = PySequence_Size(seq);
    if ((edits = PyMem_Malloc(sizeof(Edit) * (m > 0 ? m : 1))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t prev_end = 0;
    for (Py_ssize_t t = 0; t < m; t++) {
        PyObject *item = PySequence_GetItem(seq, t);
        Py_ssize_t s = item == NULL ? -1 : PyLong_AsSsize_t(item);
        Py_XDECREF(item);
        if (s == -1 && PyErr_Occurred())
            goto done;
        if (s < prev_end || s >= n || !is_token_start(v, s)) {
            PyErr_SetString(PyExc_ValueError, "starts must be ascending token starts");
            goto done;
        }
        Py_ssize_t e = token_end(v, n, s);
        if (token_classes(v, s, e).all & DIGIT) {
            PyErr_SetString(PyExc_ValueError, "typos edits tokens of letters and joiners only");
            goto done;
        }
        if (typo_edit(v + s, e - s, s, &st, &edits[t]) < 0)
            goto done;
        prev_end = e;
    }
    if ((parts = PyList_New(0)) == NULL)
        goto done;
    Py_ssize_t at = 0;
    for (Py_ssize_t t = 0; t < m; t++) {
        PyObject *before = PyUnicode_Substring(text, at, edits[t].start);
        PyObject *out = PyUnicode_FromStringAndSize(edits[t].out, edits[t].len);
        int failed = before == NULL || out == NULL || PyList_Append(parts, before) < 0
                     || PyList_Append(parts, out) < 0;
        Py_XDECREF(before);
        Py_XDECREF(out);
        if (failed)
            goto done;
        at = edits[t].end;
    }
    result = join_with_rest(parts, text, at, st.pos);
done:
    PyMem_Free(edits);
    Py_XDECREF(parts);
    Py_XDECREF(seq);
    PyBuffer_Release(&st.view);
    return result;
}

static PyMethodDef methods[] = {
    {"typo_starts", typo_starts, METH_VARARGS, typo_starts_doc},
    {"typos_apply", typos_apply, METH_VARARGS, typos_apply_doc},
    {"stretch_sites", stretch_sites, METH_VARARGS, stretch_sites_doc},
    {"free_starts", free_starts, METH_VARARGS, free_starts_doc},
    {"title_case", title_case, METH_VARARGS, title_case_doc},
    {"stretch_apply", stretch_apply, METH_VARARGS, stretch_apply_doc},
    {"sample_indices", sample_indices, METH_VARARGS, sample_indices_doc},
    {"split_starts", split_starts, METH_VARARGS, split_starts_doc},
    {"merge_lefts", merge_lefts, METH_VARARGS, merge_lefts_doc},
    {"free_words", free_words, METH_VARARGS, free_words_doc},
    {"wrap_breaks", wrap_breaks, METH_VARARGS, wrap_breaks_doc},
    {"punct_spaces", punct_spaces, METH_VARARGS, punct_spaces_doc},
    {"drop_groups", drop_groups, METH_VARARGS, drop_groups_doc},
    {NULL, NULL, 0, NULL},
};

static int exec_module(PyObject *module)
{
    (void)module;
    init_classes();
    return 0;
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
    {0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "perturber._native",
    "Optional C versions of hot loops of the deterministic tier (pure-Python twins define them).",
    0, methods, slots, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModuleDef_Init(&native_module); }
