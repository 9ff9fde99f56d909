// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the inline size negotiation and the eligibility rule
 * (src/wqe_inline_policy.c), in userspace.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/kernel.h>

#include "rpcrdma_wqe_inline_policy.h"

#define INTEL	RPCRDMA_WQE_INLINE_VENDOR_INTEL
#define ALIBABA	RPCRDMA_WQE_INLINE_VENDOR_ALIBABA
#define RXE	0xffffffU
#define SIW	0x626d74U

static int passed, failed;

static void check(int cond, const char *what)
{
	if (cond)
		passed++;
	else
		failed++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", passed + failed, what);
}

static void check_eq(long got, long want, const char *what)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s (got %ld, want %ld)", what, got, want);
	check(got == want, buf);
}

/* A device that refuses inline data above @limit: what the kernel-side
 * loop in rpcrdma_wqe_inline_create_qp() would get from it.
 */
struct probe {
	u32	granted;
	u32	attempts;
	u32	asked[32];
	bool	failed;
};

static struct probe run_probe(u32 vendor, u32 limit, u32 want,
			      struct rpcrdma_wqe_inline_memo *memo)
{
	struct probe p = { 0 };
	u32 size = rpcrdma_wqe_inline_first_size(vendor, want, memo);

	for (;;) {
		if (p.attempts < 32)
			p.asked[p.attempts] = size;
		p.attempts++;
		if (size <= limit)
			break;
		if (!size || p.attempts > 100) {
			p.failed = true;
			return p;
		}
		size = rpcrdma_wqe_inline_next_size(vendor, size);
	}
	p.granted = size;
	if (memo) {
		memo->want = want;
		memo->accepted = size;
		memo->valid = true;
	}
	return p;
}

static void test_vendor_table(void)
{
	static const struct {
		const char *name;
		u32 vendor, limit, granted, attempts;
	} rows[] = {
		{ "Intel gen3", INTEL, 216, 216, 1 },
		{ "Intel gen2", INTEL, 101, 101, 2 },
		{ "Intel gen1", INTEL, 48, 48, 3 },
		{ "Alibaba erdma", ALIBABA, 96, 96, 1 },
		{ "rxe limited to 101", RXE, 101, 96, 11 },
		{ "rxe limited to 0", RXE, 0, 0, 17 },
		{ "siw", SIW, 80, 80, 12 },
		{ "rxe unlimited", RXE, 512, 256, 1 },
		{ "Intel refusing all", INTEL, 0, 0, 6 },
		{ "Intel limit 40", INTEL, 40, 32, 4 },
	};
	unsigned int i;
	char what[128];

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct probe p = run_probe(rows[i].vendor, rows[i].limit,
					   RPCRDMA_WQE_INLINE_DEFAULT, NULL);

		snprintf(what, sizeof(what), "%s: granted", rows[i].name);
		check_eq(p.granted, rows[i].granted, what);
		snprintf(what, sizeof(what), "%s: QP creation attempts",
			 rows[i].name);
		check_eq(p.attempts, rows[i].attempts, what);
	}
}

static void test_sequences(void)
{
	struct probe p;

	p = run_probe(INTEL, 0, 256, NULL);
	check(p.asked[0] == 216 && p.asked[1] == 101 && p.asked[2] == 48 &&
	      p.asked[3] == 32 && p.asked[4] == 16 && p.asked[5] == 0,
	      "Intel: 216, 101, 48, then 16-byte steps to 0");
	p = run_probe(ALIBABA, 0, 256, NULL);
	check(p.asked[0] == 96 && p.asked[1] == 80 && p.asked[6] == 0 &&
	      p.attempts == 7, "Alibaba: 96, then 16-byte steps to 0");
	p = run_probe(RXE, 0, 256, NULL);
	check(p.asked[0] == 256 && p.asked[1] == 240 && p.asked[16] == 0,
	      "unknown vendor: 256 down by 16 to 0");
	p = run_probe(INTEL, 216, 100, NULL);
	check(p.asked[0] == 100 && p.granted == 100,
	      "Intel, inline_size below the first known limit: asked as is");
	p = run_probe(INTEL, 60, 100, NULL);
	check(p.asked[1] == 48 && p.granted == 48,
	      "Intel, inline_size 100 refused: next known limit below it");
	p = run_probe(RXE, 512, 0, NULL);
	check(p.attempts == 1 && p.asked[0] == 0, "inline_size=0: one attempt, asking 0");
	p = run_probe(RXE, 0, 40, NULL);
	check(p.asked[1] == 24 && p.asked[2] == 8 && p.asked[3] == 0 &&
	      p.attempts == 4, "a size not a multiple of the step still ends at 0");
	p = run_probe(RXE, 1024, RPCRDMA_WQE_INLINE_MAX, NULL);
	check(p.granted == 1024 && p.attempts == 1, "the largest inline_size");
	check_eq(rpcrdma_wqe_inline_next_size(RXE, 10), 0,
		 "a step below 16 bytes goes to 0, not below");
	check_eq(rpcrdma_wqe_inline_next_size(INTEL, 0), 0,
		 "next after 0 is 0 (the caller stops)");
}

static void test_memo(void)
{
	struct rpcrdma_wqe_inline_memo memo = { 0 };
	struct probe p;

	p = run_probe(RXE, 101, 256, &memo);
	check(p.attempts == 11 && memo.valid && memo.accepted == 96,
	      "memo: first connection probes and is remembered");
	p = run_probe(RXE, 101, 256, &memo);
	check(p.attempts == 1 && p.granted == 96,
	      "memo: second connection on the device: one attempt");
	p = run_probe(RXE, 101, 64, &memo);
	check(p.attempts == 1 && p.granted == 64,
	      "memo: a smaller inline_size is asked as is");
	memo = (struct rpcrdma_wqe_inline_memo){ .want = 64, .accepted = 64,
						 .valid = true };
	p = run_probe(RXE, 101, 256, &memo);
	check(p.asked[0] == 256 && p.granted == 96,
	      "memo: a larger inline_size than remembered probes again");
	memo = (struct rpcrdma_wqe_inline_memo){ .want = 256, .accepted = 96,
						 .valid = true };
	p = run_probe(RXE, 40, 256, &memo);
	check(p.asked[0] == 96 && p.granted == 32 && p.attempts == 5,
	      "memo: a remembered size now refused still falls back");
	memo.valid = false;
	memo.accepted = 16;
	p = run_probe(RXE, 512, 256, &memo);
	check(p.asked[0] == 256, "memo: an invalid memo is ignored");
	check_eq(rpcrdma_wqe_inline_first_size(INTEL, 256, NULL), 216,
		 "no memo: vendor's first known limit");
}

static void test_bounds(void)
{
	check(rpcrdma_wqe_inline_size_valid(0), "inline_size 0 is valid");
	check(rpcrdma_wqe_inline_size_valid(256), "inline_size 256 is valid");
	check(rpcrdma_wqe_inline_size_valid(RPCRDMA_WQE_INLINE_MAX),
	      "inline_size at the maximum is valid");
	check(!rpcrdma_wqe_inline_size_valid(RPCRDMA_WQE_INLINE_MAX + 1),
	      "inline_size above the maximum is refused");
	check(!rpcrdma_wqe_inline_size_valid(~0UL), "a huge inline_size is refused");
	check_eq(rpcrdma_wqe_inline_usable(256, 512), 256,
		 "usable: a device reporting more than asked");
	check_eq(rpcrdma_wqe_inline_usable(256, 100), 100,
		 "usable: a device reporting less than asked");
	check_eq(rpcrdma_wqe_inline_usable(0, 64), 0,
		 "usable: nothing asked, nothing inline (rxe reports 16 per SGE)");
}

static void test_eligibility(void)
{
	static char hdr[1024], msg[4096];
	const struct rpcrdma_wqe_inline_buf bufs[2] = {
		{ .dma = 0x10000, .va = hdr, .len = sizeof(hdr) },
		{ .dma = 0x80000, .va = msg, .len = sizeof(msg) },
	};
	struct ib_sge sges[3], out[2];
	int ret;

	memset(out, 0, sizeof(out));
	sges[0] = (struct ib_sge){ .addr = 0x10000, .length = 28, .lkey = 7 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 1, bufs, 1, 256, out, 1);
	check(ret == 28 && out[0].addr == (uintptr_t)hdr &&
	      out[0].length == 28 && out[0].lkey == 7,
	      "server Reply in the header buffer: inline, by virtual address");
	sges[1] = (struct ib_sge){ .addr = 0x80000 + 4, .length = 100 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 256, out, 2);
	check(ret == 128 && out[1].addr == (uintptr_t)(msg + 4),
	      "client Call, header and pulled-up message: inline");
	check(sges[0].addr == 0x10000 && sges[1].addr == 0x80004,
	      "the DMA-address SGEs are left as they were");
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 128, out, 2);
	check_eq(ret, 128, "exactly the granted size: inline");
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 127, out, 2);
	check_eq(ret, -E2BIG, "one byte over the granted size: by reference");
	ret = rpcrdma_wqe_inline_map_sges(sges, 1, bufs, 1, 0, out, 1);
	check_eq(ret, -E2BIG, "granted 0: by reference");
	sges[2] = (struct ib_sge){ .addr = 0xdead000, .length = 8 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 3, bufs, 2, 256, out, 2);
	check_eq(ret, -EINVAL, "more SGEs than room for them: by reference");
	sges[1] = (struct ib_sge){ .addr = 0xdead000, .length = 8 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 256, out, 2);
	check_eq(ret, -EFAULT, "an SGE in a mapped page: by reference");
	sges[1] = (struct ib_sge){ .addr = 0x80000 + 4090, .length = 8 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 256, out, 2);
	check_eq(ret, -EFAULT, "an SGE running past its buffer: by reference");
	sges[1] = (struct ib_sge){ .addr = 0x80000 - 4, .length = 8 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 256, out, 2);
	check_eq(ret, -EFAULT, "an SGE starting before its buffer: by reference");
	sges[1] = (struct ib_sge){ .addr = ~0ULL - 2, .length = 8 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 256, out, 2);
	check_eq(ret, -EFAULT, "an address that would wrap around: by reference");
	ret = rpcrdma_wqe_inline_map_sges(sges, 0, bufs, 2, 256, out, 2);
	check_eq(ret, -EINVAL, "no SGE: by reference");
	sges[1] = (struct ib_sge){ .addr = 0x80000, .length = 8 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 1, 256, out, 2);
	check_eq(ret, -EFAULT, "an SGE in a buffer the caller did not name");
	{
		struct rpcrdma_wqe_inline_buf unmapped[2] = { bufs[0], bufs[1] };

		unmapped[1].va = NULL;
		ret = rpcrdma_wqe_inline_map_sges(sges, 2, unmapped, 2, 256,
						  out, 2);
		check_eq(ret, -EFAULT, "an unmapped buffer is never matched");
	}
}

int main(void)
{
	test_vendor_table();
	test_sequences();
	test_memo();
	test_bounds();
	test_eligibility();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
