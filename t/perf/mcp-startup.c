/*
 * mcp-startup: the driver of p0610. It measures, for each of several MCP server commands, the
 * time from spawning the server to reading the end of its answer to `initialize`: what a host
 * waits for before it can list a server's tools.
 *
 * usage: mcp-startup RUNS WARMUP -- NAME COMMAND [ARGS...] [-- NAME COMMAND [ARGS...]]...
 *
 * Each server is started directly with posix_spawn (no shell between), its stdin and stdout
 * pipes to this process and its stderr /dev/null. The clock (CLOCK_MONOTONIC) starts just
 * before the spawn; the initialize request is written at once, as a host does, and the clock
 * stops when the newline ending the answer's line arrives. Then stdin is closed and the server
 * is waited for (it must exit within 5 seconds of EOF, else it is killed), untimed. The
 * servers take turns: run 1 of every server, then run 2 of every server, and so on, the first
 * in each round changing from round to round, so that a drift in the machine's load falls on
 * all of them alike. WARMUP untimed rounds come first, to fill the page cache.
 *
 * This process starts once, before any clock runs, so its own start-up is in no measurement.
 * Each timed run prints one line, `NAME NANOSECONDS`. An answer that is not an initialize
 * result (no "serverInfo"), a server that exits or closes stdout first, or a run over 30
 * seconds stops the driver with exit status 2 and a message on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char request[] =
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
	"\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
	"\"clientInfo\":{\"name\":\"p0610-mcp-startup\",\"version\":\"1.0.0\"}}}\n";

struct server {
	const char *name;
	char **argv;
};

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *name, const char *what)
{
	fprintf(stderr, "mcp-startup: %s: %s\n", name, what);
	exit(2);
}

/* Waits for pid after its stdin closed: 5 s, then SIGKILL. */
static void reap(const char *name, pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		int status;
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return;
		struct timespec ten_ms = { 0, 10000000L };
		nanosleep(&ten_ms, NULL);
	}
	fprintf(stderr, "mcp-startup: %s did not exit on EOF; killed\n", name);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* One start of the server; returns the nanoseconds to the end of its initialize answer. */
static long long run(const struct server *s)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		die(s->name, "pipe failed");
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, in[0], 0);
	posix_spawn_file_actions_adddup2(&actions, out[1], 1);
	posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);

	static char buf[1 << 16];
	size_t have = 0;
	pid_t pid;
	long long t0 = now_ns();
	if (posix_spawn(&pid, s->argv[0], &actions, NULL, s->argv, environ))
		die(s->name, "cannot start the server");
	close(in[0]);
	close(out[1]);
	if (write(in[1], request, sizeof request - 1) != (ssize_t)(sizeof request - 1))
		die(s->name, "writing the initialize request failed");
	for (;;) {
		struct pollfd p = { out[0], POLLIN, 0 };
		int ready = poll(&p, 1, 30000);
		if (ready == 0)
			die(s->name, "no answer to initialize within 30 s");
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			die(s->name, "poll failed");
		}
		ssize_t n = read(out[0], buf + have, sizeof buf - 1 - have);
		if (n <= 0)
			die(s->name, "the server closed stdout before answering");
		char *newline = memchr(buf + have, '\n', (size_t)n);
		have += (size_t)n;
		if (newline) {
			long long t1 = now_ns();
			buf[have] = 0;
			if (!strstr(buf, "\"serverInfo\""))
				die(s->name, "the first line is not an initialize result");
			close(in[1]);
			close(out[0]);
			posix_spawn_file_actions_destroy(&actions);
			reap(s->name, pid);
			return t1 - t0;
		}
		if (have == sizeof buf - 1)
			die(s->name, "the answer's first line is over 64 KiB");
	}
}

int main(int argc, char **argv)
{
	if (argc < 6 || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: mcp-startup RUNS WARMUP -- NAME COMMAND [ARGS...] [-- ...]...\n");
		return 64;
	}
	int runs = atoi(argv[1]), warmup = atoi(argv[2]);
	struct server servers[16];
	int count = 0;
	/* The rest is "-- NAME COMMAND ARGS..." again and again: each "--" becomes the NULL that
	 * ends the argv before it (argv[argc] ends the last). */
	for (int i = 3; i < argc;) {
		if (strcmp(argv[i], "--") || i + 2 >= argc || count == 16) {
			fprintf(stderr, "mcp-startup: each server is -- NAME COMMAND [ARGS...]\n");
			return 64;
		}
		argv[i] = NULL;
		servers[count].name = argv[i + 1];
		servers[count].argv = &argv[i + 2];
		count++;
		for (i += 2; i < argc && strcmp(argv[i], "--"); i++)
			;
	}

	signal(SIGPIPE, SIG_IGN);
	for (int round = 0; round < warmup + runs; round++) {
		for (int k = 0; k < count; k++) {
			const struct server *s = &servers[(round + k) % count];
			long long ns = run(s);
			if (round >= warmup)
				printf("%s %lld\n", s->name, ns);
		}
		fflush(stdout);
	}
	return 0;
}
