/* Floods stderr: answers hello, then a child writes to stderr without end while the
 * parent answers every line with {"type":"echo","len":N}, as echo does, and at the end of
 * stdin waits to be killed. Nothing reads the flood unless the arena does, up to the very
 * end, while it kills and removes the container. */
#include <unistd.h>
#include "proto.h"

static char chunk[32768];

int main(void) {
    if (!handshake()) return 0;
    memset(chunk, 'E', sizeof chunk);
    chunk[sizeof chunk - 1] = '\n';
    if (fork() == 0) {
        for (;;) {
            if (write(2, chunk, sizeof chunk) < 0) return 1;
        }
    }
    while (read_line()) {
        printf("{\"type\":\"echo\",\"len\":%zu}\n", strlen(line));
        fflush(stdout);
    }
    for (;;) pause();
}
