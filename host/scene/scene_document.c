/*
 * host/scene/scene_document.c — the scene document's source text: a small, forgiving JSON tokenizer
 * that finds a value of the tree in the text (locate_steps), so that messages name FILE:LINE:COLUMN,
 * and the message for text cJSON cannot parse.
 *
 * A value changed or created by --set has no position in the file; scene_node_position() detects that
 * by comparing the tree value with the value found in the text, and the position is then omitted.
 *
 * Depends on: scene_path.c (path segments, tree lookups), cJSON.
 */
#include "scene_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *scene_file(const eddy_scene *s)
{
    return s->file[0] ? s->file : "<scene>";
}

/* ------------------------------------------------------------------------------------------------ */
/* The locator: a forgiving JSON tokenizer over the source text                                      */
/* ------------------------------------------------------------------------------------------------ */

/* White space as cJSON skips it: every byte from 1 to 32, not only JSON's four. A form feed or a 0x16
 * between tokens, which cJSON accepts, left the rest of the file without a line:column. */
static int is_ws(char c)
{
    return c != '\0' && (unsigned char)c <= 32;
}

static const char *tok_ws(const char *p)
{
    while (is_ws(*p)) ++p;
    return p;
}

/* p at '"': returns the closing quote, or the NUL of an unterminated string. */
static const char *string_end(const char *p)
{
    ++p;
    while (*p && *p != '"') p += (*p == '\\' && p[1]) ? 2 : 1;
    return p;
}

/* p at '"': returns just past the closing quote (or at the NUL of an unterminated string). */
static const char *tok_string(const char *p)
{
    p = string_end(p);
    return *p ? p + 1 : p;
}

/* Skips one value of any kind; never reads past the terminating NUL. */
static const char *tok_value(const char *p)
{
    p = tok_ws(p);
    if (*p == '"') return tok_string(p);
    if (*p == '{' || *p == '[') {
        size_t depth = 0;
        while (*p) {
            if (*p == '"') { p = tok_string(p); continue; }
            if (*p == '{' || *p == '[') ++depth;
            else if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            ++p;
        }
        return p;
    }
    while (*p && !is_ws(*p) && !strchr(",]}", *p)) ++p;
    return p;
}

static unsigned hex4(const char *p, int *ok)
{
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else { *ok = 0; return 0; }
    }
    return v;
}

/* Compares the JSON string at p (at '"', escapes decoded) with key[0..len). Sets *end past it. */
static int tok_key_equals(const char *p, const char *key, size_t len, const char **end)
{
    *end = tok_string(p);
    ++p;
    size_t k = 0;
    int equal = 1;
    while (*p && *p != '"') {
        unsigned char buf[4];
        size_t n = 0;
        if (*p == '\\') {
            ++p;
            char e = *p ? *p++ : 0;
            switch (e) {
            case 'b': buf[n++] = '\b'; break;
            case 'f': buf[n++] = '\f'; break;
            case 'n': buf[n++] = '\n'; break;
            case 'r': buf[n++] = '\r'; break;
            case 't': buf[n++] = '\t'; break;
            case 'u': {
                int ok = 1;
                unsigned cp = hex4(p, &ok);
                if (!ok) return 0;
                p += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && p[0] == '\\' && p[1] == 'u') {
                    unsigned lo = hex4(p + 2, &ok);
                    if (ok && lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        p += 6;
                    }
                }
                if (cp < 0x80) buf[n++] = (unsigned char)cp;
                else if (cp < 0x800) {
                    buf[n++] = (unsigned char)(0xC0 | (cp >> 6));
                    buf[n++] = (unsigned char)(0x80 | (cp & 0x3F));
                } else if (cp < 0x10000) {
                    buf[n++] = (unsigned char)(0xE0 | (cp >> 12));
                    buf[n++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                    buf[n++] = (unsigned char)(0x80 | (cp & 0x3F));
                } else {
                    buf[n++] = (unsigned char)(0xF0 | (cp >> 18));
                    buf[n++] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
                    buf[n++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                    buf[n++] = (unsigned char)(0x80 | (cp & 0x3F));
                }
                break;
            }
            case 0: return 0;
            default: buf[n++] = (unsigned char)e; break; /* \" \\ \/ */
            }
        } else {
            buf[n++] = (unsigned char)*p++;
        }
        for (size_t i = 0; i < n; ++i, ++k)
            if (k >= len || (unsigned char)key[k] != buf[i]) equal = 0;
    }
    return equal && k == len;
}

/* One step of the way to a value: a member (the occurrence-th with that key, for duplicated keys) or
 * an array element. The key is matched whole, whatever characters it holds. */
typedef struct loc_step {
    int is_index;
    size_t index;
    const char *key; /* not NUL-terminated */
    size_t len;
    int occurrence;
} loc_step;

/*
 * Finds the value reached by `steps` in the text. On success returns 1 with the offsets of the value
 * and, when the last step is a key, of that key (else the value offset).
 */
static int locate_steps(const char *text, const loc_step *steps, size_t n, size_t *key_off, size_t *val_off)
{
    if (!text) return 0;
    const char *p = tok_ws(text);
    const char *key_at = p;
    for (size_t i = 0; i < n; ++i) {
        const loc_step *s = &steps[i];
        p = tok_ws(p);
        if (s->is_index) {
            if (*p != '[') return 0;
            p = tok_ws(p + 1);
            if (*p == ']') return 0;
            for (size_t k = 0; k < s->index; ++k) {
                p = tok_ws(tok_value(p));
                if (*p != ',') return 0;
                p = tok_ws(p + 1);
            }
            if (*p == ']' || !*p) return 0;
            key_at = p;
        } else {
            if (*p != '{') return 0;
            p = tok_ws(p + 1);
            int seen = 0;
            for (;;) {
                if (*p != '"') return 0;
                const char *kstart = p, *kend;
                int eq = tok_key_equals(p, s->key, s->len, &kend);
                p = tok_ws(kend);
                if (*p != ':') return 0;
                p = tok_ws(p + 1);
                if (eq && seen++ == s->occurrence) {
                    key_at = kstart;
                    break;
                }
                p = tok_ws(tok_value(p));
                if (*p != ',') return 0;
                p = tok_ws(p + 1);
            }
        }
    }
    p = tok_ws(p);
    if (!*p) return 0;
    *val_off = (size_t)(p - text);
    *key_off = (size_t)(key_at - text);
    return 1;
}

/* The steps of a dotted path; `occurrence` picks the n-th member with the last key. Returns the
 * number of steps with *out allocated (NULL for none), or -1 when malformed or out of memory. */
static int path_steps(const char *path, int occurrence, loc_step **out)
{
    *out = NULL;
    if (!*path) return 0;
    int n = scene_path_validate(path);
    if (n <= 0) return -1;
    loc_step *steps = calloc((size_t)n, sizeof *steps);
    if (!steps) return -1;
    path_seg seg;
    const char *p = path;
    for (int i = 0; i < n && scene_path_next(&p, i == 0, &seg) == 1; ++i) {
        steps[i].is_index = seg.is_index;
        steps[i].index = seg.index;
        steps[i].key = seg.key;
        steps[i].len = seg.len;
        steps[i].occurrence = i == n - 1 ? occurrence : 0;
    }
    *out = steps;
    return n;
}

/*
 * The steps from the root to `node`, found by the node itself rather than by a dotted path: a path
 * cannot tell the key "a.b" (or "a[0]") from a member "b" of "a", so an unknown key spelled with a
 * dot had no position. Iterative, as --set may nest objects deeper than a stack would like. Returns
 * the number of steps with *out allocated (NULL for none), or -1 when node is not in the tree.
 */
static long tree_steps(const cJSON *root, const cJSON *node, loc_step **out)
{
    *out = NULL;
    size_t n = 0, cap = 0;
    const cJSON **chain = NULL;
    const cJSON *at = root;
    long found = -1;
    while (at) {
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            const cJSON **nc = realloc(chain, ncap * sizeof *nc);
            if (!nc) break;
            chain = nc;
            cap = ncap;
        }
        chain[n++] = at;
        if (at == node) {
            found = (long)n - 1;
            break;
        }
        if ((cJSON_IsObject(at) || cJSON_IsArray(at)) && at->child) {
            at = at->child;
            continue;
        }
        /* Back up to the nearest member on the chain with a next sibling (the root has none). */
        at = NULL;
        while (n > 1) {
            const cJSON *top = chain[--n];
            if (top->next) {
                at = top->next;
                break;
            }
        }
    }
    loc_step *steps = found > 0 ? calloc((size_t)found, sizeof *steps) : NULL;
    if (found > 0 && !steps) found = -1;
    for (long i = 1; i <= found; ++i) {
        const cJSON *parent = chain[i - 1], *item = chain[i];
        loc_step *s = &steps[i - 1];
        if (cJSON_IsArray(parent)) {
            s->is_index = 1;
            for (const cJSON *o = parent->child; o != item; o = o->next) ++s->index;
        } else {
            s->key = item->string ? item->string : "";
            s->len = strlen(s->key);
            for (const cJSON *o = parent->child; o != item; o = o->next)
                if (o->string && strcmp(o->string, s->key) == 0) ++s->occurrence;
        }
    }
    free(chain);
    *out = steps;
    return found;
}

/* 1-based line and column (in characters: UTF-8 continuation bytes do not count) of a byte offset. */
void scene_offset_linecol(const char *text, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; ++i) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n') { ++l; c = 1; }
        else if ((ch & 0xC0) != 0x80) ++c;
    }
    *line = l;
    *col = c;
}

static int same_value(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble || (isnan(a->valuedouble) && isnan(b->valuedouble));
    return cJSON_Compare(a, b, 1) != 0;
}

/*
 * Line and column of `node` in the scene's text (by its place in the tree, else by `path`): its key
 * (AT_KEY, when it is a member), else its value. 0 when it is not in the text, or when the text holds
 * a different value there (the tree was changed by --set).
 */
void scene_node_position(const eddy_scene *s, const char *path, const cJSON *node, int where,
                         int occurrence, int *line, int *col)
{
    *line = *col = 0;
    if (!s->text || !node) return;
    /* By the node where it is in the tree (duplicates then located by their own place among their
     * siblings), else by the path. */
    loc_step *steps = NULL;
    long n = tree_steps(s->root, node, &steps);
    if (n < 0 && path) n = path_steps(path, occurrence, &steps);
    size_t key_off, val_off;
    int found = n >= 0 && locate_steps(s->text, steps, (size_t)n, &key_off, &val_off);
    free(steps);
    if (!found) return;
    if (where == AT_CONTAINER && (cJSON_IsObject(node) || cJSON_IsArray(node))) {
        if (s->text[val_off] == (cJSON_IsObject(node) ? '{' : '['))
            scene_offset_linecol(s->text, val_off, line, col);
        return;
    }
    int want_key = where == AT_KEY;
    const char *end = NULL;
    cJSON *orig = cJSON_ParseWithOpts(s->text + val_off, &end, 0);
    int same = orig && same_value(orig, node);
    cJSON_Delete(orig);
    if (!same) return;
    scene_offset_linecol(s->text, want_key ? key_off : val_off, line, col);
}

void eddy_scene_locate(const eddy_scene *scene, const char *path, int *line, int *column)
{
    int l = 0, c = 0;
    if (scene && path) {
        const cJSON *node = scene_tree_lookup(scene->root, path);
        if (node) scene_node_position(scene, path, node, AT_VALUE, 0, &l, &c);
    }
    if (line) *line = l;
    if (column) *column = c;
}

/* ------------------------------------------------------------------------------------------------ */
/* Malformed JSON                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF), or 0. */
static size_t utf8_sequence(const unsigned char *p)
{
    const unsigned char c = p[0];
    if (c < 0x80) return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; ++i)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return n;
}

size_t scene_utf8_invalid_at(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; p[i];) {
        const size_t n = utf8_sequence(p + i);
        if (!n) return i;
        i += n;
    }
    return SIZE_MAX;
}

size_t scene_nul_escape_at(const char *text)
{
    int in_string = 0;
    for (size_t i = 0; text[i]; ++i) {
        if (text[i] == '"') {
            in_string = !in_string;
        } else if (in_string && text[i] == '\\') {
            if (text[i + 1] == 'u' && strncmp(text + i + 2, "0000", 4) == 0) return i;
            if (text[i + 1]) ++i; /* (the escaped character, a quote included) */
        }
    }
    return SIZE_MAX;
}

/* Offset of the opening quote of a string left open at the end of the text, or -1. */
static long open_string_at_end(const char *text)
{
    const char *p = text;
    while (*p) {
        if (*p != '"') { ++p; continue; }
        const char *end = string_end(p);
        if (!*end) return (long)(p - text);
        p = end + 1;
    }
    return -1;
}

/* How many arrays and objects are open just before text[off] (strings skipped). */
static size_t depth_at(const char *text, size_t off)
{
    size_t depth = 0;
    for (const char *p = text; *p && (size_t)(p - text) < off;) {
        if (*p == '"') {
            p = string_end(p);
            if (*p) ++p;
            continue;
        }
        if (*p == '[' || *p == '{') ++depth;
        else if ((*p == ']' || *p == '}') && depth > 0) --depth;
        ++p;
    }
    return depth;
}

static int json_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* Offset of the last non-blank character before text[off], or SIZE_MAX. */
static size_t blank_before(const char *text, size_t off)
{
    while (off > 0 && json_blank(text[off - 1])) --off;
    return off > 0 ? off - 1 : SIZE_MAX;
}

/* The innermost array or object open just before text[off] ('[' or '{'), or 0: none, text[off] inside a
 * string, or nested deeper than cJSON reads (it stopped before then). */
static char open_before(const char *text, size_t off)
{
    char stack[CJSON_NESTING_LIMIT + 2];
    size_t depth = 0;
    for (const char *p = text; *p && (size_t)(p - text) < off;) {
        if (*p == '"') {
            p = string_end(p);
            if ((size_t)(p - text) >= off) return 0;
            if (*p) ++p;
            continue;
        }
        if (*p == '[' || *p == '{') {
            if (depth == sizeof stack) return 0;
            stack[depth++] = *p;
        } else if ((*p == ']' || *p == '}') && depth > 0) {
            --depth;
        }
        ++p;
    }
    return depth ? stack[depth - 1] : 0;
}

/*
 * The excerpt of a malformed-JSON message: text[from, to) widened to whole UTF-8 characters, each run
 * of white space (line breaks too) one space, and control characters shown as spaces. A start cut
 * inside a token moves to the token after it, when there is one before `keep`.
 */
static void excerpt(const char *text, size_t from, size_t to, size_t keep, char *out, size_t size)
{
    while (from > 0 && ((unsigned char)text[from] & 0xC0) == 0x80) --from;
    while (text[to] && ((unsigned char)text[to] & 0xC0) == 0x80) ++to;
    if (from > 0 && !json_blank(text[from - 1]))
        for (size_t k = from; k < keep; ++k)
            if (json_blank(text[k])) {
                from = k + 1;
                break;
            }
    char *safe = malloc(to - from + 1);
    size_t n = safe ? scene_terminal_safe(safe, text + from, to - from) : 0, k = 0;
    for (size_t i = 0; i < n && k + 1 < size; ++i) {
        if (safe[i] == ' ' && (k == 0 || out[k - 1] == ' ')) continue;
        out[k++] = safe[i];
    }
    while (k > 0 && out[k - 1] == ' ') --k;
    out[k] = '\0';
    free(safe);
}

int scene_malformed(const eddy_scene *s, const char *text, const char *where, eddy_error *err)
{
    size_t len = strlen(text);
    size_t off = where && where >= text && where <= text + len ? (size_t)(where - text) : len;
    long open = open_string_at_end(text);
    int line, col;
    /* cJSON refuses valid JSON nested deeper than its limit: "malformed JSON near '[[[[...'" blamed
     * the text. */
    if (off < len && (text[off] == '[' || text[off] == '{') && depth_at(text, off) >= CJSON_NESTING_LIMIT) {
        scene_offset_linecol(text, off, &line, &col);
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "%s:%d:%d: expected arrays and objects nested at most %d levels deep, got deeper",
                              scene_file(s), line, col, CJSON_NESTING_LIMIT);
    }
    /* Where an object wants a key, cJSON stops one character past the one that is not a key's opening
     * quote: after a trailing comma that was past the '}', on the next line when the '}' ends its line,
     * and the excerpt from there was empty. A character after '{' or ',' in an object is that one (a
     * '"' began a key, and "{ }" is an empty object). */
    if (off > 0 && off <= len && !json_blank(text[off - 1]) && text[off - 1] != '"') {
        const size_t before = blank_before(text, off - 1);
        if (before != SIZE_MAX && (text[before] == ',' || (text[before] == '{' && text[off - 1] != '}')) &&
            open_before(text, off - 1) == '{')
            --off;
    }
    if (off >= len || (open >= 0 && (long)off > open)) {
        /* Unexpected end: point just after the last non-blank character. */
        size_t e = len;
        while (e > 0 && strchr(" \t\r\n", text[e - 1])) --e;
        scene_offset_linecol(text, e, &line, &col);
        return eddy_error_set(err, EDDY_ERR_PARSE, "%s:%d:%d: malformed JSON: unexpected end of input",
                              scene_file(s), line, col);
    }
    char ex[64];
    /* A comma that closes nothing, the mistake JSON's readers meet most (JavaScript and Python allow
     * it): pointed at, as what to delete. */
    const char close = text[off];
    const size_t comma = close == '}' || close == ']' ? blank_before(text, off) : SIZE_MAX;
    if (comma != SIZE_MAX && text[comma] == ',' && open_before(text, off) == (close == '}' ? '{' : '[')) {
        scene_offset_linecol(text, comma, &line, &col);
        excerpt(text, comma > 20 ? comma - 20 : 0, off + 1, comma, ex, sizeof ex);
        return eddy_error_set(err, EDDY_ERR_PARSE,
                              "%s:%d:%d: malformed JSON: a comma before '%c' (JSON allows no trailing comma), near "
                              "'%s'",
                              scene_file(s), line, col, close, ex);
    }
    scene_offset_linecol(text, off, &line, &col);
    /* From where the parser stopped to the end of its line; around it when that is blank. */
    size_t n = 0;
    while (text[off + n] && text[off + n] != '\n' && text[off + n] != '\r' && n < 20) ++n;
    excerpt(text, off, off + n, off, ex, sizeof ex);
    if (!ex[0]) {
        const size_t last = blank_before(text, off), from = last == SIZE_MAX ? off : last;
        excerpt(text, from > 20 ? from - 20 : 0, off + 21 < len ? off + 21 : len, from, ex, sizeof ex);
    }
    return eddy_error_set(err, EDDY_ERR_PARSE, "%s:%d:%d: malformed JSON near '%s'", scene_file(s), line,
                          col, ex);
}
