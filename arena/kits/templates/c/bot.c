/*
 * __BOT_NAME__: a Cabo Arena bot (protocol v1), made from the arena's C starter kit.
 *
 * The arena starts the program `bot` (built from this file by `build` in bot.yaml) and
 * talks to it in JSON lines on stdin and stdout. cabo_bot.h, beside this file, does all
 * of that talking: this file only decides. on_act gets the message, with
 *   msg->state   everything this seat may know now (docs/protocol.md, section 5),
 *   msg->legal   the actions it may choose from (section 6), msg->legal_count of them,
 *   msg->events  what happened since the last decision (section 7),
 * and returns the index of one entry of legal. This one plays a random legal action,
 * except that it calls Cabo only late in a round: a place to start, not to stop. Keep
 * decisions fast (move_ms, 1 s by default) and log with cabo_log (stderr): stdout is
 * the protocol's.
 *
 * Build: gcc -O2 -Wall -Wextra -std=c99 -static -o bot bot.c
 * (static, so that the program runs in any sandbox, also in a container without libc)
 */
#include "cabo_bot.h"

#define NAME "__BOT_NAME__"
#define LAST_TURN 24 /* call Cabo once a round has had this many turns, so that rounds end */

static uint64_t rng_state;

/* splitmix64: a small, good generator; seeded per match, so a match replays identically. */
static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A new match: forget everything about the last one, seed from the hello (match id and seat). */
static void on_hello(const CaboMessage *hello) {
    size_t i;
    rng_state = 14695981039346656037ULL; /* FNV-1a over the whole hello line */
    for (i = 0; i < hello->whole.len; i++) {
        rng_state ^= (unsigned char)hello->whole.p[i];
        rng_state *= 1099511628211ULL;
    }
}

static long on_act(const CaboMessage *act) {
    CaboSpan turn;
    long turns = cabo_get(act->state, "turn", &turn) ? cabo_int(turn, 0) : 0;
    size_t i, others = 0, chosen;
    long cabo = -1;
    for (i = 0; i < act->legal_count; i++) {
        if (cabo_is(act->legal[i], "do", "cabo")) cabo = (long)i;
        else others++;
    }
    if (cabo >= 0 && (turns >= LAST_TURN || others == 0)) return cabo;
    chosen = (size_t)(next_random() % others); /* the chosen-th action that is not "cabo" */
    for (i = 0; i < act->legal_count; i++) {
        if ((long)i == cabo) continue;
        if (chosen-- == 0) return (long)i;
    }
    return 0;
}

int main(void) {
    return cabo_run(NAME, on_hello, on_act);
}
