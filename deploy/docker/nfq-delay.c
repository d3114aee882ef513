/*
 * nfq-delay QUEUE DELAY_US: holds every packet netfilter queues on QUEUE for DELAY_US
 * microseconds, then lets it go, in arrival order. A fixed one-way delay for kernels built
 * without sch_netem (`tc qdisc add … netem delay` then fails with "Specified qdisc kind is
 * unknown"): docs/multi-machine.md, test/src/dind-swarm.test.ts. Packets are queued by an
 * iptables rule such as
 *
 *   iptables -t mangle -A POSTROUTING -o eth0 -d PEER -j NFQUEUE --queue-num 0
 *
 * Only metadata is copied to userspace (the verdict needs the packet id alone). The delay is the
 * same for every packet, so the held packets leave in the order they came: a FIFO. The timer
 * slack is set to 1 ns, or a 100 µs delay would drift by the default 50 µs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#define HELD_MAX 65536

static struct { uint32_t id; uint64_t due; } held[HELD_MAX];
static size_t head, count;
static uint64_t delay_ns;
static unsigned long dropped;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int on_packet(struct nfq_q_handle *q, struct nfgenmsg *msg, struct nfq_data *data, void *arg) {
  (void)msg;
  (void)arg;
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(data);
  if (ph == NULL) return 0;
  uint32_t id = ntohl(ph->packet_id);
  if (count == HELD_MAX) {
    // Full: a real link's queue would drop too. Counted, and said at exit.
    dropped++;
    return nfq_set_verdict(q, id, NF_DROP, 0, NULL);
  }
  size_t at = (head + count) % HELD_MAX;
  held[at].id = id;
  held[at].due = now_ns() + delay_ns;
  count++;
  return 0;
}

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "nfq-delay: expected QUEUE DELAY_US, got %d arguments\n", argc - 1);
    return 2;
  }
  char *end;
  long queue = strtol(argv[1], &end, 10);
  if (*end != '\0' || queue < 0 || queue > 65535) {
    fprintf(stderr, "nfq-delay: QUEUE %s: expected a queue number 0..65535\n", argv[1]);
    return 2;
  }
  long delay_us = strtol(argv[2], &end, 10);
  if (*end != '\0' || delay_us < 0 || delay_us > 10000000) {
    fprintf(stderr, "nfq-delay: DELAY_US %s: expected microseconds 0..10000000\n", argv[2]);
    return 2;
  }
  delay_ns = (uint64_t)delay_us * 1000u;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  // Woken on time even on a busy machine: a delayer queued behind the pod's own processes
  // would add its scheduling latency to every packet. Real-time if the cgroup allows it (a
  // container's has no real-time budget unless the engine gives it one), else the highest
  // nice; both need CAP_SYS_NICE. It sleeps between packets, so it takes no CPU from anyone.
  struct sched_param rt = {.sched_priority = 10};
  if (sched_setscheduler(0, SCHED_FIFO, &rt) != 0 && setpriority(PRIO_PROCESS, 0, -20) != 0)
    perror("nfq-delay: neither SCHED_FIFO nor nice -20 (delays may run late on a busy machine)");
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);

  struct nfq_handle *h = nfq_open();
  if (h == NULL) { perror("nfq-delay: nfq_open"); return 1; }
  struct nfq_q_handle *q = nfq_create_queue(h, (uint16_t)queue, on_packet, NULL);
  if (q == NULL) { perror("nfq-delay: nfq_create_queue"); return 1; }
  if (nfq_set_mode(q, NFQNL_COPY_META, 0) < 0) { perror("nfq-delay: nfq_set_mode"); return 1; }
  nfq_set_queue_maxlen(q, HELD_MAX);
  int fd = nfq_fd(h);
  nfnl_rcvbufsiz(nfq_nfnlh(h), 16 * 1024 * 1024);
  fprintf(stderr, "nfq-delay: queue %ld, %ld us\n", queue, delay_us);

  char buf[4096] __attribute__((aligned));
  while (!stop) {
    uint64_t now = now_ns();
    while (count > 0 && held[head].due <= now) {
      nfq_set_verdict(q, held[head].id, NF_ACCEPT, 0, NULL);
      head = (head + 1) % HELD_MAX;
      count--;
    }
    struct timespec wait = {1, 0};
    if (count > 0) {
      uint64_t left = held[head].due - now;
      wait.tv_sec = (time_t)(left / 1000000000u);
      wait.tv_nsec = (long)(left % 1000000000u);
    }
    struct pollfd p = {fd, POLLIN, 0};
    int r = ppoll(&p, 1, &wait, NULL);
    if (r < 0 && errno != EINTR) { perror("nfq-delay: ppoll"); break; }
    if (r > 0) {
      // Everything already queued, without blocking, before the next verdicts are due.
      for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0) {
          if (errno == ENOBUFS) { fprintf(stderr, "nfq-delay: the kernel dropped queued packets (ENOBUFS)\n"); continue; }
          break;
        }
        nfq_handle_packet(h, buf, (int)n);
      }
    }
  }
  // Let whatever is still held go, so that stopping the delay never loses a packet.
  while (count > 0) {
    nfq_set_verdict(q, held[head].id, NF_ACCEPT, 0, NULL);
    head = (head + 1) % HELD_MAX;
    count--;
  }
  if (dropped > 0) fprintf(stderr, "nfq-delay: %lu packets dropped (more than %d held)\n", dropped, HELD_MAX);
  nfq_destroy_queue(q);
  nfq_close(h);
  return 0;
}
