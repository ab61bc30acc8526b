/* The driver of perf-lib.sh's perf_compare_new: times two commands as whole processes, taking
 * turns, each run with content of its own.
 *
 * Usage: exec-alternate RUNS OURS_TIMES THEIRS_TIMES OURS_ARGV... --- THEIRS_ARGV...
 *
 * Each command is spawned directly (posix_spawn, no shell), its output sent to /dev/null, and
 * its wall time, from just before the spawn to the return of waitpid, appended in nanoseconds
 * to OURS_TIMES or THEIRS_TIMES, one line per run. In every argument the text {N} is replaced
 * by the run's number before the clock starts, so each run can write new content; ours and
 * theirs get the same number in a round. One untimed round (number 0) comes first, to warm
 * the page cache for both alike. A command that fails stops the driver with exit status 1. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* argv with every {N} replaced by n; the strings are leaked (a driver of a few thousand runs). */
static char **expand(char **argv, int argc, long n) {
    char **out = calloc(argc + 1, sizeof *out);
    char num[32];
    snprintf(num, sizeof num, "%ld", n);
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        size_t cap = strlen(s) * 2 + 64, len = 0;
        char *e = malloc(cap);
        while (*s) {
            if (strncmp(s, "{N}", 3) == 0) {
                len += (size_t)snprintf(e + len, cap - len, "%s", num);
                s += 3;
            } else {
                e[len++] = *s++;
            }
        }
        e[len] = 0;
        out[i] = e;
    }
    return out;
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Runs argv once; returns its wall time in nanoseconds, or -1 when it failed. */
static long long run(char **argv) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    long long t0 = now_ns();
    if (posix_spawn(&pid, argv[0], &actions, NULL, argv, environ) != 0) return -1;
    int status;
    if (waitpid(pid, &status, 0) < 0) return -1;
    long long t1 = now_ns();
    posix_spawn_file_actions_destroy(&actions);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    return t1 - t0;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: exec-alternate RUNS OURS_TIMES THEIRS_TIMES OURS... --- THEIRS...\n");
        return 2;
    }
    long runs = atol(argv[1]);
    int split = 0;
    for (int i = 4; i < argc; i++)
        if (strcmp(argv[i], "---") == 0) split = i;
    if (split == 0 || split == 4 || split == argc - 1) {
        fprintf(stderr, "exec-alternate: give both commands, separated by ---\n");
        return 2;
    }
    FILE *ours = fopen(argv[2], "w"), *theirs = fopen(argv[3], "w");
    if (!ours || !theirs) return 1;
    for (long n = 0; n <= runs; n++) {
        long long a = run(expand(argv + 4, split - 4, n));
        long long b = run(expand(argv + split + 1, argc - split - 1, n));
        if (a < 0 || b < 0) {
            fprintf(stderr, "exec-alternate: %s failed in run %ld\n", a < 0 ? "ours" : "theirs", n);
            return 1;
        }
        if (n > 0) {
            fprintf(ours, "%lld\n", a);
            fprintf(theirs, "%lld\n", b);
        }
    }
    return fclose(ours) || fclose(theirs);
}
