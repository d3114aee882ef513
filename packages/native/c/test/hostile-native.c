/*
 * hostile-native: a native program that tries to reach what a topology's program must not
 * (packages/native/SANDBOX.md), and prints one line per attempt:
 *
 *   ATTEMPT: blocked: WHY      the sandbox held
 *   ATTEMPT: REACHED: WHAT     it did not
 *
 *   hostile-native --tmp DIR --port PORT --write DIR [--signal N]
 *
 * --tmp: where a program would look for other processes' files (a pod's token directory
 * rocelab-token-* is made in the member's temporary directory); --port: a TCP listener on
 * 127.0.0.1 outside the pod; --write: a directory to write a file into (the repository);
 * --signal: what to send the member (default 9: a sandbox that fails loses its pod; 0 only asks
 * whether it could).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static int reached;

static void say(const char *attempt, int ok, const char *detail)
{
	printf("%s: %s: %s\n", attempt, ok ? "REACHED" : "blocked", detail);
	if (ok) reached++;
}

/* A file's first bytes as text; -errno on failure. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return -errno;
	ssize_t n = read(fd, buf, cap - 1);
	int e = errno;
	close(fd);
	if (n < 0) return -e;
	buf[n] = 0;
	return n;
}

/* Whether an environ block (NUL-separated) holds NAME=; its value copied to `value`. */
static int environ_has(const char *block, ssize_t n, const char *name, char *value, size_t cap)
{
	size_t len = strlen(name);
	for (ssize_t at = 0; at < n; at += (ssize_t)strlen(block + at) + 1) {
		if (strncmp(block + at, name, len) == 0 && block[at + len] == '=') {
			snprintf(value, cap, "%s", block + at + len + 1);
			return 1;
		}
	}
	return 0;
}

static void try_token_file(const char *path, const char *how)
{
	char buf[256], text[1400];
	ssize_t n = slurp(path, buf, sizeof buf);
	if (n >= 0) {
		snprintf(text, sizeof text, "%s: read %zd bytes of %s", how, n, path);
		say("token", 1, text);
	} else {
		snprintf(text, sizeof text, "%s: %s: %s", how, path, strerror((int)-n));
		say("token", 0, text);
	}
}

static void attempt_token(const char *tmp)
{
	/* The name the member's environment gives it. */
	const char *named = getenv("ROCELAB_POD_TOKEN_FILE");
	if (named) try_token_file(named, "ROCELAB_POD_TOKEN_FILE");
	else say("token", 0, "ROCELAB_POD_TOKEN_FILE is not in this program's environment");
	/* The place rocelab run/up make it: TMP/rocelab-token-XXXXXX/pod-token. */
	DIR *d = opendir(tmp);
	if (d == NULL) {
		char text[600];
		snprintf(text, sizeof text, "cannot list %s: %s", tmp, strerror(errno));
		say("token", 0, text);
		return;
	}
	int found = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "rocelab-token-", 14) != 0) continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s/pod-token", tmp, e->d_name);
		try_token_file(path, "guessed");
		found++;
	}
	closedir(d);
	if (!found) {
		char text[600];
		snprintf(text, sizeof text, "no rocelab-token-* in %s", tmp);
		say("token", 0, text);
	}
}

static void attempt_environ(void)
{
	char block[65536], value[512], text[1200];
	/* Its own environment: what the member handed down. */
	const char *mine = getenv("ROCELAB_POD_TOKEN_FILE");
	if (mine) {
		snprintf(text, sizeof text, "its own environment names the token file %s", mine);
		say("own-environ", 1, text);
	} else {
		say("own-environ", 0, "ROCELAB_POD_TOKEN_FILE is not in its own environment");
	}
	printf("env:");
	for (char **v = environ; *v; v++)
		if (strncmp(*v, "ROCELAB_", 8) == 0 || strncmp(*v, "LD_", 3) == 0) printf(" %.*s", (int)(strcspn(*v, "=")), *v);
	printf("\n");
	/* Every process it can see: pid 1 first (the host's init, or a member's). */
	ssize_t n = slurp("/proc/1/environ", block, sizeof block);
	if (n < 0) {
		snprintf(text, sizeof text, "/proc/1/environ: %s", strerror((int)-n));
		say("proc1-environ", 0, text);
	} else if (environ_has(block, n, "ROCELAB_POD_TOKEN_FILE", value, sizeof value)) {
		snprintf(text, sizeof text, "/proc/1/environ names the token file %s", value);
		say("proc1-environ", 1, text);
	} else {
		say("proc1-environ", 0, "/proc/1/environ has no ROCELAB_POD_TOKEN_FILE");
	}
	DIR *d = opendir("/proc");
	int seen = 0, named = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
		seen++;
		char path[300];
		snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
		n = slurp(path, block, sizeof block);
		if (n > 0 && environ_has(block, n, "ROCELAB_POD_TOKEN_FILE", value, sizeof value)) {
			if (!named++) {
				snprintf(text, sizeof text, "/proc/%s/environ names the token file %s", e->d_name, value);
				say("procs-environ", 1, text);
				try_token_file(value, "from another process's environment");
			}
		}
	}
	if (d) closedir(d);
	if (!named) {
		snprintf(text, sizeof text, "none of the %d processes it sees names the token file", seen);
		say("procs-environ", 0, text);
	}
}

static void attempt_connect(int port)
{
	char text[300];
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(text, sizeof text, "socket: %s", strerror(errno));
		say("connect", 0, text);
		return;
	}
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(s, (struct sockaddr *)&a, sizeof a) == 0) {
		(void)!write(s, "hostile\n", 8);
		snprintf(text, sizeof text, "connected to 127.0.0.1:%d", port);
		say("connect", 1, text);
	} else {
		snprintf(text, sizeof text, "127.0.0.1:%d: %s", port, strerror(errno));
		say("connect", 0, text);
	}
	close(s);
}

static void attempt_write(const char *dir)
{
	char path[1024], text[1200];
	snprintf(path, sizeof path, "%s/hostile-native-was-here", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, "x\n", 2);
		close(fd);
		snprintf(text, sizeof text, "wrote %s", path);
		say("write", 1, text);
	} else {
		snprintf(text, sizeof text, "%s: %s", path, strerror(errno));
		say("write", 0, text);
	}
}

/* Its process's parent, and that one's (/proc/PID/stat: "pid (comm) state ppid"). */
static pid_t parent_of(pid_t pid, char *comm, size_t cap)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (slurp(path, buf, sizeof buf) <= 0) return 0;
	char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren) return 0;
	snprintf(comm, cap, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
	int ppid = 0;
	if (sscanf(close_paren + 2, "%*c %d", &ppid) != 1) return 0;
	return (pid_t)ppid;
}

static void attempt_kill(int sig)
{
	/* The member is the nearest ancestor that is neither a launcher nor bwrap: a node process. */
	char comm[64] = "", text[300];
	pid_t pid = getppid();
	pid_t member = 0;
	for (int depth = 0; pid > 0 && depth < 8; depth++) {
		char c[64];
		pid_t up = parent_of(pid, c, sizeof c);
		if (strcmp(c, "rocelab-launch") != 0 && strcmp(c, "bwrap") != 0 && c[0] != 0) {
			member = pid;
			snprintf(comm, sizeof comm, "%s", c);
			break;
		}
		pid = up;
	}
	if (member == 0) {
		say("kill", 0, "no ancestor of it but launchers and bwrap is visible");
		return;
	}
	if (kill(member, sig) == 0) {
		snprintf(text, sizeof text, "sent signal %d to its member %s (pid %d)", sig, comm, (int)member);
		say("kill", 1, text);
	} else {
		snprintf(text, sizeof text, "signal %d to %s (pid %d): %s", sig, comm, (int)member, strerror(errno));
		say("kill", 0, text);
	}
}

int main(int argc, char **argv)
{
	const char *tmp = "/tmp", *write_dir = NULL;
	int port = 0, sig = SIGKILL;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--tmp") == 0) tmp = argv[i + 1];
		else if (strcmp(argv[i], "--port") == 0) port = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--write") == 0) write_dir = argv[i + 1];
		else if (strcmp(argv[i], "--signal") == 0) sig = atoi(argv[i + 1]);
		else {
			fprintf(stderr, "hostile-native: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	attempt_token(tmp);
	attempt_environ();
	if (port > 0) attempt_connect(port);
	if (write_dir) attempt_write(write_dir);
	attempt_kill(sig);
	printf("reached %d\n", reached);
	fflush(stdout);
	return 0;
}
