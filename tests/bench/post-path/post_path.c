// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Benchmark: the CPU cost, per Send, of what rpcrdma-inline adds to the
 * post path, in userspace on the same src/wqe_inline_policy.c: the
 * eligibility rule alone (as before the per-reason counts), then with
 * the message length, size class and reason (what a Send costs now),
 * for a 2-SGE Call that goes inline and one that is too large. The
 * counter update itself (one atomic increment per Send, before and
 * after) is the same and not timed. Prints ns per Send; asserts nothing.
 */
#include <stdio.h>
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

int main(void)
{
	run("rule only, 128-byte Call (inline)", 100, 0);
	run("rule + length, class, reason, 128-byte Call (inline)", 100, 1);
	run("rule only, 1 KiB Call (too large)", 1000, 0);
	run("rule + length, class, reason, 1 KiB Call (too large)", 1000, 1);
	printf("(checksum %lu)\n", sink);
	return 0;
}
