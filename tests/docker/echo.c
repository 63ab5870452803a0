/* Channel test partner: answers hello, then for each line:
 *   "exit N"      exits with status N
 *   "err TEXT"    writes TEXT and a newline to stderr
 *   "long N"      writes N bytes of 'x' to stdout without a newline
 *   "lines N"     writes N short lines at once
 *   "close"       closes stdout and stderr, then sleeps until stdin ends
 *   anything else replies {"type":"echo","len":<bytes in the line>}
 * and exits 0 at the end of stdin. */
#include <stdlib.h>
#include <unistd.h>
#include "proto.h"

int main(void) {
    if (!handshake()) return 0;
    while (read_line()) {
        if (strncmp(line, "exit ", 5) == 0) {
            return atoi(line + 5);
        } else if (strncmp(line, "err ", 4) == 0) {
            fputs(line + 4, stderr);
            fflush(stderr);
        } else if (strncmp(line, "long ", 5) == 0) {
            long n = atol(line + 5);
            while (n-- > 0) putchar('x');
            fflush(stdout);
        } else if (strncmp(line, "lines ", 6) == 0) {
            long n = atol(line + 6);
            for (long i = 0; i < n; i++) printf("{\"type\":\"line\",\"i\":%ld}\n", i);
            fflush(stdout);
        } else if (strncmp(line, "close", 5) == 0) {
            fclose(stdout);
            fclose(stderr);
            while (read_line()) {}
            return 0;
        } else {
            printf("{\"type\":\"echo\",\"len\":%zu}\n", strlen(line));
            fflush(stdout);
        }
    }
    return 0;
}
