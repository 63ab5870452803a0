/* Fork bomb: answers hello; on the next line every process forks as fast as it can,
 * forever (a failed fork is retried after 10 ms). The first process stops forking after
 * about a second and reports {"type":"report","forks_ok":N,"forks_failed":M,"error":"..."};
 * then it answers every further line with {"type":"alive"} and exits at the end of stdin.
 * Under a PID limit the forks start failing and the container stays usable. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "proto.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bomb(void) {
    for (;;) {
        if (fork() < 0) usleep(10000);
    }
}

int main(void) {
    long ok = 0, failed = 0;
    int err = 0;
    double end;
    if (!handshake() || !read_line()) return 0;
    end = now() + 1.0;
    while (now() < end && failed < 200) {
        pid_t pid = fork();
        if (pid == 0) bomb();
        if (pid < 0) {
            failed++;
            err = errno;
            usleep(2000);
        } else {
            ok++;
        }
    }
    printf("{\"type\":\"report\",\"forks_ok\":%ld,\"forks_failed\":%ld,\"error\":\"%s\"}\n",
           ok, failed, err ? strerror(err) : "");
    fflush(stdout);
    while (read_line()) say("{\"type\":\"alive\"}");
    return 0;
}
