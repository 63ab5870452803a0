/* Raw JSON-lines ping-pong partner: echoes a short reply for every line read. */
#include <stdio.h>
#include <string.h>

int main(void) {
    static char line[1 << 21];
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    while (fgets(line, sizeof line, stdin)) {
        fputs("{\"type\":\"action\",\"id\":1,\"index\":0}\n", stdout);
        fflush(stdout);
    }
    return 0;
}
