/*
 * A program's threads under rocelab (issue 25): rping runs a CM thread and a CQ thread beside its
 * main thread, handing off through semaphores.
 *
 * Each thread started through pthread_create gets a channel of its own to the host (the program
 * makes a SOCK_SEQPACKET pair and passes one end with RL_THREAD_NEW), and its first request,
 * RL_THREAD_START, is answered only when the host resumes it. The host resumes one thread of a
 * program at a time and lets it run until it waits (packages/runtime/src/program-host.ts), so the
 * program's threads interleave the same way in every run: only their requests decide who runs.
 *
 * That holds only if a thread never blocks where the host cannot see it. So the blocking calls
 * rping and rdma_cm use become waits at the host: sem_wait (a failed sem_trywait, then a wait until
 * another thread posts a semaphore or ends), sem_post (which wakes those waits) and pthread_join
 * (a wait until the thread ended). Limits: pthread_mutex_lock on a mutex held by a thread that
 * waits at the host, pthread_cond_wait, sem_timedwait, futexes, pipes and other descriptors between
 * threads block outside rocelab: the host then finds no request within the program's timeout and
 * stops the program with an error saying so. Threads made without pthread_create (clone) share the
 * main thread's channel.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "rocelab_proto.h"

struct thread_rec {
	pthread_t thread;
	int ended; /* atomic: set by the thread's last act (its key's destructor) */
	struct thread_rec *next;
};

struct start {
	void *(*fn)(void *);
	void *arg;
	int fd;
	struct thread_rec *rec;
};

static pthread_mutex_t recs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_rec *recs;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*join_fn)(pthread_t, void **);
typedef int (*sem_fn)(sem_t *);

static void *next_sym(const char *name) {
	return dlsym(RTLD_NEXT, name);
}

/* Runs when a thread ends (returned, pthread_exit, cancelled), not when the process exits. */
static void thread_gone(void *value) {
	struct thread_rec *rec = value;
	__atomic_store_n(&rec->ended, 1, __ATOMIC_SEQ_CST);
	rocelab_thread_release();
}

static void make_key(void) {
	pthread_key_create(&key, thread_gone);
}

static void *trampoline(void *p) {
	struct start s = *(struct start *)p;
	free(p);
	if (rocelab_thread_adopt(s.fd) == 0) {
		pthread_setspecific(key, s.rec);
		/* Runs on only when the host resumes it. */
		rocelab_call(RL_THREAD_START, NULL, 0, -1, NULL, 0, NULL);
	} else {
		syscall(SYS_close, s.fd);
	}
	return s.fn(s.arg);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
	static create_fn real;
	if (real == NULL) real = (create_fn)next_sym("pthread_create");
	if (!rocelab_attached()) return real(thread, attr, fn, arg);
	pthread_once(&key_once, make_key);
	int sv[2];
	if (syscall(SYS_socketpair, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return errno;
	struct rl_handle rep = { 0 };
	int err = rocelab_call(RL_THREAD_NEW, NULL, 0, sv[0], &rep, sizeof rep, NULL);
	syscall(SYS_close, sv[0]);
	struct start *s = malloc(sizeof *s);
	struct thread_rec *rec = calloc(1, sizeof *rec);
	if (err != 0 || s == NULL || rec == NULL) {
		syscall(SYS_close, sv[1]);
		free(s);
		free(rec);
		return err != 0 ? err : ENOMEM;
	}
	*s = (struct start){ .fn = fn, .arg = arg, .fd = sv[1], .rec = rec };
	int r = real(thread, attr, trampoline, s);
	if (r != 0) {
		/* The host's new thread ends before it began. */
		int fd = sv[1];
		free(s);
		free(rec);
		struct rl_hdr hdr = { .type = RL_THREAD_EXIT, .len = sizeof hdr };
		syscall(SYS_sendto, fd, &hdr, sizeof hdr, MSG_NOSIGNAL, NULL, 0);
		syscall(SYS_close, fd);
		return r;
	}
	rec->thread = *thread;
	pthread_mutex_lock(&recs_lock);
	rec->next = recs;
	recs = rec;
	pthread_mutex_unlock(&recs_lock);
	return 0;
}

int pthread_join(pthread_t thread, void **ret) {
	static join_fn real;
	if (real == NULL) real = (join_fn)next_sym("pthread_join");
	struct thread_rec *rec = NULL, **at;
	pthread_mutex_lock(&recs_lock);
	for (at = &recs; *at != NULL; at = &(*at)->next) {
		if (pthread_equal((*at)->thread, thread)) {
			rec = *at;
			*at = rec->next;
			break;
		}
	}
	pthread_mutex_unlock(&recs_lock);
	if (rec != NULL) {
		/* A wait at the host until the thread said its last word; the real join then returns at
		 * once (in wall time: the thread is past everything the host sees). */
		while (!__atomic_load_n(&rec->ended, __ATOMIC_SEQ_CST)) rocelab_yield(0);
		free(rec);
	}
	return real(thread, ret);
}

int sem_wait(sem_t *sem) {
	static sem_fn real;
	if (real == NULL) real = (sem_fn)next_sym("sem_wait");
	if (!rocelab_attached()) return real(sem);
	for (;;) {
		if (sem_trywait(sem) == 0) return 0;
		if (errno != EAGAIN) return -1;
		rocelab_yield(0);
	}
}

int sem_post(sem_t *sem) {
	static sem_fn real;
	if (real == NULL) real = (sem_fn)next_sym("sem_post");
	int r = real(sem);
	if (r == 0 && rocelab_attached()) rocelab_wake();
	return r;
}

void rocelab_yield(uint32_t flags) {
	struct rl_handle req = { .handle = flags };
	rocelab_call(RL_THREAD_YIELD, &req, sizeof req, -1, NULL, 0, NULL);
}

void rocelab_wake(void) {
	rocelab_call(RL_THREAD_WAKE, NULL, 0, -1, NULL, 0, NULL);
}
