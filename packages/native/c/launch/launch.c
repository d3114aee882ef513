/*
 * rocelab-launch: how a host starts a native program (issue 25). It runs the program as its child
 * with the device's libraries in place (LD_PRELOAD librocelab.so, LD_LIBRARY_PATH before the
 * system's), waits for it, and tells the host how it ended with a last message on the program's
 * channel (RL_EXIT): the host runs in lockstep and reads the channel synchronously, so it learns
 * the exit status at the virtual instant the program closed its channel, not whenever Node's
 * event loop next turns.
 *
 *   ROCELAB_CHANNEL_FD=3 ROCELAB_CHILD_PRELOAD=... ROCELAB_CHILD_LIBRARY_PATH=... rocelab-launch PROGRAM ARGS...
 *
 * The launcher itself is not preloaded (it must not speak on the channel as a program would).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rocelab_proto.h"

static void send_exit(int fd, int32_t code, int32_t sig, const char *error)
{
	struct {
		struct rl_hdr h;
		struct rl_exit e;
	} m;
	memset(&m, 0, sizeof(m));
	m.h.type = RL_EXIT;
	m.h.len = sizeof(m);
	m.e.code = code;
	m.e.signal = sig;
	if (error)
		snprintf(m.e.error, sizeof(m.e.error), "%s", error);
	/* Nothing to do if the host is gone: it learns nothing more either way. */
	(void)!send(fd, &m, sizeof(m), MSG_NOSIGNAL);
}

static void move_env(const char *from, const char *to)
{
	const char *v = getenv(from);
	if (v && *v) {
		const char *old = getenv(to);
		if (old && *old && strcmp(to, "LD_LIBRARY_PATH") == 0) {
			size_t n = strlen(v) + strlen(old) + 2;
			char *both = malloc(n);
			snprintf(both, n, "%s:%s", v, old);
			setenv(to, both, 1);
			free(both);
		} else {
			setenv(to, v, 1);
		}
	}
	unsetenv(from);
}

int main(int argc, char **argv)
{
	const char *fd_text = getenv("ROCELAB_CHANNEL_FD");
	if (argc < 2 || !fd_text) {
		fprintf(stderr, "rocelab-launch: run by a rocelab host only (ROCELAB_CHANNEL_FD and a program to run)\n");
		return 2;
	}
	int fd = atoi(fd_text);
	/* A program never outlives its host: the launcher dies with the member, the program with the launcher. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	move_env("ROCELAB_CHILD_PRELOAD", "LD_PRELOAD");
	move_env("ROCELAB_CHILD_LIBRARY_PATH", "LD_LIBRARY_PATH");
	/* Errors of exec reach the host through a close-on-exec pipe: empty means it ran. */
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) != 0) {
		send_exit(fd, 127, 0, "rocelab-launch: pipe failed");
		return 127;
	}
	pid_t pid = fork();
	if (pid < 0) {
		send_exit(fd, 127, 0, "rocelab-launch: fork failed");
		return 127;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* No address randomization: a program that prints a buffer's address (perftest's VAddr)
		 * prints the same one every run. Where it is refused (a container's seccomp profile), the
		 * addresses vary and nothing else does. */
		int persona = personality(0xffffffff);
		if (persona != -1)
			personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
		close(errpipe[0]);
		execvp(argv[1], argv + 1);
		int e = errno;
		(void)!write(errpipe[1], &e, sizeof(e));
		_exit(127);
	}
	close(errpipe[1]);
	/* The program holds the channel; the launcher keeps its copy only for the last word. */
	int exec_errno = 0;
	ssize_t got = read(errpipe[0], &exec_errno, sizeof(exec_errno));
	close(errpipe[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof(exec_errno)) {
		char text[200];
		snprintf(text, sizeof(text), "cannot run %s: %s", argv[1], strerror(exec_errno));
		send_exit(fd, 127, 0, text);
		return 127;
	}
	if (WIFSIGNALED(status)) {
		send_exit(fd, -1, WTERMSIG(status), NULL);
		return 128 + WTERMSIG(status);
	}
	send_exit(fd, WEXITSTATUS(status), 0, NULL);
	return WEXITSTATUS(status);
}
