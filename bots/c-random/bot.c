/*
 * c-random: a Cabo Arena bot (protocol v1) that picks a legal action uniformly at
 * random. Portable C99, no third-party library.
 *
 * It reads one JSON object per line from stdin (lines up to 1 MiB, dynamic buffer;
 * longer lines are skipped) and only needs, at the TOP LEVEL of each object:
 *   "type"  (string)           hello / act / anything else (ignored)
 *   "id"    (any JSON value)   echoed back verbatim in the reply to "act"
 *   "legal" (array)            its number of elements
 *   "match" (string), "seat"   (hello) seed of the generator
 * The scanner below handles strings with escapes (\uXXXX and surrogate pairs
 * included), nesting to any depth (iteratively), whitespace, and any key order.
 *
 * Seeding: FNV-1a 64 of "<match>/<seat>" into splitmix64; indices are drawn with
 * rejection sampling, so every legal action is exactly equally likely.
 *
 * Build: gcc -O2 -Wall -Wextra -std=c99 -static -o bot bot.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE ((size_t)1 << 20) /* a longer line is not a protocol message */
#define NAME "c-random"

/* ------------------------------------------------------------------ input lines */

/* Read one line (without its '\n') into *buf, growing it as needed. Returns the
 * length, or -1 at end of input. A line longer than MAX_LINE is consumed and
 * reported with *too_long = 1. */
static long read_line(char **buf, size_t *cap, int *too_long) {
    size_t len = 0;
    int any = 0;
    *too_long = 0;
    for (;;) {
        if (*cap - len < 2) {
            size_t ncap = *cap ? *cap * 2 : 4096;
            char *nbuf;
            if (ncap > MAX_LINE + 2) ncap = MAX_LINE + 2;
            if (ncap <= *cap) { /* full: drop the rest of this line */
                int c;
                *too_long = 1;
                while ((c = getchar()) != EOF && c != '\n') {}
                return 0;
            }
            nbuf = (char *)realloc(*buf, ncap);
            if (!nbuf) {
                int c;
                *too_long = 1;
                while ((c = getchar()) != EOF && c != '\n') {}
                return 0;
            }
            *buf = nbuf;
            *cap = ncap;
        }
        if (!fgets(*buf + len, (int)(*cap - len), stdin)) break;
        any = 1;
        len += strlen(*buf + len);
        if (len > 0 && (*buf)[len - 1] == '\n') {
            (*buf)[--len] = '\0';
            return (long)len;
        }
    }
    if (!any && len == 0) return -1;
    (*buf)[len] = '\0';
    return (long)len;
}

/* ------------------------------------------------------------------ JSON scanning */

typedef struct {
    const char *p;
    const char *end;
} Scanner;

/* Where a decoded string goes: a bounded buffer and/or a running FNV-1a hash. */
typedef struct {
    char *buf;
    size_t cap, len;
    int overflow;
    uint64_t *hash;
} Sink;

static void sink_byte(Sink *k, unsigned char c) {
    if (!k) return;
    if (k->buf) {
        if (k->len + 1 < k->cap) k->buf[k->len++] = (char)c;
        else k->overflow = 1;
    }
    if (k->hash) {
        *k->hash ^= c;
        *k->hash *= 1099511628211ULL;
    }
}

static void sink_utf8(Sink *k, unsigned long cp) {
    if (cp < 0x80) {
        sink_byte(k, (unsigned char)cp);
    } else if (cp < 0x800) {
        sink_byte(k, (unsigned char)(0xC0 | (cp >> 6)));
        sink_byte(k, (unsigned char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        sink_byte(k, (unsigned char)(0xE0 | (cp >> 12)));
        sink_byte(k, (unsigned char)(0x80 | ((cp >> 6) & 0x3F)));
        sink_byte(k, (unsigned char)(0x80 | (cp & 0x3F)));
    } else {
        sink_byte(k, (unsigned char)(0xF0 | (cp >> 18)));
        sink_byte(k, (unsigned char)(0x80 | ((cp >> 12) & 0x3F)));
        sink_byte(k, (unsigned char)(0x80 | ((cp >> 6) & 0x3F)));
        sink_byte(k, (unsigned char)(0x80 | (cp & 0x3F)));
    }
}

static void skip_ws(Scanner *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static int hex4(Scanner *s, unsigned long *out) {
    unsigned long v = 0;
    int i;
    if (s->end - s->p < 4) return -1;
    for (i = 0; i < 4; i++) {
        char c = s->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned long)(c - 'A' + 10);
        else return -1;
    }
    s->p += 4;
    *out = v;
    return 0;
}

/* At '"': consume a string, decoding it into k (may be NULL). 0 ok, -1 malformed. */
static int scan_string(Scanner *s, Sink *k) {
    if (s->p >= s->end || *s->p != '"') return -1;
    s->p++;
    while (s->p < s->end) {
        unsigned char c = (unsigned char)*s->p++;
        if (c == '"') {
            if (k && k->buf) k->buf[k->len] = '\0';
            return 0;
        }
        if (c != '\\') {
            sink_byte(k, c);
            continue;
        }
        if (s->p >= s->end) return -1;
        c = (unsigned char)*s->p++;
        switch (c) {
        case '"': case '\\': case '/': sink_byte(k, c); break;
        case 'b': sink_byte(k, '\b'); break;
        case 'f': sink_byte(k, '\f'); break;
        case 'n': sink_byte(k, '\n'); break;
        case 'r': sink_byte(k, '\r'); break;
        case 't': sink_byte(k, '\t'); break;
        case 'u': {
            unsigned long cp, lo;
            if (hex4(s, &cp)) return -1;
            if (cp >= 0xD800 && cp <= 0xDBFF && s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u') {
                Scanner look = *s;
                look.p += 2;
                if (hex4(&look, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    s->p = look.p;
                }
            }
            sink_utf8(k, cp); /* a lone surrogate is passed through as is */
            break;
        }
        default: return -1;
        }
    }
    return -1; /* unterminated */
}

static int is_delim(char c) {
    return c == ',' || c == ':' || c == '[' || c == ']' || c == '{' || c == '}' || c == '"' ||
           c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Consume one JSON value of any depth (iterative: no recursion). 0 ok, -1 malformed. */
static int skip_value(Scanner *s) {
    size_t depth = 0;
    do {
        char c;
        skip_ws(s);
        if (s->p >= s->end) return -1;
        c = *s->p;
        if (c == '"') {
            if (scan_string(s, NULL)) return -1;
        } else if (c == '{' || c == '[') {
            depth++;
            s->p++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) return -1;
            depth--;
            s->p++;
        } else if (c == ',' || c == ':') {
            if (depth == 0) return -1;
            s->p++;
        } else { /* number, true, false, null */
            const char *start = s->p;
            while (s->p < s->end && !is_delim(*s->p)) s->p++;
            if (s->p == start) return -1;
        }
    } while (depth > 0);
    return 0;
}

/* At '[': count the array's top-level elements. -1 if malformed. */
static long count_array(Scanner *s) {
    long n = 0;
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        return 0;
    }
    for (;;) {
        if (skip_value(s)) return -1;
        n++;
        skip_ws(s);
        if (s->p >= s->end) return -1;
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p == ']') {
            s->p++;
            return n;
        }
        return -1;
    }
}

typedef struct {
    char type[16];      /* "" when absent, not a string, or too long */
    const char *id;     /* raw JSON text of "id" inside the line, or NULL */
    size_t id_len;
    long legal;         /* element count of "legal", -1 when absent */
    uint64_t seed_hash; /* FNV-1a of match + "/" + seat text (hello) */
    int has_match;
} Message;

#define FNV_OFFSET 14695981039346656037ULL

/* Scan a top-level object. 0 ok, -1 if the line is not a JSON object. */
static int scan_message(const char *line, size_t len, Message *m) {
    Scanner s;
    uint64_t match_hash = FNV_OFFSET;
    const char *seat = NULL;
    size_t seat_len = 0;
    size_t i;
    s.p = line;
    s.end = line + len;
    memset(m, 0, sizeof *m);
    m->legal = -1;
    skip_ws(&s);
    if (s.p >= s.end || *s.p != '{') return -1;
    s.p++;
    skip_ws(&s);
    if (s.p < s.end && *s.p == '}') return 0;
    for (;;) {
        char key[16];
        Sink ks;
        ks.buf = key;
        ks.cap = sizeof key;
        ks.len = 0;
        ks.overflow = 0;
        ks.hash = NULL;
        skip_ws(&s);
        if (scan_string(&s, &ks)) return -1;
        if (ks.overflow || strlen(key) != ks.len) key[0] = '\0'; /* too long or holds a NUL */
        skip_ws(&s);
        if (s.p >= s.end || *s.p != ':') return -1;
        s.p++;
        skip_ws(&s);
        if (s.p >= s.end) return -1;
        if (strcmp(key, "type") == 0 && *s.p == '"') {
            Sink ts;
            ts.buf = m->type;
            ts.cap = sizeof m->type;
            ts.len = 0;
            ts.overflow = 0;
            ts.hash = NULL;
            if (scan_string(&s, &ts)) return -1;
            if (ts.overflow || strlen(m->type) != ts.len) m->type[0] = '\0';
        } else if (strcmp(key, "legal") == 0 && *s.p == '[') {
            m->legal = count_array(&s);
            if (m->legal < 0) return -1;
        } else if (strcmp(key, "match") == 0 && *s.p == '"') {
            Sink ms;
            ms.buf = NULL;
            ms.cap = ms.len = 0;
            ms.overflow = 0;
            match_hash = FNV_OFFSET;
            ms.hash = &match_hash;
            if (scan_string(&s, &ms)) return -1;
            m->has_match = 1;
        } else if (strcmp(key, "id") == 0 || strcmp(key, "seat") == 0) {
            const char *start = s.p;
            if (skip_value(&s)) return -1;
            if (key[0] == 'i') {
                m->id = start;
                m->id_len = (size_t)(s.p - start);
            } else {
                seat = start;
                seat_len = (size_t)(s.p - start);
            }
        } else if (skip_value(&s)) {
            return -1;
        }
        skip_ws(&s);
        if (s.p >= s.end) return -1;
        if (*s.p == ',') {
            s.p++;
            continue;
        }
        if (*s.p == '}') break;
        return -1;
    }
    /* seed text: "<match>/<seat>", the seat as its JSON text (e.g. 2) */
    match_hash ^= (unsigned char)'/';
    match_hash *= 1099511628211ULL;
    for (i = 0; i < seat_len; i++) {
        match_hash ^= (unsigned char)seat[i];
        match_hash *= 1099511628211ULL;
    }
    m->seed_hash = match_hash;
    return 0;
}

/* ------------------------------------------------------------------ randomness */

static uint64_t rng_state = 0x853C49E6748FEA9BULL;

static uint64_t splitmix64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1, without modulo bias. */
static uint64_t uniform(uint64_t n) {
    uint64_t threshold = (0 - n) % n; /* 2^64 mod n */
    uint64_t x;
    do {
        x = splitmix64();
    } while (x < threshold);
    return x % n;
}

/* ------------------------------------------------------------------ main loop */

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    long len;
    int too_long;
    Message m;

    while ((len = read_line(&line, &cap, &too_long)) >= 0) {
        if (too_long) {
            fprintf(stderr, NAME ": skipped a line longer than 1 MiB\n");
            continue;
        }
        if (scan_message(line, (size_t)len, &m)) {
            if (len > 0) fprintf(stderr, NAME ": skipped a line that is not a JSON object\n");
            continue;
        }
        if (strcmp(m.type, "hello") == 0) {
            rng_state = m.seed_hash;
            fputs("{\"type\":\"ready\",\"name\":\"" NAME "\"}\n", stdout);
            fflush(stdout);
        } else if (strcmp(m.type, "act") == 0) {
            uint64_t index = m.legal > 0 ? uniform((uint64_t)m.legal) : 0;
            if (m.id) {
                printf("{\"type\":\"action\",\"id\":%.*s,\"index\":%lu}\n", (int)m.id_len, m.id,
                       (unsigned long)index);
            } else {
                printf("{\"type\":\"action\",\"id\":null,\"index\":%lu}\n", (unsigned long)index);
            }
            fflush(stdout);
        }
        /* update, over and unknown types need no reply */
    }
    free(line);
    return 0;
}
