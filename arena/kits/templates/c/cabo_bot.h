/*
 * cabo_bot.h: the protocol loop of a Cabo Arena bot (protocol v1) in portable C99,
 * with no library beyond libc. Include it in exactly one .c file.
 *
 * cabo_run(name, on_hello, on_act) reads one JSON message per line from stdin and
 * answers on stdout:
 *   hello -> calls on_hello(msg) (start a new match: reset everything) and answers "ready";
 *   act   -> calls on_act(msg), which returns an index into msg->legal, and answers
 *            with it; an index out of range is replaced by 0 (always legal) and logged
 *            on stderr as a line "cabo-bot: fallback: on_act returned ...", which the
 *            arena counts as a helper_fallback fault (arena bot check reports it);
 *   anything else (update, over, types added later) -> no answer.
 * A new "hello" may follow "over" on the same process: tournaments reuse processes.
 * cabo_run returns when the arena closes stdin.
 *
 * Messages are not turned into a tree: a CaboSpan is the raw JSON text of one value
 * inside the line, and cabo_get / cabo_int / cabo_string / cabo_at read into it:
 *   CaboSpan turn;
 *   if (cabo_get(msg->state, "turn", &turn)) rounds_turns = cabo_int(turn, 0);
 * Spans point into the current line: copy what you keep beyond one call.
 */
#ifndef CABO_BOT_H
#define CABO_BOT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CABO_MAX_LINE ((size_t)1 << 20) /* a longer line is not a protocol message */
/* Start of the stderr line written for every act answered with index 0 because on_act
 * returned no legal index; the arena counts these lines (docs/bots.md, "When your code raises"). */
#define CABO_FALLBACK_MARKER "cabo-bot: fallback: "

typedef struct {
    const char *p; /* first character of the value */
    size_t len;    /* length of its JSON text; 0: no value */
} CaboSpan;

typedef struct {
    char type[16];     /* "hello", "act", ...; "" if absent */
    CaboSpan whole;    /* the whole line */
    CaboSpan id;       /* act: the request id, echoed in the answer */
    CaboSpan state;    /* act: what this seat may know (docs/protocol.md, section 5) */
    CaboSpan events;   /* act, update: what happened since the last message */
    CaboSpan *legal;   /* act: the legal actions (section 6), never empty */
    size_t legal_count;
} CaboMessage;

/* Write a line to stderr, the bot's log (stdout is reserved for the protocol). */
static void cabo_log(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
}

/* ------------------------------------------------------------------ scanning JSON */

static const char *cabo__ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* At '"': the position after the string, or NULL if it is malformed. */
static const char *cabo__string_end(const char *p, const char *end) {
    if (p >= end || *p != '"') return NULL;
    for (p++; p < end; p++) {
        if (*p == '\\') {
            if (++p >= end) return NULL;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* The position after one JSON value of any depth, or NULL if it is malformed. */
static const char *cabo__value_end(const char *p, const char *end) {
    size_t depth = 0;
    p = cabo__ws(p, end);
    do {
        p = cabo__ws(p, end);
        if (p >= end) return NULL;
        if (*p == '"') {
            if (!(p = cabo__string_end(p, end))) return NULL;
        } else if (*p == '{' || *p == '[') {
            depth++;
            p++;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0) return NULL;
            depth--;
            p++;
        } else if (*p == ',' || *p == ':') {
            if (depth == 0) return NULL;
            p++;
        } else { /* number, true, false, null */
            const char *start = p;
            while (p < end && !strchr(",:[]{}\" \t\r\n", *p)) p++;
            if (p == start) return NULL;
        }
    } while (depth > 0);
    return p;
}

/* Decode a JSON string value into buf (at most cap - 1 bytes, then '\0'). Escapes other
 * than \" \\ \/ \n \t become '?': card codes, actions and phases are plain ASCII.
 * 1 ok, 0 not a string. */
static int cabo_string(CaboSpan value, char *buf, size_t cap) {
    const char *p = value.p, *last = value.p + value.len - 1; /* the closing quote */
    size_t n = 0;
    if (cap == 0 || value.len < 2 || *p != '"' || *last != '"') return 0;
    for (p++; p < last && n + 1 < cap; p++) {
        char c = *p;
        if (c == '\\' && p + 1 < last) {
            c = *++p;
            if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
            else if (c == 'u') {
                c = '?';
                p += last - p > 4 ? 4 : last - p - 1;
            } else if (c != '"' && c != '\\' && c != '/') {
                c = '?';
            }
        }
        buf[n++] = c;
    }
    buf[n] = '\0';
    return 1;
}

/* The value of "key" in a JSON object. 1 found, 0 not (or not an object). */
static int cabo_get(CaboSpan object, const char *key, CaboSpan *out) {
    const char *p = cabo__ws(object.p, object.p + object.len), *end = object.p + object.len;
    size_t want = strlen(key);
    if (object.len == 0 || p >= end || *p != '{') return 0;
    for (p = cabo__ws(p + 1, end); p < end && *p == '"';) {
        const char *name = p + 1, *after = cabo__string_end(p, end), *value;
        if (!after) return 0;
        p = cabo__ws(after, end);
        if (p >= end || *p != ':') return 0;
        value = cabo__ws(p + 1, end);
        if (!(p = cabo__value_end(value, end))) return 0;
        if ((size_t)(after - 1 - name) == want && memcmp(name, key, want) == 0) {
            out->p = value;
            out->len = (size_t)(p - value);
            return 1;
        }
        p = cabo__ws(p, end);
        if (p < end && *p == ',') p = cabo__ws(p + 1, end);
    }
    return 0;
}

/* Element i of a JSON array. 1 found, 0 not (or not an array). */
static int cabo_at(CaboSpan array, size_t i, CaboSpan *out) {
    const char *p = cabo__ws(array.p, array.p + array.len), *end = array.p + array.len;
    size_t k;
    if (array.len == 0 || p >= end || *p != '[') return 0;
    p = cabo__ws(p + 1, end);
    for (k = 0; p < end && *p != ']'; k++) {
        const char *start = p;
        if (!(p = cabo__value_end(p, end))) return 0;
        if (k == i) {
            out->p = start;
            out->len = (size_t)(p - start);
            return 1;
        }
        p = cabo__ws(p, end);
        if (p < end && *p == ',') p = cabo__ws(p + 1, end);
    }
    return 0;
}

/* A JSON integer, or fallback if the value is not one (null, a string, absent). */
static long cabo_int(CaboSpan value, long fallback) {
    char *stop;
    long n;
    if (value.len == 0 || !(*value.p == '-' || (*value.p >= '0' && *value.p <= '9'))) return fallback;
    n = strtol(value.p, &stop, 10);
    return stop == value.p ? fallback : n;
}

/* Whether an object's "key" is the string text, e.g. cabo_is(msg->legal[i], "do", "cabo"). */
static int cabo_is(CaboSpan object, const char *key, const char *text) {
    CaboSpan value;
    char buf[64];
    return cabo_get(object, key, &value) && cabo_string(value, buf, sizeof buf) && strcmp(buf, text) == 0;
}

/* ------------------------------------------------------------------ the loop */

/* Read one line (without its '\n') into *buf (*cap bytes, at least 1), growing it. The
 * length, -1 at end of input, -2 for a line over CABO_MAX_LINE (consumed and dropped). */
static long cabo__read_line(char **buf, size_t *cap) {
    size_t len = 0;
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
        if (len + 1 >= *cap) {
            char *bigger = *cap * 2 <= CABO_MAX_LINE + 1 ? (char *)realloc(*buf, *cap * 2) : NULL;
            if (!bigger) {
                while ((c = getchar()) != EOF && c != '\n') {}
                return -2;
            }
            *buf = bigger;
            *cap *= 2;
        }
        (*buf)[len++] = (char)c;
    }
    if (c == EOF && len == 0) return -1;
    (*buf)[len] = '\0';
    return (long)len;
}

/* Fill msg from one line: 1 if it is a JSON object, 0 if not. */
static int cabo__parse(const char *line, size_t len, CaboMessage *msg, size_t *legal_cap) {
    CaboSpan value, item;
    msg->whole.p = line;
    msg->whole.len = len;
    msg->type[0] = '\0';
    msg->id.len = msg->state.len = msg->events.len = 0;
    msg->legal_count = 0;
    if (!cabo__value_end(line, line + len) || *cabo__ws(line, line + len) != '{') return 0;
    if (cabo_get(msg->whole, "type", &value)) cabo_string(value, msg->type, sizeof msg->type);
    if (!cabo_get(msg->whole, "id", &msg->id)) msg->id.len = 0;
    if (!cabo_get(msg->whole, "state", &msg->state)) msg->state.len = 0;
    if (!cabo_get(msg->whole, "events", &msg->events)) msg->events.len = 0;
    if (cabo_get(msg->whole, "legal", &value)) {
        while (cabo_at(value, msg->legal_count, &item)) {
            if (msg->legal_count == *legal_cap) {
                size_t grown = *legal_cap ? *legal_cap * 2 : 64;
                CaboSpan *bigger = (CaboSpan *)realloc(msg->legal, grown * sizeof *bigger);
                if (!bigger) break;
                msg->legal = bigger;
                *legal_cap = grown;
            }
            msg->legal[msg->legal_count++] = item;
        }
    }
    return 1;
}

/* Play until the arena closes stdin. name goes in "ready" (informational). */
static int cabo_run(const char *name, void (*on_hello)(const CaboMessage *), long (*on_act)(const CaboMessage *)) {
    size_t cap = 4096, legal_cap = 0;
    char *line = (char *)malloc(cap);
    long len;
    CaboMessage msg;
    memset(&msg, 0, sizeof msg);
    if (!line) return 1;
    while ((len = cabo__read_line(&line, &cap)) != -1) {
        if (len == -2) {
            cabo_log("cabo_bot: skipped a line longer than 1 MiB");
            continue;
        }
        if (!cabo__parse(line, (size_t)len, &msg, &legal_cap)) continue;
        if (strcmp(msg.type, "hello") == 0) {
            if (on_hello) on_hello(&msg);
            printf("{\"type\":\"ready\",\"name\":\"%s\"}\n", name);
            fflush(stdout); /* a reply left in the buffer never arrives */
        } else if (strcmp(msg.type, "act") == 0) {
            long index = msg.legal_count ? on_act(&msg) : 0;
            if (index < 0 || (size_t)index >= msg.legal_count) {
                cabo_log(CABO_FALLBACK_MARKER "on_act returned %ld, not in 0..%lu; sent legal index 0", index,
                         (unsigned long)(msg.legal_count ? msg.legal_count - 1 : 0));
                index = 0;
            }
            printf("{\"type\":\"action\",\"id\":%.*s,\"index\":%ld}\n", msg.id.len ? (int)msg.id.len : 4,
                   msg.id.len ? msg.id.p : "null", index);
            fflush(stdout);
        }
    }
    free(line);
    free(msg.legal);
    return 0;
}

#endif
