/*
 * The TSC in virtual time (issue 25, "Virtual time").
 *
 * perftest times with rdtsc (get_cycles in its src/get_clock.h) and converts cycles to time by the
 * "cpu MHz" of /proc/cpuinfo. rdtsc cannot be made to trap on this kind of VM (prctl PR_SET_TSC
 * succeeds and is ignored), so the instructions are rewritten instead: at load, and after every
 * dlopen and dlclose, each real rdtsc (0F 31) and rdtscp (0F 01 F9) found by disassembling (capstone,
 * linear sweep) the executable sections of the program and of every object it has loaded is
 * replaced by ud2 (0F 0B, padded with NOPs to the original length). The SIGILL that ud2 raises is
 * answered here: EDX:EAX = virtual TSC = now_ps x MHz / 10^6 (RCX = 0, the TSC_AUX, for rdtscp),
 * RIP moved past the original instruction. A TSC read counts toward the spin rule of clock.c, so
 * a loop on rdtsc makes progress like a loop on clock_gettime.
 *
 * Where the code is looked for: the SHF_EXECINSTR sections of the object's file (what objdump -d
 * disassembles) when the file on disk is the one mapped (its ELF header is compared with the
 * mapped one), else the whole executable PT_LOAD segments. A linear sweep restarts at each
 * section and skips one byte where capstone cannot decode; it decodes only the stretches that
 * lead up to the bytes 0F 31 or 0F 01 F9, each from the start of the function that holds them
 * (.eh_frame_hdr's table) when there is one, which is where a full sweep would be in step anyway.
 *
 * Not covered, by construction:
 * - static binaries: LD_PRELOAD never loads librocelab into them;
 * - the vDSO, the dynamic loader and librocelab itself are not scanned. The vDSO's clock code
 *   reads the TSC but clock.c's clock_gettime never calls it; the loader reads it only for
 *   LD_DEBUG=statistics;
 * - a TSC read by code that was not in an executable section when scanned: JIT-compiled code,
 *   self-modifying code, code copied to fresh pages, code loaded by something other than dlopen
 *   (a hand-rolled ELF loader, mmap of PROT_EXEC), and code run before this constructor (the
 *   initializers of libraries that librocelab does not depend on may run first) or by a dlopened
 *   library's initializers (dlopen runs them before it returns to us);
 * - bytes that decode as rdtsc in data placed inside an executable section (a jump table, a
 *   literal pool) would be rewritten: a linear sweep cannot tell them from code. objdump -d makes
 *   the same mistake, and the test holds the two to the same count on perftest;
 * - clocks read by a direct system call (syscall(SYS_clock_gettime), inline "syscall") or through
 *   vDSO symbols looked up by hand: only the libc functions are interposed (clock.c);
 * - a program that installs its SIGILL handler with a direct rt_sigaction system call, or blocks
 *   SIGILL with a direct rt_sigprocmask, replaces or defeats the emulation (sigaction, signal,
 *   sigprocmask and pthread_sigmask are interposed: the program's own SIGILL handler is kept
 *   behind ours and called for every SIGILL that is not an emulated TSC read);
 * - dlopen is interposed, so glibc sees librocelab as the caller: a dlopen that relies on its
 *   caller's DT_RPATH/DT_RUNPATH or on "$ORIGIN" resolves against librocelab's instead.
 *
 * What this asks of the core: rocelab_now_ps() must be async-signal-safe (the handler calls it
 * at every TSC read), and a rocelab_wait_any() must be possible from a signal handler that
 * interrupted the program's own code (the spin rule), never the core's; its constructor must run
 * before this one (ROCELAB_TSC_CTOR_PRIORITY).
 *
 * glibc's own two sites (the jitter of the adaptive mutex's back-off) are emulated like any other
 * but do not count as clock reads: they run inside pthread_mutex_lock, where a wait for the host
 * could deadlock with the core's own lock.
 */
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "core.h"
#include "vtime.h"

/* Constructors run in increasing priority: the channel's (channel.c, which makes
 * rocelab_attached() and rocelab_tsc_mhz() answer) must use a smaller number than this. */
#define ROCELAB_TSC_CTOR_PRIORITY 200

enum site_kind { SITE_RDTSC, SITE_RDTSCP };

struct site {
	uintptr_t addr;
	uint8_t len;      /* of the original instruction, prefixes included */
	uint8_t kind;     /* enum site_kind */
	uint8_t is_clock; /* counts toward the spin rule */
};

/* Every patched site, sorted by address. Replaced whole (never changed in place) and never freed,
 * so the SIGILL handler can read it while a dlopen in another thread builds the next one. */
struct table {
	size_t n;
	struct site sites[];
};

/* An object that was scanned: dl_iterate_phdr's identity of it, and what was patched in it. */
struct object {
	struct object *next;
	uintptr_t base;
	const void *phdr;
	char *name;
	struct site *sites;
	size_t n;
	int present;
	int done; /* its sites are patched */
};

static _Atomic(struct table *) patched;
static struct object *objects;
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t tsc_khz;
static csh disasm;
static atomic_int active;

/* The program's own SIGILL disposition, as it last set it (kept, never installed). */
static struct sigaction program_sigill;
static pthread_mutex_t sigill_lock = PTHREAD_MUTEX_INITIALIZER;

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);
#define NEXT(type, name) \
	({ \
		static __typeof__(type) fn_; \
		if (fn_ == NULL) fn_ = (type)dlsym(RTLD_NEXT, name); \
		fn_; \
	})

/* libc's sigaction, looked up by install() before the handler can need it (dlsym is not
 * async-signal-safe). */
static sigaction_fn real_sigaction(void)
{
	static _Atomic(sigaction_fn) fn;
	sigaction_fn f = atomic_load(&fn);
	if (f == NULL) atomic_store(&fn, f = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction"));
	return f;
}

uint64_t rocelab_tsc_at(uint64_t now_ps)
{
	return (uint64_t)((unsigned __int128)now_ps * tsc_khz / 1000000000u);
}

/* ---- The SIGILL handler ---- */

static const struct site *site_at(uintptr_t rip)
{
	const struct table *t = atomic_load_explicit(&patched, memory_order_acquire);
	if (t == NULL) return NULL;
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->sites[mid].addr < rip) lo = mid + 1;
		else hi = mid;
	}
	return lo < t->n && t->sites[lo].addr == rip ? &t->sites[lo] : NULL;
}

/* A SIGILL that is not ours: the program's handler if it set one, else the default action. */
static void forward(int sig, siginfo_t *info, void *ctx)
{
	struct sigaction act = program_sigill;
	int handler = (act.sa_flags & SA_SIGINFO) || (act.sa_handler != SIG_DFL && act.sa_handler != SIG_IGN);
	if (handler) {
		/* Called with SIGILL blocked, not with the program's sa_mask: it returns or longjmps. */
		if (act.sa_flags & SA_RESETHAND) program_sigill = (struct sigaction){.sa_handler = SIG_DFL};
		if (act.sa_flags & SA_SIGINFO) act.sa_sigaction(sig, info, ctx);
		else act.sa_handler(sig);
		return;
	}
	/* A SIGILL sent by kill() to a program that ignores it stays ignored; a fault cannot be. */
	if (act.sa_handler == SIG_IGN && info->si_code <= 0) return;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	real_sigaction()(SIGILL, &dfl, NULL);
	/* Pending until the handler returns (SIGILL is blocked in it), then fatal as without us. */
	raise(SIGILL);
}

static void on_sigill(int sig, siginfo_t *info, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *regs = uc->uc_mcontext.gregs;
	const struct site *s = info->si_code == ILL_ILLOPN ? site_at((uintptr_t)regs[REG_RIP]) : NULL;
	if (s == NULL) {
		forward(sig, info, ctx);
		return;
	}
	int saved_errno = errno;
	if (s->is_clock) rocelab_clock_read();
	uint64_t tsc = rocelab_tsc_at(rocelab_now_ps());
	/* rdtsc writes EDX:EAX and, being a 32-bit write, clears both registers' upper halves. */
	regs[REG_RAX] = (greg_t)(tsc & 0xffffffffu);
	regs[REG_RDX] = (greg_t)(tsc >> 32);
	if (s->kind == SITE_RDTSCP) regs[REG_RCX] = 0;
	regs[REG_RIP] += s->len;
	errno = saved_errno;
}

/* ---- Finding the sites ---- */

/* A range of the object's memory to disassemble, at its run-time address. */
struct range {
	uintptr_t start;
	size_t len;
};

/* What dl_iterate_phdr said about one object; copied so the scan runs outside its lock. */
struct loaded {
	uintptr_t base;
	const ElfW(Phdr) *phdr;
	ElfW(Half) phnum;
	char *name;
	int is_main;
};

static int phdr_prot(ElfW(Word) flags)
{
	return ((flags & PF_R) ? PROT_READ : 0) | ((flags & PF_W) ? PROT_WRITE : 0) | ((flags & PF_X) ? PROT_EXEC : 0);
}

/* The executable PT_LOAD holding [addr, addr + len), as run-time addresses; NULL if none does. */
static const ElfW(Phdr) *exec_segment(const struct loaded *o, uintptr_t addr, size_t len)
{
	for (ElfW(Half) i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];
		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
		uintptr_t lo = o->base + p->p_vaddr;
		if (addr >= lo && addr + len <= lo + p->p_memsz) return p;
	}
	return NULL;
}

static int contains(const struct loaded *o, uintptr_t addr)
{
	for (ElfW(Half) i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];
		if (p->p_type == PT_LOAD && addr >= o->base + p->p_vaddr && addr < o->base + p->p_vaddr + p->p_memsz) return 1;
	}
	return 0;
}

/* The object's SHF_EXECINSTR sections, read from its file if that file is the one mapped. */
static size_t file_sections(const struct loaded *o, struct range *out, size_t cap)
{
	const char *path = o->is_main ? "/proc/self/exe" : o->name;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return 0;
	size_t n = 0;
	ElfW(Ehdr) eh;
	const ElfW(Ehdr) *mapped = NULL;
	for (ElfW(Half) i = 0; i < o->phnum; i++)
		if (o->phdr[i].p_type == PT_LOAD && o->phdr[i].p_offset == 0) mapped = (const ElfW(Ehdr) *)(o->base + o->phdr[i].p_vaddr);
	if (mapped == NULL || pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(&eh, mapped, sizeof eh) != 0 || eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shnum == 0) {
		close(fd);
		return 0;
	}
	ElfW(Shdr) *sh = malloc((size_t)eh.e_shnum * sizeof *sh);
	if (sh != NULL && pread(fd, sh, (size_t)eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) == (ssize_t)(eh.e_shnum * sizeof *sh)) {
		for (ElfW(Half) i = 0; i < eh.e_shnum && n < cap; i++) {
			if (sh[i].sh_type != SHT_PROGBITS || (sh[i].sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) || sh[i].sh_size == 0) continue;
			uintptr_t start = o->base + sh[i].sh_addr;
			if (exec_segment(o, start, sh[i].sh_size) == NULL) continue;
			out[n++] = (struct range){start, sh[i].sh_size};
		}
	}
	free(sh);
	close(fd);
	return n;
}

static size_t exec_ranges(const struct loaded *o, struct range *out, size_t cap)
{
	size_t n = file_sections(o, out, cap);
	if (n > 0) return n;
	for (ElfW(Half) i = 0; i < o->phnum && n < cap; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];
		if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && p->p_memsz > 0) out[n++] = (struct range){o->base + p->p_vaddr, p->p_filesz};
	}
	return n;
}

static int push_site(struct site **sites, size_t *n, size_t *cap, struct site s)
{
	if (*n == *cap) {
		size_t grown_cap = *cap == 0 ? 64 : *cap * 2;
		struct site *grown = realloc(*sites, grown_cap * sizeof *grown);
		if (grown == NULL) return -1;
		*sites = grown;
		*cap = grown_cap;
	}
	(*sites)[(*n)++] = s;
	return 0;
}

/*
 * Function starts, from the object's .eh_frame_hdr (PT_GNU_EH_FRAME): the sorted table of every
 * FDE's first address that the unwinder searches. A sweep may start at any of them in step with
 * the code, which spares decoding the megabytes before a candidate (capstone decodes about
 * 4 MB/s: a whole libc costs a fifth of a second, libstdc++ or libcrypto more).
 */
struct starts {
	const int32_t *table; /* pairs (first address, FDE), relative to hdr, sorted by the first */
	size_t n;
	uintptr_t hdr;
};

static struct starts function_starts(const struct loaded *o)
{
	struct starts f = {0};
	for (ElfW(Half) i = 0; i < o->phnum; i++) {
		if (o->phdr[i].p_type != PT_GNU_EH_FRAME) continue;
		const uint8_t *h = (const uint8_t *)(o->base + o->phdr[i].p_vaddr);
		/* version 1; eh_frame_ptr a 4-byte value (any application); fde_count udata4; the table
		 * datarel sdata4: what GNU ld and lld write, and all this reads. */
		if (h[0] != 1 || ((h[1] & 0x0f) != 0x03 && (h[1] & 0x0f) != 0x0b) || h[2] != 0x03 || h[3] != 0x3b) break;
		uint32_t count;
		memcpy(&count, h + 8, sizeof count);
		f = (struct starts){(const int32_t *)(h + 12), count, (uintptr_t)h};
		break;
	}
	return f;
}

/* The greatest function start at or before `addr`; 0 if none is known. */
static uintptr_t start_before(const struct starts *f, uintptr_t addr)
{
	size_t lo = 0, hi = f->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->hdr + (intptr_t)f->table[2 * mid] <= addr) lo = mid + 1;
		else hi = mid;
	}
	return lo == 0 ? 0 : f->hdr + (intptr_t)f->table[2 * (lo - 1)];
}

static const uint8_t RDTSC[] = {0x0f, 0x31}, RDTSCP[] = {0x0f, 0x01, 0xf9};

/* The first byte pattern of rdtsc or rdtscp at or after `from`, or `end`. */
static uintptr_t next_pattern(uintptr_t from, uintptr_t end, const uint8_t *pat, size_t len)
{
	if (from >= end) return end;
	const void *at = memmem((const void *)from, end - from, pat, len);
	return at == NULL ? end : (uintptr_t)at;
}

/*
 * A linear sweep of one range, decoding only what leads up to each place its bytes could hold an
 * rdtsc or rdtscp: from the function start before that place when it is ahead of the sweep, else
 * on from where the sweep stands. A byte capstone cannot decode is skipped and the sweep goes on.
 * Without function starts it is the whole sweep, stopped after the last such place.
 */
static void sweep(struct range r, const struct starts *f, int is_clock, struct site **sites, size_t *n, size_t *cap)
{
	uintptr_t end = r.start + r.len, pos = r.start;
	uintptr_t next_tsc = next_pattern(pos, end, RDTSC, sizeof RDTSC), next_tscp = next_pattern(pos, end, RDTSCP, sizeof RDTSCP);
	if (next_tsc == end && next_tscp == end) return;
	cs_insn *insn = cs_malloc(disasm);
	if (insn == NULL) return;
	for (;;) {
		if (next_tsc < pos) next_tsc = next_pattern(pos, end, RDTSC, sizeof RDTSC);
		if (next_tscp < pos) next_tscp = next_pattern(pos, end, RDTSCP, sizeof RDTSCP);
		uintptr_t candidate = next_tsc < next_tscp ? next_tsc : next_tscp;
		if (candidate >= end) break;
		uintptr_t sync = start_before(f, candidate);
		if (sync > pos) pos = sync;
		/* Up to and including the instruction that holds the candidate's first byte. */
		while (pos <= candidate && pos < end) {
			const uint8_t *code = (const uint8_t *)pos;
			size_t left = end - pos;
			uint64_t addr = pos;
			if (!cs_disasm_iter(disasm, &code, &left, &addr, insn)) {
				pos++;
				continue;
			}
			pos = (uintptr_t)addr;
			int kind;
			if (insn->id == X86_INS_RDTSC && insn->size >= 2 && memcmp(insn->bytes + insn->size - 2, RDTSC, 2) == 0) kind = SITE_RDTSC;
			else if (insn->id == X86_INS_RDTSCP && insn->size >= 3 && memcmp(insn->bytes + insn->size - 3, RDTSCP, 3) == 0) kind = SITE_RDTSCP;
			else continue;
			if (push_site(sites, n, cap, (struct site){(uintptr_t)insn->address, (uint8_t)insn->size, (uint8_t)kind, (uint8_t)is_clock}) != 0) goto out;
		}
	}
out:
	cs_free(insn, 1);
}

static int by_addr(const void *a, const void *b)
{
	uintptr_t x = ((const struct site *)a)->addr, y = ((const struct site *)b)->addr;
	return x < y ? -1 : x > y;
}

/* ---- Patching ---- */

/* mprotect by system call: the page being made writable may hold libc's own mprotect. */
static long raw_mprotect(uintptr_t addr, size_t len, int prot)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"(10L), "D"(addr), "S"(len), "d"((long)prot) : "rcx", "r11", "memory");
	return ret;
}

static int patch(const struct loaded *o, const struct site *s)
{
	const ElfW(Phdr) *seg = exec_segment(o, s->addr, s->len);
	if (seg == NULL) return -1;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = s->addr & ~(page - 1), hi = (s->addr + s->len + page - 1) & ~(page - 1);
	/* Writable and still executable, so another thread running code on the page does not fault;
	 * only writable where the kernel refuses that (W^X policies). */
	if (raw_mprotect(lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0 && raw_mprotect(lo, hi - lo, PROT_READ | PROT_WRITE) != 0) return -1;
	volatile uint8_t *p = (volatile uint8_t *)s->addr;
	for (uint8_t i = 2; i < s->len; i++) p[i] = 0x90;
	p[1] = 0x0b;
	p[0] = 0x0f;
	raw_mprotect(lo, hi - lo, phdr_prot(seg->p_flags));
	return 0;
}

/* ---- Scanning what is loaded ---- */

struct collected {
	struct loaded *items;
	size_t n, cap;
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct collected *c = arg;
	if (c->n == c->cap) {
		size_t cap = c->cap == 0 ? 32 : c->cap * 2;
		struct loaded *grown = realloc(c->items, cap * sizeof *grown);
		if (grown == NULL) return 1;
		c->items = grown;
		c->cap = cap;
	}
	int is_main = c->n == 0;
	char *name = NULL;
	if (is_main) {
		char buf[4096];
		ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
		buf[len > 0 ? len : 0] = '\0';
		name = strdup(len > 0 ? buf : "(program)");
	} else {
		name = strdup(info->dlpi_name != NULL ? info->dlpi_name : "");
	}
	if (name == NULL) return 1;
	c->items[c->n++] = (struct loaded){info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, name, is_main};
	return 0;
}

static int skipped(const struct loaded *o)
{
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR), loader = (uintptr_t)getauxval(AT_BASE);
	if (vdso != 0 && contains(o, vdso)) return 1;
	if (loader != 0 && contains(o, loader)) return 1;
	if (contains(o, (uintptr_t)&rocelab_tsc_at)) return 1;
	return strstr(o->name, "ld-linux") != NULL || strstr(o->name, "linux-vdso") != NULL;
}

static int is_libc(const char *name)
{
	const char *base = strrchr(name, '/');
	return strncmp(base == NULL ? name : base + 1, "libc.so", 7) == 0;
}

static struct object *known(const struct loaded *o)
{
	for (struct object *k = objects; k != NULL; k = k->next)
		if (k->base == o->base && k->phdr == o->phdr && strcmp(k->name, o->name) == 0) return k;
	return NULL;
}

/* Publishes every present object's sites as the handler's table. */
static void publish(void)
{
	size_t total = 0;
	for (struct object *k = objects; k != NULL; k = k->next) total += k->n;
	struct table *t = malloc(sizeof *t + total * sizeof(struct site));
	if (t == NULL) return;
	t->n = 0;
	for (struct object *k = objects; k != NULL; k = k->next) {
		memcpy(t->sites + t->n, k->sites, k->n * sizeof(struct site));
		t->n += k->n;
	}
	qsort(t->sites, t->n, sizeof(struct site), by_addr);
	atomic_store_explicit(&patched, t, memory_order_release);
}

#define MAX_RANGES 64

static void rescan(void)
{
	pthread_mutex_lock(&scan_lock);
	struct collected c = {0};
	dl_iterate_phdr(collect, &c);
	for (struct object *k = objects; k != NULL; k = k->next) k->present = 0;
	for (size_t i = 0; i < c.n; i++) {
		struct loaded *o = &c.items[i];
		struct object *k = known(o);
		if (k != NULL) {
			k->present = 1;
			continue;
		}
		k = calloc(1, sizeof *k);
		if (k == NULL) continue;
		*k = (struct object){.base = o->base, .phdr = o->phdr, .name = strdup(o->name), .present = 1};
		if (!skipped(o)) {
			struct range ranges[MAX_RANGES];
			size_t nr = exec_ranges(o, ranges, MAX_RANGES), cap = 0;
			struct starts f = function_starts(o);
			for (size_t r = 0; r < nr; r++) sweep(ranges[r], &f, !is_libc(o->name), &k->sites, &k->n, &cap);
		}
		k->next = objects;
		objects = k;
	}
	/* Forget what was unloaded, so its addresses mean nothing to the handler. */
	for (struct object **pk = &objects; *pk != NULL;) {
		struct object *k = *pk;
		if (k->present) {
			pk = &k->next;
			continue;
		}
		*pk = k->next;
		free(k->sites);
		free(k->name);
		free(k);
	}
	/* Publish before patching: a ud2 is only ever executed with its entry already in the table. */
	publish();
	for (size_t i = 0; i < c.n; i++) {
		struct object *k = known(&c.items[i]);
		if (k == NULL || k->done) continue;
		k->done = 1;
		if (k->n == 0) continue;
		size_t rdtsc = 0, rdtscp = 0, failed = 0;
		for (size_t s = 0; s < k->n; s++) {
			if (patch(&c.items[i], &k->sites[s]) != 0) failed++;
			else if (k->sites[s].kind == SITE_RDTSC) rdtsc++;
			else rdtscp++;
		}
		rocelab_log("tsc: patched %zu rdtsc + %zu rdtscp site(s) in %s%s", rdtsc, rdtscp, k->name, failed > 0 ? " (some pages could not be made writable: those sites read the real TSC)" : "");
	}
	for (size_t i = 0; i < c.n; i++) free(c.items[i].name);
	free(c.items);
	pthread_mutex_unlock(&scan_lock);
}

/* ---- Installing, and keeping, the handler ---- */

static void install(void)
{
	struct sigaction act = {.sa_sigaction = on_sigill, .sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK};
	sigemptyset(&act.sa_mask);
	pthread_mutex_lock(&sigill_lock);
	if (real_sigaction()(SIGILL, &act, &program_sigill) == 0) atomic_store(&active, 1);
	pthread_mutex_unlock(&sigill_lock);
}

__attribute__((constructor(ROCELAB_TSC_CTOR_PRIORITY))) static void tsc_init(void)
{
	if (!rocelab_attached()) return;
	double mhz = rocelab_tsc_mhz();
	tsc_khz = mhz > 0 ? (uint64_t)(mhz * 1000 + 0.5) : 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &disasm) != CS_ERR_OK) {
		rocelab_log("tsc: capstone could not be opened: rdtsc and rdtscp read the real TSC");
		return;
	}
	install();
	if (!atomic_load(&active)) {
		rocelab_log("tsc: the SIGILL handler could not be installed (%s): rdtsc and rdtscp read the real TSC", strerror(errno));
		return;
	}
	rescan();
}

/* Whether rocelab keeps SIGILL's handler (the program's stays behind it). spin.c owns the one
 * interposed sigaction/signal and hands SIGILL here. */
int rocelab_tsc_keeps(int sig)
{
	return sig == SIGILL && atomic_load(&active);
}

int rocelab_tsc_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!rocelab_tsc_keeps(sig)) return real_sigaction()(sig, act, old);
	pthread_mutex_lock(&sigill_lock);
	if (old != NULL) *old = program_sigill;
	if (act != NULL) program_sigill = *act;
	pthread_mutex_unlock(&sigill_lock);
	static atomic_int told;
	if (act != NULL && !atomic_exchange(&told, 1)) rocelab_log("tsc: the program's SIGILL handler is kept behind rocelab's (which emulates rdtsc) and called for every other SIGILL");
	return 0;
}

/* A SIGILL raised while blocked kills the program whatever its handler: never let it be blocked. */
static const sigset_t *without_sigill(int how, const sigset_t *set, sigset_t *copy)
{
	if (set == NULL || how == SIG_UNBLOCK || !atomic_load(&active) || !sigismember(set, SIGILL)) return set;
	*copy = *set;
	sigdelset(copy, SIGILL);
	return copy;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	return NEXT(sigmask_fn, "sigprocmask")(how, without_sigill(how, set, &copy), old);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	return NEXT(sigmask_fn, "pthread_sigmask")(how, without_sigill(how, set, &copy), old);
}

void *dlopen(const char *file, int mode)
{
	void *handle = NEXT(void *(*)(const char *, int), "dlopen")(file, mode);
	if (handle != NULL && atomic_load(&active)) rescan();
	return handle;
}

int dlclose(void *handle)
{
	int ret = NEXT(int (*)(void *), "dlclose")(handle);
	if (atomic_load(&active)) rescan();
	return ret;
}
