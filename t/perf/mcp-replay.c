/*
 * mcp-replay: a stand-in MCP server for p0600. It answers every request line at once with a
 * recorded response, so the time a client spends on a call against it is the client's own
 * cost plus the pipes: the best any server could do with the same response bytes.
 *
 * usage: mcp-replay [--busy-us N] INITIALIZE.json TOOLS-LIST.json TOOLS-CALL.json
 *
 * With --busy-us, it spins on the CPU for N microseconds before each answer to a tool call: a
 * server that takes N us of work a call, which p0600 uses to find how much a client's rate
 * falls per microsecond a server spends, and so the time a server may spend for a target rate.
 * It spins rather than sleeps because a server at work keeps its CPU; a sleeping one would
 * add a wake-up that a busy server does not pay.
 *
 * Each file holds one JSON-RPC response line in which the id is the text @ID@. A request whose
 * method is "initialize" gets the first, "tools/list" the second, any other request the third,
 * with the request's id put in place of @ID@. Lines without a method and an id (notifications,
 * responses) get nothing. The id is the first "id" key on the line, which is the request's as
 * long as its parameters have no key of that name (true of the reads p0600 replays).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *text = malloc(n + 1);
	if (!text || fread(text, 1, n, f) != (size_t)n) {
		fprintf(stderr, "%s: cannot read\n", path);
		exit(2);
	}
	text[n] = 0;
	fclose(f);
	text[strcspn(text, "\n")] = 0;
	if (!strstr(text, "@ID@")) {
		fprintf(stderr, "%s: no @ID@ in the response\n", path);
		exit(2);
	}
	return text;
}

static void reply(const char *response, const char *id, size_t id_len)
{
	static char out[1 << 22];
	const char *at = strstr(response, "@ID@");
	size_t before = at - response, after = strlen(at + 4);
	if (before + id_len + after + 1 > sizeof(out))
		exit(2);
	memcpy(out, response, before);
	memcpy(out + before, id, id_len);
	memcpy(out + before + id_len, at + 4, after);
	out[before + id_len + after] = '\n';
	size_t n = before + id_len + after + 1;
	for (size_t done = 0; done < n;) {
		ssize_t w = write(1, out + done, n - done);
		if (w <= 0)
			exit(1);
		done += w;
	}
}

static void spin(long microseconds)
{
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < microseconds);
}

int main(int argc, char **argv)
{
	long busy = 0;
	if (argc == 6 && strcmp(argv[1], "--busy-us") == 0) {
		busy = atol(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc != 4 || busy < 0) {
		fprintf(stderr, "usage: mcp-replay [--busy-us N] INITIALIZE.json TOOLS-LIST.json TOOLS-CALL.json\n");
		return 2;
	}
	char *initialize = load(argv[1]), *list = load(argv[2]), *call = load(argv[3]);
	static char line[1 << 22];
	while (fgets(line, sizeof(line), stdin)) {
		char *id = strstr(line, "\"id\":");
		if (!id || !strstr(line, "\"method\""))
			continue;
		id += 5;
		while (*id == ' ')
			id++;
		size_t id_len = strcspn(id, ",}");
		if (strstr(line, "\"method\":\"initialize\"") || strstr(line, "\"method\": \"initialize\""))
			reply(initialize, id, id_len);
		else if (strstr(line, "\"method\":\"tools/list\"") || strstr(line, "\"method\": \"tools/list\""))
			reply(list, id, id_len);
		else {
			spin(busy);
			reply(call, id, id_len);
		}
	}
	return 0;
}
