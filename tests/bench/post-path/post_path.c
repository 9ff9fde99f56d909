// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Benchmark: the CPU cost, per Send, of what rpcrdma-inline adds to the
 * post path, in userspace on the same src/wqe_inline_eligible.c: the
 * eligibility rule alone (as before the per-reason counts), then with
 * the message length, size class and reason (what a Send costs now),
 * for a 2-SGE Call that goes inline and one that is too large. Then the
 * counter update per Send, with 1 and 2 threads posting on one
 * connection: one shared atomic_long_t per [how][size class] (as before
 * the counters were per CPU), and one array per CPU incremented without
 * a lock prefix (this_cpu_inc(), as now), each thread standing for a
 * CPU. Prints ns per Send; asserts nothing.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <linux/kernel.h>

#include "rpcrdma_wqe_inline_policy.h"

#define ROUNDS 50000000L

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Printed at the end, so that the compiler keeps the work */
static unsigned long sink;

static void run(const char *what, u32 len1, int full)
{
	static char hdr[1024], msg[4096];
	const struct rpcrdma_wqe_inline_buf bufs[2] = {
		{ .dma = 0x10000, .va = hdr, .len = sizeof(hdr) },
		{ .dma = 0x80000, .va = msg, .len = sizeof(msg) },
	};
	struct ib_sge sges[2] = {
		{ .addr = 0x10000, .length = 28 },
		{ .addr = 0x80000, .length = len1 },
	}, out[2];
	unsigned long acc = 0;
	double t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < ROUNDS; i++) {
		int mapped;

		sges[1].length = len1 + (i & 1);
		mapped = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 256,
						     out, 2);
		if (full)
			acc += rpcrdma_wqe_inline_how_of(mapped) * 8 +
			       rpcrdma_wqe_inline_size_class(rpcrdma_wqe_inline_msg_len(sges, 2));
		else
			acc += mapped;
	}
	t1 = now_ns();
	sink += acc;
	printf("%-58s %6.2f ns per Send\n", what, (t1 - t0) / ROUNDS);
}

/* The counters of one connection, shared (before) */
static alignas(64) long shared[RPCRDMA_WQE_INLINE_HOW_NR][RPCRDMA_WQE_INLINE_SIZES];

/* Per CPU (now): one array per thread, each on its own cache lines */
struct percpu {
	alignas(64) long n[RPCRDMA_WQE_INLINE_HOW_NR][RPCRDMA_WQE_INLINE_SIZES];
};

static struct percpu percpu[2];

struct worker {
	int	id;
	int	per_cpu;
	double	ns;
};

static void *count(void *arg)
{
	struct worker *w = arg;
	/* Two classes a Call falls in, as the 128-byte one above does */
	long *a = &shared[0][1], *b = &shared[4][1];
	double t0, t1;
	long i;

	if (w->per_cpu) {
		a = &percpu[w->id].n[0][1];
		b = &percpu[w->id].n[4][1];
	}
	t0 = now_ns();
	for (i = 0; i < ROUNDS / 5; i++) {
		long *c = i & 1 ? a : b;

		if (w->per_cpu)
			/* this_cpu_inc() on x86: one incq %gs:..., no
			 * lock prefix: a relaxed load and store
			 */
			__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1,
					 __ATOMIC_RELAXED);
		else
			/* atomic_long_inc(): lock incq */
			__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
	}
	t1 = now_ns();
	w->ns = (t1 - t0) / (ROUNDS / 5);
	return NULL;
}

static void run_counters(const char *what, int per_cpu, int threads)
{
	struct worker w[2];
	pthread_t t[2];
	double ns = 0;
	int i;

	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ .id = i, .per_cpu = per_cpu };
		if (pthread_create(&t[i], NULL, count, &w[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		ns += w[i].ns;
	}
	printf("%-58s %6.2f ns per Send\n", what, ns / threads);
}

int main(void)
{
	run("rule only, 128-byte Call (inline)", 100, 0);
	run("rule + length, class, reason, 128-byte Call (inline)", 100, 1);
	run("rule only, 1 KiB Call (too large)", 1000, 0);
	run("rule + length, class, reason, 1 KiB Call (too large)", 1000, 1);
	run_counters("counter: shared atomic, 1 thread", 0, 1);
	run_counters("counter: shared atomic, 2 threads on one connection", 0, 2);
	run_counters("counter: per CPU, 1 thread", 1, 1);
	run_counters("counter: per CPU, 2 threads on one connection", 1, 2);
	sink += shared[0][1] + percpu[0].n[0][1] + percpu[1].n[4][1];
	printf("(checksum %lu)\n", sink);
	return 0;
}
