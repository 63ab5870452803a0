/* Memory hog: answers hello; on the next line allocates and touches memory in 8 MiB
 * steps without bound, reporting each step on stderr. Under a memory limit the kernel
 * kills it (OOM); a failed allocation is reported on stdout and the hog keeps trying. */
#include <stdlib.h>
#include <unistd.h>
#include "proto.h"

int main(void) {
    size_t step = 8u << 20, total = 0;
    if (!handshake() || !read_line()) return 0;
    for (;;) {
        char *p = malloc(step);
        if (!p) {
            say("{\"type\":\"report\",\"malloc\":\"failed\"}");
            sleep(1);
            continue;
        }
        memset(p, 0xA5, step);
        total += step;
        fprintf(stderr, "hog: %zu MiB\n", total >> 20);
    }
}
