/* Ignores stdin EOF and SIGTERM: answers hello, reads stdin to its end, then sleeps forever. */
#include <signal.h>
#include <unistd.h>
#include "proto.h"

int main(void) {
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    if (handshake()) {
        while (read_line()) {}
    }
    for (;;) pause();
}
