/* Just enough of the bot protocol for the docker test programs: read a line, answer hello.
 * Header-only so each program stays one static binary with no other dependency. */
#ifndef CABO_TEST_PROTO_H
#define CABO_TEST_PROTO_H
#include <stdio.h>
#include <string.h>

static char line[1 << 16]; /* longer lines arrive in pieces: fine for these programs */

/* Read one line into `line` (newline kept); 0 at end of input. */
static int read_line(void) {
    return fgets(line, sizeof line, stdin) != NULL;
}

/* Write one line and flush it. */
static void say(const char *text) {
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Wait for hello and answer ready; 0 if stdin ended first. */
static int handshake(void) {
    while (read_line()) {
        if (strstr(line, "\"hello\"")) {
            say("{\"type\":\"ready\",\"name\":\"x\"}");
            return 1;
        }
    }
    return 0;
}
#endif
