// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of the inline size negotiation and the eligibility rule
 * (src/wqe_inline_drivers.c, _sizes.c, _memo.c, _eligible.c), in userspace.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/kernel.h>

#include "rpcrdma_wqe_inline_policy.h"

#define DRV(id)	rpcrdma_wqe_inline_driver_find(id)
#define IRDMA	DRV(RDMA_DRIVER_IRDMA)
#define ERDMA	DRV(RDMA_DRIVER_ERDMA)
#define RXE	DRV(RDMA_DRIVER_RXE)
#define SIW	DRV(RDMA_DRIVER_SIW)
#define MLX5	DRV(RDMA_DRIVER_MLX5)
/* A driver that is not in the table, opted in by the admin */
#define UNKNOWN	NULL

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

struct conn;
static void log_conn(const char *what, const struct conn *c);

/* A device that refuses inline data above @limit: what the kernel-side
 * loop in rpcrdma_wqe_inline_create_qp() would get from it.
 */
struct probe {
	u32	granted;
	u32	attempts;
	u32	asked[32];
	bool	failed;
};

static struct probe run_probe(const struct rpcrdma_wqe_inline_driver *drv,
			      u32 limit, u32 want,
			      struct rpcrdma_wqe_inline_memo *memo)
{
	struct probe p = { 0 };
	u32 size = rpcrdma_wqe_inline_first_size(drv, want, memo);

	/* As the kernel counts a memo's uses when it reads it */
	if (memo && memo->valid)
		memo->uses++;

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
		size = rpcrdma_wqe_inline_next_size(drv, size);
	}
	p.granted = size;
	if (memo)
		rpcrdma_wqe_inline_memo_write(memo, &memo->key, want, size,
					      size, &memo->zero, 0);
	return p;
}

static void test_driver_table(void)
{
	static const struct {
		const char *name;
		u32 driver_id, limit, granted, attempts;
	} rows[] = {
		{ "irdma gen3", RDMA_DRIVER_IRDMA, 216, 216, 1 },
		{ "irdma gen2", RDMA_DRIVER_IRDMA, 101, 101, 2 },
		{ "irdma gen1", RDMA_DRIVER_IRDMA, 48, 48, 3 },
		{ "erdma", RDMA_DRIVER_ERDMA, 96, 96, 1 },
		{ "siw", RDMA_DRIVER_SIW, 80, 80, 1 },
		{ "rxe", RDMA_DRIVER_RXE, 512, 256, 1 },
		{ "rxe limited to 101", RDMA_DRIVER_RXE, 101, 96, 11 },
		{ "rxe limited to 0", RDMA_DRIVER_RXE, 0, 0, 17 },
		{ "mlx5", RDMA_DRIVER_MLX5, 920, 256, 1 },
		{ "qedr RoCE", RDMA_DRIVER_QEDR, 256, 256, 1 },
		{ "qedr iWARP", RDMA_DRIVER_QEDR, 128, 128, 2 },
		{ "ocrdma, 256-byte WQEs", RDMA_DRIVER_OCRDMA, 224, 224, 1 },
		{ "ocrdma, 128-byte WQEs", RDMA_DRIVER_OCRDMA, 96, 96, 2 },
		{ "ionic, 256-byte stride", RPCRDMA_WQE_INLINE_DRIVER_IONIC, 224, 224, 1 },
		{ "cxgb4", RDMA_DRIVER_CXGB4, 280, 256, 1 },
		{ "irdma refusing all", RDMA_DRIVER_IRDMA, 0, 0, 6 },
		{ "irdma limit 40", RDMA_DRIVER_IRDMA, 40, 32, 4 },
		{ "not in the table", 99, 101, 96, 11 },
	};
	unsigned int i;
	char what[128];

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct probe p = run_probe(DRV(rows[i].driver_id),
					   rows[i].limit,
					   RPCRDMA_WQE_INLINE_DEFAULT, NULL);

		snprintf(what, sizeof(what), "%s: granted", rows[i].name);
		check_eq(p.granted, rows[i].granted, what);
		snprintf(what, sizeof(what), "%s: QP creation attempts",
			 rows[i].name);
		check_eq(p.attempts, rows[i].attempts, what);
	}
}

/* The table itself: one entry per driver, each with a name and a reason;
 * known limits largest first and within what inline_size takes; a driver
 * that is off has no limits to try.
 */
static void test_table_sane(void)
{
	static const u32 ids[] = {
		RDMA_DRIVER_MLX5, RDMA_DRIVER_MLX4, RDMA_DRIVER_CXGB4,
		RDMA_DRIVER_MTHCA, RDMA_DRIVER_BNXT_RE, RDMA_DRIVER_OCRDMA,
		RDMA_DRIVER_IRDMA, RDMA_DRIVER_VMW_PVRDMA, RDMA_DRIVER_QEDR,
		RDMA_DRIVER_HNS, RDMA_DRIVER_USNIC, RDMA_DRIVER_RXE,
		RDMA_DRIVER_HFI1, RDMA_DRIVER_QIB, RDMA_DRIVER_EFA,
		RDMA_DRIVER_SIW, RDMA_DRIVER_ERDMA,
		RPCRDMA_WQE_INLINE_DRIVER_MANA, RPCRDMA_WQE_INLINE_DRIVER_IONIC,
	};
	unsigned int i, j, bad = 0;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		const struct rpcrdma_wqe_inline_driver *d = DRV(ids[i]);
		char num[12];

		if (!d || d->driver_id != ids[i] || !d->name || !d->why ||
		    !*d->why) {
			printf("# driver_id %u: no entry, name or reason\n", ids[i]);
			bad++;
			continue;
		}
		for (j = 0; j < RPCRDMA_WQE_INLINE_LIMITS; j++) {
			u32 l = d->limits[j], next = j + 1 < RPCRDMA_WQE_INLINE_LIMITS ?
				d->limits[j + 1] : 0;

			if (l > RPCRDMA_WQE_INLINE_MAX || (next && next >= l) ||
			    (!l && next) || (l && !d->on)) {
				printf("# %s: limits out of order or on an off driver\n",
				       d->name);
				bad++;
			}
		}
		if (strcmp(rpcrdma_wqe_inline_driver_name(ids[i], num,
							  sizeof(num)),
			   d->name)) {
			printf("# %s: name lookup\n", d->name);
			bad++;
		}
	}
	check_eq(bad, 0, "every in-tree driver has one entry, a name, a reason, sane limits");
	check(!DRV(RDMA_DRIVER_UNKNOWN), "RDMA_DRIVER_UNKNOWN is not in the table");
	check(RDMA_DRIVER_ERDMA + 1 == RPCRDMA_WQE_INLINE_DRIVER_MANA &&
	      RDMA_DRIVER_ERDMA + 2 == RPCRDMA_WQE_INLINE_DRIVER_IONIC,
	      "MANA and IONIC follow ERDMA in the UAPI enum");
}

static void test_decide(void)
{
	struct rpcrdma_wqe_inline_overrides none = { 0 }, ov;
	struct rpcrdma_wqe_inline_verdict v;
	const char *bad;
	int bad_len;

	rpcrdma_wqe_inline_decide(RDMA_DRIVER_BNXT_RE, &none, &v);
	check(!v.on && strstr(v.why, "without their payload"),
	      "bnxt_re: off, it posts inline WRs without their payload");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_MLX4, &none, &v);
	check(!v.on, "mlx4: off");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_VMW_PVRDMA, &none, &v);
	check(!v.on, "vmw_pvrdma: off");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_HFI1, &none, &v);
	check(!v.on, "hfi1 (rdmavt): off");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_MTHCA, &none, &v);
	check(!v.on, "mthca: off");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_RXE, &none, &v);
	check(v.on && v.driver == RXE, "rxe: on");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_SIW, &none, &v);
	check(v.on && v.driver == SIW && SIW->no_inv,
	      "siw: on, but no inline Send With Invalidate");
	check(!RXE->no_inv && !DRV(RDMA_DRIVER_MLX5)->no_inv,
	      "rxe and mlx5: inline Send With Invalidate too");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_HNS, &none, &v);
	check(!v.on && strstr(v.why, "wrong place"),
	      "hns: off, it copies inline data past 32 bytes to the wrong place");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_MLX5, &none, &v);
	check(v.on, "mlx5: on");
	rpcrdma_wqe_inline_decide(99, &none, &v);
	check(!v.on && !v.driver && strstr(v.why, "not audited"),
	      "a driver not in the table: off, not audited");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_UNKNOWN, &none, &v);
	check(!v.on, "RDMA_DRIVER_UNKNOWN (a driver that names none): off");

	check_eq(rpcrdma_wqe_inline_overrides_parse("99:on,rxe:off,bnxt_re:on\n",
						    &ov, &bad, &bad_len), 0,
		 "parse: three overrides, with sysfs's newline");
	rpcrdma_wqe_inline_decide(99, &ov, &v);
	check(v.on && !v.driver && strstr(v.why, "opted in"),
	      "a driver not in the table, opted in by number: on");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_RXE, &ov, &v);
	check(!v.on && v.driver == RXE && strstr(v.why, "opted out"),
	      "rxe opted out: off, with the table's limits still known");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_BNXT_RE, &ov, &v);
	check(v.on, "bnxt_re opted in (a fixed kernel): on");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_SIW, &ov, &v);
	check(v.on && strcmp(v.why, SIW->why) == 0,
	      "a driver the overrides do not name keeps the table's verdict");
}

/* Sends behind their registrations: a bit of the table, per driver, that
 * the inline_drivers modes on, alone and off override
 */
static void test_decide_behind_reg(void)
{
	/* mlx5 fences the WR after a REG_MR; rxe and siw run it in their
	 * send loop before the next WR (docs/devices.md)
	 */
	static const u32 shown[] = {
		RDMA_DRIVER_MLX5, RDMA_DRIVER_RXE, RDMA_DRIVER_SIW,
	};
	/* on, but no ordering after a REG_MR in their source */
	static const u32 alone[] = {
		RDMA_DRIVER_IRDMA, RDMA_DRIVER_QEDR, RDMA_DRIVER_OCRDMA,
		RDMA_DRIVER_CXGB4, RDMA_DRIVER_ERDMA,
		RPCRDMA_WQE_INLINE_DRIVER_IONIC,
	};
	struct rpcrdma_wqe_inline_overrides none = { 0 }, ov;
	struct rpcrdma_wqe_inline_verdict v;
	unsigned int i, bad = 0;
	u32 id;

	for (i = 0; i < ARRAY_SIZE(shown); i++) {
		rpcrdma_wqe_inline_decide(shown[i], &none, &v);
		bad += !v.on || !v.behind_reg;
	}
	check_eq(bad, 0, "every driver whose audit shows it: inline behind registrations");
	for (i = 0, bad = 0; i < ARRAY_SIZE(alone); i++) {
		rpcrdma_wqe_inline_decide(alone[i], &none, &v);
		bad += !v.on || v.behind_reg;
	}
	check_eq(bad, 0, "irdma, qedr, ocrdma, cxgb4, erdma, ionic: inline, Sends alone only");
	for (id = 0, bad = 0; id < 64; id++) {
		const struct rpcrdma_wqe_inline_driver *d = DRV(id);

		rpcrdma_wqe_inline_decide(id, &none, &v);
		bad += (d && d->behind_reg && !d->on) || (v.behind_reg && !v.on);
	}
	check_eq(bad, 0, "behind registrations only where inline is on");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_BNXT_RE, &none, &v);
	check(!v.behind_reg, "bnxt_re: not behind registrations either");
	rpcrdma_wqe_inline_decide(99, &none, &v);
	check(!v.behind_reg, "a driver not in the table: not behind registrations");

	rpcrdma_wqe_inline_overrides_parse("rxe:alone,99:on,mlx4:alone,mlx5:off",
					   &ov, NULL, NULL);
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_RXE, &ov, &v);
	check(v.on && !v.behind_reg && strstr(v.why, "alone in their post"),
	      "rxe:alone: inline, but only Sends alone in their post");
	rpcrdma_wqe_inline_decide(99, &ov, &v);
	check(v.on && v.behind_reg,
	      "an unaudited driver opted in with on: behind registrations too, as asked");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_MLX4, &ov, &v);
	check(v.on && !v.behind_reg, "mlx4:alone: on, alone only");
	rpcrdma_wqe_inline_decide(RDMA_DRIVER_MLX5, &ov, &v);
	check(!v.on && !v.behind_reg, "mlx5:off: neither");
}

#define KV		RPCRDMA_WQE_INLINE_KV
#define IONIC_ID	RPCRDMA_WQE_INLINE_DRIVER_IONIC

/* The table holds only on the kernels whose driver sources were read */
static void test_decide_kernel(void)
{
	static const struct {
		const char *what;
		u32 driver_id, version;
		const char *vendor;
		bool on, behind_reg;
		const char *why;
	} rows[] = {
		{ "mlx5 on 6.1.192",
		  RDMA_DRIVER_MLX5, KV(6, 1, 192), NULL, true, true, NULL },
		{ "mlx5 on 6.1.0",
		  RDMA_DRIVER_MLX5, KV(6, 1, 0), NULL, true, true, NULL },
		{ "mlx5 on 6.12.118",
		  RDMA_DRIVER_MLX5, KV(6, 12, 118), NULL, true, true, NULL },
		{ "mlx5 on 7.3.4",
		  RDMA_DRIVER_MLX5, KV(7, 3, 4), NULL, true, true, NULL },
		{ "mlx5 on 7.3.255",
		  RDMA_DRIVER_MLX5, KV(7, 3, 255), NULL, true, true, NULL },
		{ "mlx5 on 6.2.0",
		  RDMA_DRIVER_MLX5, KV(6, 2, 0), NULL, false, false, "not of a series" },
		{ "mlx5 on 6.0.19",
		  RDMA_DRIVER_MLX5, KV(6, 0, 19), NULL, false, false, "not of a series" },
		{ "mlx5 on 6.8.12 (Ubuntu 24.04)",
		  RDMA_DRIVER_MLX5, KV(6, 8, 12), NULL, false, false, "not of a series" },
		{ "mlx5 on 6.13.0",
		  RDMA_DRIVER_MLX5, KV(6, 13, 0), NULL, false, false, "not of a series" },
		{ "mlx5 on 7.4.0",
		  RDMA_DRIVER_MLX5, KV(7, 4, 0), NULL, false, false, "not of a series" },
		{ "mlx5 on 5.14.0 (RHEL 9)",
		  RDMA_DRIVER_MLX5, KV(5, 14, 0), "RHEL", false, false, "vendor" },
		{ "mlx5 on 6.12.0 (RHEL 10)",
		  RDMA_DRIVER_MLX5, KV(6, 12, 0), "RHEL", false, false, "vendor" },
		{ "rxe on 6.12.0 (SUSE)",
		  RDMA_DRIVER_RXE, KV(6, 12, 0), "SUSE", false, false, "vendor" },
		{ "irdma on 6.1.0",
		  RDMA_DRIVER_IRDMA, KV(6, 1, 0), NULL, false, false, "sg_list[0]" },
		{ "irdma on 6.1.1",
		  RDMA_DRIVER_IRDMA, KV(6, 1, 1), NULL, false, false, "sg_list[0]" },
		{ "irdma on 6.1.2",
		  RDMA_DRIVER_IRDMA, KV(6, 1, 2), NULL, true, false, NULL },
		{ "irdma on 6.1.192",
		  RDMA_DRIVER_IRDMA, KV(6, 1, 192), NULL, true, false, NULL },
		{ "irdma on 6.12.118",
		  RDMA_DRIVER_IRDMA, KV(6, 12, 118), NULL, true, false, NULL },
		{ "irdma on 5.15.0",
		  RDMA_DRIVER_IRDMA, KV(5, 15, 0), NULL, false, false, "not of a series" },
		{ "ionic on 7.3.4",
		  IONIC_ID, KV(7, 3, 4), NULL, true, false, NULL },
		{ "ionic on 6.12.118 (not read there)",
		  IONIC_ID, KV(6, 12, 118), NULL, false, false, "not of a series" },
		{ "siw on 6.8.0",
		  RDMA_DRIVER_SIW, KV(6, 8, 0), NULL, false, false, "not of a series" },
		{ "bnxt_re on 6.8.0: off for its own reason",
		  RDMA_DRIVER_BNXT_RE, KV(6, 8, 0), NULL, false, false, "without their payload" },
		{ "a driver not in the table on 6.1.192",
		  99, KV(6, 1, 192), NULL, false, false, "not audited" },
	};
	struct rpcrdma_wqe_inline_overrides none = { 0 }, ov;
	struct rpcrdma_wqe_inline_kernel k = { 0 };
	struct rpcrdma_wqe_inline_verdict v;
	unsigned int i, bad = 0;
	char what[160], buf[32];

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		k.version = rows[i].version;
		k.vendor = rows[i].vendor;
		rpcrdma_wqe_inline_decide_for(rows[i].driver_id, &none, &k, &v);
		snprintf(what, sizeof(what), "%s: %s%s, %s", rows[i].what,
			 rows[i].on ? "on" : "off",
			 rows[i].on && !rows[i].behind_reg ? " (alone)" : "",
			 rows[i].why ? rows[i].why : "the table's reason");
		check(v.on == rows[i].on && v.behind_reg == rows[i].behind_reg &&
		      strstr(v.why, rows[i].why ? rows[i].why :
			     DRV(rows[i].driver_id)->why) &&
		      v.kernel_off == (v.driver && v.driver->on && !v.on),
		      what);
	}

	for (i = 0; i < 64; i++) {
		const struct rpcrdma_wqe_inline_driver *d = DRV(i);

		bad += d && (!d->series ||
			     (d->series & ~RPCRDMA_WQE_INLINE_SERIES_ALL) ||
			     (d->since && !d->before));
	}
	check_eq(bad, 0, "every entry names its audited series, and why it is off before a fix");

	/* The admin's word wins on any kernel */
	rpcrdma_wqe_inline_overrides_parse("mlx5:alone,irdma:on,rxe:off", &ov,
					   NULL, NULL);
	k.version = RPCRDMA_WQE_INLINE_KV(6, 8, 0);
	k.vendor = NULL;
	rpcrdma_wqe_inline_decide_for(RDMA_DRIVER_MLX5, &ov, &k, &v);
	check(v.on && !v.behind_reg && !v.kernel_off,
	      "mlx5:alone on 6.8: inline, Sends alone only");
	k.version = RPCRDMA_WQE_INLINE_KV(6, 1, 1);
	rpcrdma_wqe_inline_decide_for(RDMA_DRIVER_IRDMA, &ov, &k, &v);
	check(v.on && v.behind_reg, "irdma:on on 6.1.1: as the admin says");
	k.version = RPCRDMA_WQE_INLINE_KV(6, 1, 192);
	rpcrdma_wqe_inline_decide_for(RDMA_DRIVER_RXE, &ov, &k, &v);
	check(!v.on && strstr(v.why, "opted out"), "rxe:off on 6.1.192: off");

	/* The audited series, as debugfs prints them */
	rpcrdma_wqe_inline_series_print(RPCRDMA_WQE_INLINE_SERIES_ALL, buf,
					sizeof(buf));
	check(!strcmp(buf, "6.1,6.12,7.3"), "series: all three");
	rpcrdma_wqe_inline_series_print(DRV(RPCRDMA_WQE_INLINE_DRIVER_IONIC)->series,
					buf, sizeof(buf));
	check(!strcmp(buf, "7.3"), "series: ionic, 7.3 only");
	rpcrdma_wqe_inline_series_print(0, buf, sizeof(buf));
	check(!strcmp(buf, "-"), "series: none");
	rpcrdma_wqe_inline_series_print(RPCRDMA_WQE_INLINE_SERIES_ALL, buf, 5);
	check(!strcmp(buf, "6.1,"), "series: cut to the buffer, NUL-terminated");
}

/* Which chains let their Send go inline: alone, or behind nothing but
 * REG_MR WRs where the driver allows it
 */
static void test_chain(void)
{
	struct ib_send_wr send = { .opcode = IB_WR_SEND };
	struct ib_send_wr reg2 = { .next = &send, .opcode = IB_WR_REG_MR };
	struct ib_send_wr reg1 = { .next = &reg2, .opcode = IB_WR_REG_MR };
	struct ib_send_wr write = { .next = &send, .opcode = IB_WR_RDMA_WRITE };
	struct ib_send_wr reg_write = { .next = &write, .opcode = IB_WR_REG_MR };
	struct ib_send_wr inv = { .next = &send, .opcode = IB_WR_LOCAL_INV };
	struct ib_send_wr other = { .opcode = IB_WR_SEND };

	check(rpcrdma_wqe_inline_chain_ok(&send, &send, false) &&
	      rpcrdma_wqe_inline_chain_ok(&send, &send, true),
	      "a Send alone in its post: allowed, with or without behind_reg");
	check(rpcrdma_wqe_inline_chain_ok(&reg2, &send, true),
	      "behind one REG_MR, behind_reg: allowed");
	check(rpcrdma_wqe_inline_chain_ok(&reg1, &send, true),
	      "behind two REG_MRs, behind_reg: allowed");
	check(!rpcrdma_wqe_inline_chain_ok(&reg1, &send, false),
	      "behind REG_MRs on a driver without behind_reg: chained");
	check(!rpcrdma_wqe_inline_chain_ok(&write, &send, true),
	      "behind an RDMA Write (chunk data): chained");
	check(!rpcrdma_wqe_inline_chain_ok(&reg_write, &send, true),
	      "behind a REG_MR and an RDMA Write: chained");
	check(!rpcrdma_wqe_inline_chain_ok(&inv, &send, true),
	      "behind a LOCAL_INV (never chained by xprtrdma): chained");
	check(!rpcrdma_wqe_inline_chain_ok(&reg1, &other, true),
	      "a Send that is not in the chain: never inline");
}

/* Parse @val and print it back: the canonical form, or "ERR n at 'item'" */
static const char *roundtrip(const char *val)
{
	static char buf[512];
	struct rpcrdma_wqe_inline_overrides ov;
	const char *bad = NULL;
	int bad_len = 0, ret, n;

	ret = rpcrdma_wqe_inline_overrides_parse(val, &ov, &bad, &bad_len);
	if (ret) {
		snprintf(buf, sizeof(buf), "ERR %d at '%.*s'", ret, bad_len, bad);
		return buf;
	}
	n = rpcrdma_wqe_inline_overrides_print(&ov, buf, sizeof(buf));
	if (n != (int)strlen(buf))
		return "ERR length";
	return buf;
}

static void test_parse(void)
{
	static const struct {
		const char *val, *want;
	} rows[] = {
		{ "", "" },
		{ "\n", "" },
		{ "rxe:off", "rxe:off" },
		{ "bnxt_re:on,mlx4:on\n", "bnxt_re:on,mlx4:on" },
		{ "14:off", "rxe:off" },
		{ "99:on", "99:on" },
		{ "0:on", "0:on" },
		{ "rxe:on,rxe:off", "rxe:off" },
		{ "rxe:alone", "rxe:alone" },
		{ "mlx5:alone,99:on,rxe:off", "mlx5:alone,99:on,rxe:off" },
		{ "rxe:alone,rxe:on", "rxe:on" },
		{ "rxe:alon", "ERR -22 at 'rxe:alon'" },
		{ "rxe:alonex", "ERR -22 at 'rxe:alonex'" },
		{ "rxe:on,siw:off,rxe:off", "rxe:off,siw:off" },
		{ "foo:on", "ERR -22 at 'foo:on'" },
		{ "rxe:yes", "ERR -22 at 'rxe:yes'" },
		{ "rxe:", "ERR -22 at 'rxe:'" },
		{ "rxe", "ERR -22 at 'rxe'" },
		{ ":on", "ERR -22 at ':on'" },
		{ "rxe:on,", "ERR -22 at ''" },
		{ ",rxe:on", "ERR -22 at ''" },
		{ "rxe:on,,siw:on", "ERR -22 at ''" },
		{ "1234:on", "ERR -22 at '1234:on'" },
		{ "-1:on", "ERR -22 at '-1:on'" },
		{ "RXE:on", "ERR -22 at 'RXE:on'" },
		{ "rxe:ON", "ERR -22 at 'rxe:ON'" },
		{ " rxe:on", "ERR -22 at ' rxe:on'" },
		{ "rxe:onx", "ERR -22 at 'rxe:onx'" },
		{ "rxe:on:off", "ERR -22 at 'rxe:on:off'" },
		{ "mlx:on", "ERR -22 at 'mlx:on'" },
		{ "mlx55:on", "ERR -22 at 'mlx55:on'" },
	};
	struct rpcrdma_wqe_inline_overrides ov;
	char what[512], small[8], many[256] = "";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *got = roundtrip(rows[i].val);

		snprintf(what, sizeof(what), "inline_drivers='%.*s%s' gives '%s' (got '%s')",
			 (int)strcspn(rows[i].val, "\n"), rows[i].val,
			 strchr(rows[i].val, '\n') ? "\\n" : "",
			 rows[i].want, got);
		check(strcmp(got, rows[i].want) == 0, what);
	}
	/* As many drivers as there is room for, by number, then one more */
	for (i = 0; i < RPCRDMA_WQE_INLINE_OVERRIDES; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 "%s%u:on", i ? "," : "", 100 + i);
	check(strcmp(roundtrip(many), many) == 0, "inline_drivers: 16 drivers are taken");
	strcat(many, ",116:on");
	check(strcmp(roundtrip(many), "ERR -7 at '116:on'") == 0,
	      "inline_drivers: a 17th driver is refused (-E2BIG), naming it");
	rpcrdma_wqe_inline_overrides_parse("bnxt_re:on,rxe:off", &ov, NULL, NULL);
	check_eq(rpcrdma_wqe_inline_overrides_print(&ov, small, sizeof(small)),
		 7, "print into a small buffer: truncated, NUL-terminated");
	check(strlen(small) == 7, "print into a small buffer: its length");
}

static void test_sequences(void)
{
	struct probe p;

	p = run_probe(IRDMA, 0, 256, NULL);
	check(p.asked[0] == 216 && p.asked[1] == 101 && p.asked[2] == 48 &&
	      p.asked[3] == 32 && p.asked[4] == 16 && p.asked[5] == 0,
	      "irdma: 216, 101, 48, then 16-byte steps to 0");
	p = run_probe(ERDMA, 0, 256, NULL);
	check(p.asked[0] == 96 && p.asked[1] == 80 && p.asked[6] == 0 &&
	      p.attempts == 7, "erdma: 96, then 16-byte steps to 0");
	p = run_probe(UNKNOWN, 0, 256, NULL);
	check(p.asked[0] == 256 && p.asked[1] == 240 && p.asked[16] == 0,
	      "a driver with no known limit: 256 down by 16 to 0");
	p = run_probe(IRDMA, 216, 100, NULL);
	check(p.asked[0] == 100 && p.granted == 100,
	      "irdma, inline_size below the first known limit: asked as is");
	p = run_probe(IRDMA, 60, 100, NULL);
	check(p.asked[1] == 48 && p.granted == 48,
	      "irdma, inline_size 100 refused: next known limit below it");
	p = run_probe(RXE, 512, 0, NULL);
	check(p.attempts == 1 && p.asked[0] == 0, "inline_size=0: one attempt, asking 0");
	p = run_probe(RXE, 0, 40, NULL);
	check(p.asked[1] == 24 && p.asked[2] == 8 && p.asked[3] == 0 &&
	      p.attempts == 4, "a size not a multiple of the step still ends at 0");
	p = run_probe(UNKNOWN, 1024, RPCRDMA_WQE_INLINE_MAX, NULL);
	check(p.granted == 1024 && p.attempts == 1, "the largest inline_size");
	p = run_probe(RXE, 512, RPCRDMA_WQE_INLINE_MAX, NULL);
	check(p.asked[0] == 512 && p.attempts == 1,
	      "rxe, inline_size 1024: its limit, 512, at the first attempt");
	check_eq(rpcrdma_wqe_inline_next_size(RXE, 10), 0,
		 "a step below 16 bytes goes to 0, not below");
	check_eq(rpcrdma_wqe_inline_next_size(IRDMA, 0), 0,
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
						 .uses = 1, .valid = true };
	p = run_probe(RXE, 101, 256, &memo);
	check(p.asked[0] == 256 && p.granted == 96,
	      "memo: a larger inline_size than remembered probes again");
	memo = (struct rpcrdma_wqe_inline_memo){ .want = 256, .accepted = 96,
						 .uses = 1, .valid = true };
	p = run_probe(RXE, 40, 256, &memo);
	check(p.asked[0] == 96 && p.granted == 32 && p.attempts == 5,
	      "memo: a remembered size now refused still falls back");
	memo.valid = false;
	memo.accepted = 16;
	p = run_probe(RXE, 512, 256, &memo);
	check(p.asked[0] == 256, "memo: an invalid memo is ignored");
	check_eq(rpcrdma_wqe_inline_first_size(IRDMA, 256, NULL), 216,
		 "no memo: the driver's first known limit");
}

/* What the kernel's creation loop (wqe_inline_qp.c) does against a
 * device that fails creations with the errors in @errs, one per attempt
 * (0 for success; past the end, success): the sizes asked, whether it
 * came up, and whether a memo would be written.
 */
struct create {
	u32	asked[40];
	u32	attempts;
	int	ret;
};

static struct create run_create(const struct rpcrdma_wqe_inline_driver *drv,
				u32 want, const int *errs, unsigned int nerrs)
{
	struct create c;
	unsigned int nomem = 0;
	u32 size = rpcrdma_wqe_inline_first_size(drv, want, NULL);

	memset(&c, 0, sizeof(c));
	for (;;) {
		int err = c.attempts < nerrs ? errs[c.attempts] : 0;

		if (c.attempts < ARRAY_SIZE(c.asked))
			c.asked[c.attempts] = size;
		c.attempts++;
		c.ret = err;
		if (!err || c.attempts > 100)
			return c;
		if (!rpcrdma_wqe_inline_retry(drv, size, err, &nomem, &size))
			return c;
	}
}

static void test_retry(void)
{
	static const int eio[] = { -EIO };
	static const int einval_eio[] = { -EINVAL, -EIO };
	static const int enomem4[] = { -ENOMEM, -ENOMEM, -ENOMEM, -ENOMEM, -ENOMEM };
	static const int einval_nomem[] = { -EINVAL, -ENOMEM };
	unsigned int nomem = 0;
	struct create c;
	u32 next = 12345;

	c = run_create(RXE, 256, eio, 1);
	check(c.attempts == 1 && c.ret == -EIO && c.asked[0] == 256,
	      "-EIO: returned at once, after one attempt at the full size");
	c = run_create(RXE, 256, einval_eio, 2);
	check(c.attempts == 2 && c.ret == -EIO && c.asked[1] == 240,
	      "-EINVAL then -EIO: one step down, then the -EIO returned");
	check(!rpcrdma_wqe_inline_retry(RXE, 256, -ETIMEDOUT, &nomem, &next) &&
	      !rpcrdma_wqe_inline_retry(RXE, 256, -ENODEV, &nomem, &next) &&
	      !rpcrdma_wqe_inline_retry(RXE, 256, -ENOMEM, &nomem, &next) &&
	      !rpcrdma_wqe_inline_retry(IRDMA, 216, -ENOMEM, &nomem, &next) &&
	      !rpcrdma_wqe_inline_retry(UNKNOWN, 256, -ENOMEM, &nomem, &next),
	      "-ETIMEDOUT, -ENODEV, and -ENOMEM of a driver without nomem_refuses: no retry");
	check(next == 12345 && nomem == 0, "no retry: next and the -ENOMEM count untouched");
	check(!rpcrdma_wqe_inline_retry(RXE, 0, -EINVAL, &nomem, &next),
	      "-EINVAL asking 0: nothing smaller, no retry");
	check(!rpcrdma_wqe_inline_retry(MLX5, 0, -ENOMEM, &nomem, &next),
	      "mlx5 -ENOMEM asking 0: not a refusal");
	check(rpcrdma_wqe_inline_retry(RXE, 256, -EINVAL, &nomem, &next) &&
	      next == 240, "-EINVAL: a refusal, 16 bytes less");
	c = run_create(MLX5, 256, enomem4, 4);
	check(c.attempts == 5 && c.ret == 0 && c.asked[0] == 256 &&
	      c.asked[1] == 128 && c.asked[2] == 112 && c.asked[3] == 96 &&
	      c.asked[4] == 0,
	      "mlx5 -ENOMEM: 256, half, then 16-byte steps, 3 times at most, then the stock ask, 0");
	c = run_create(MLX5, 256, enomem4, 2);
	check(c.attempts == 3 && c.ret == 0 && c.asked[2] == 112,
	      "mlx5, a deep server queue (needs 120 or less): 256, 128, 112");
	c = run_create(MLX5, 256, enomem4, 5);
	check(c.attempts == 5 && c.ret == -ENOMEM && c.asked[4] == 0,
	      "mlx5 -ENOMEM at 0 too: returned, after four more creations");
	c = run_create(MLX5, 256, enomem4, 1);
	check(c.attempts == 2 && c.ret == 0 && c.asked[1] == 128,
	      "mlx5 -ENOMEM once: half the size, and up");
	c = run_create(MLX5, 256, einval_nomem, 2);
	check(c.attempts == 3 && c.asked[1] == 240 && c.asked[2] == 112,
	      "mlx5 -EINVAL then -ENOMEM: 256, 240, then half: 112");
	c = run_create(MLX5, 24, enomem4, 1);
	check(c.attempts == 2 && c.asked[1] == 0 && c.ret == 0,
	      "mlx5 -ENOMEM at 24 bytes: half rounds down to 0");
}

static void test_memo_keys(void)
{
	struct rpcrdma_wqe_inline_memo memos[RPCRDMA_WQE_INLINE_MEMOS];
	const struct rpcrdma_wqe_inline_memo_key client = { 1, 128, 3, 0 };
	const struct rpcrdma_wqe_inline_memo_key server = { 0, 128, 3, 0 };
	const struct rpcrdma_wqe_inline_memo_key deep = { 1, 4096, 3, 0 };
	const struct rpcrdma_wqe_inline_memo_key sges = { 1, 128, 2, 0 };
	const struct rpcrdma_wqe_inline_memo_key ctxs = { 0, 128, 3, 64 };
	struct rpcrdma_wqe_inline_memo *m;
	unsigned int i, probes;
	struct probe p;

	memset(memos, 0, sizeof(memos));
	check(!rpcrdma_wqe_inline_memo_find(memos, RPCRDMA_WQE_INLINE_MEMOS, &client),
	      "memo keys: none written, none found");
	m = rpcrdma_wqe_inline_memo_slot(memos, RPCRDMA_WQE_INLINE_MEMOS, &client);
	check(m == &memos[0], "memo keys: the first goes to the first slot");
	m->key = client;
	p = run_probe(RXE, 101, 256, m);
	check(p.granted == 96 && m->accepted == 96, "memo keys: the client's probe remembered");
	check(rpcrdma_wqe_inline_memo_find(memos, RPCRDMA_WQE_INLINE_MEMOS, &client) == m,
	      "memo keys: found for the same side and shape");
	check(!rpcrdma_wqe_inline_memo_find(memos, RPCRDMA_WQE_INLINE_MEMOS, &server),
	      "memo keys: the client's memo does not serve the server");
	check(!rpcrdma_wqe_inline_memo_find(memos, RPCRDMA_WQE_INLINE_MEMOS, &deep),
	      "memo keys: nor a deeper send queue of the same side");
	check(!rpcrdma_wqe_inline_memo_find(memos, RPCRDMA_WQE_INLINE_MEMOS, &sges),
	      "memo keys: nor other send SGEs");
	check(rpcrdma_wqe_inline_first_size(RXE, 256, NULL) == 256,
	      "memo keys: so the server asks the full size");
	m = rpcrdma_wqe_inline_memo_slot(memos, RPCRDMA_WQE_INLINE_MEMOS, &server);
	check(m == &memos[1], "memo keys: the server's goes to its own slot");
	m->key = server;
	run_probe(RXE, 512, 256, m);
	m = rpcrdma_wqe_inline_memo_find(memos, RPCRDMA_WQE_INLINE_MEMOS, &client);
	check(m && m->accepted == 96 && memos[1].accepted == 256,
	      "memo keys: the server's 256 leaves the client's 96, and the other way");
	check(rpcrdma_wqe_inline_memo_slot(memos, RPCRDMA_WQE_INLINE_MEMOS, &client) == &memos[0],
	      "memo keys: a key's slot is its own memo");
	check(!rpcrdma_wqe_inline_memo_find(memos, RPCRDMA_WQE_INLINE_MEMOS, &ctxs),
	      "memo keys: the server's memo does not serve a server with other R/W contexts");

	/* Full: the oldest goes, the others keep theirs */
	memos[2] = (struct rpcrdma_wqe_inline_memo){ .key = deep, .want = 256,
						     .accepted = 64, .uses = 1, .valid = true };
	memos[3] = (struct rpcrdma_wqe_inline_memo){ .key = { 0, 4096, 3, 0 }, .want = 256,
						     .accepted = 32, .uses = 1, .valid = true };
	m = rpcrdma_wqe_inline_memo_slot(memos, RPCRDMA_WQE_INLINE_MEMOS, &sges);
	check(m == &memos[3] && !m->valid && memos[0].key.side == server.side &&
	      memos[0].accepted == 256 && memos[2].accepted == 32,
	      "memo keys: when full, the oldest (the client's) goes, the rest move down");
	check(!rpcrdma_wqe_inline_memo_find(memos, RPCRDMA_WQE_INLINE_MEMOS, &client),
	      "memo keys: the evicted one is found no more");

	/* Back up: every RPCRDMA_WQE_INLINE_REPROBE-th use probes from want */
	m = &memos[0];
	*m = (struct rpcrdma_wqe_inline_memo){ .key = client, .want = 256,
					       .accepted = 96, .uses = 1, .valid = true };
	probes = 0;
	for (i = 0; i < 2 * RPCRDMA_WQE_INLINE_REPROBE; i++) {
		p = run_probe(RXE, 101, 256, m);
		probes += p.asked[0] == 256;
	}
	check_eq(probes, 2, "memo: two probes from inline_size in 32 connections below it");
	p = run_probe(RXE, 101, 256, m);
	check(p.attempts == 1 && p.granted == 96, "memo: after a probe, the memo again");
	for (i = 0, probes = 0; i < RPCRDMA_WQE_INLINE_REPROBE; i++) {
		p = run_probe(RXE, 512, 256, m);
		probes += p.asked[0] == 256;
	}
	check(probes >= 1 && m->accepted == 256 && p.asked[0] == 256,
	      "memo: a device that takes more again goes back up within 16 connections");
	*m = (struct rpcrdma_wqe_inline_memo){ .key = client, .want = 256,
					       .accepted = 256, .uses = 16, .valid = true };
	check_eq(rpcrdma_wqe_inline_first_size(RXE, 256, m), 256,
		 "memo at want: the 16th use is the same ask");
}

/* Device models for the negotiation (rpcrdma_wqe_inline_neg_step()),
 * as their create_qp() sizes an RC QP asked for @inl bytes of inline
 * data, svcrdma's or xprtrdma's caps otherwise fixed.
 *
 * mlx5 (hw/mlx5/qp.c, the same in 6.1, 6.12 and 7.3): calc_send_wqe()
 * ALIGN(max(132 + 4 + inl (inl > 0 only), 132 + 16 x SGEs), 64) bytes
 * (sq_overhead() 132 for RC); calc_sq_size() -EINVAL above
 * max_wqe_sz_sq, writes back max_inline_data = WQE - 136 even for 0,
 * -ENOMEM when roundup_pow_of_two(WRs x WQE) exceeds 1 << log_max_qp_sz
 * WQEBBs of 64 bytes, writes back max_send_wr = that queue / WQE;
 * get_send_sge() writes back (min(WQE, 512) - 32) / 16 send SGEs for RC.
 * ib_create_qp_kernel() (core/verbs.c) takes that as max_write_sge, and
 * its minimum with attrs.max_sge_rd (MLX5_MAX_SGE_RD, 30) as
 * max_read_sge. ConnectX-6 Dx: log_max_qp_sz 15, max_wqe_sz_sq 1024
 * (the values tests/modules/inline_limit.c's mlx5 model cites).
 *
 * rxe (rxe_qp_init_req() in 6.1, rxe_init_sq() later): the WQE holds
 * max(16 x SGEs, inl) bytes, written back as both max_inline_data and
 * max_send_sge x 16; -EINVAL above 512 (rxe_qp_chk_cap()); max_sge_rd
 * 32 (RXE_MAX_SGE_RD).
 */
enum model_kind { MODEL_MLX5, MODEL_RXE, MODEL_FIXED };

struct model {
	enum model_kind	kind;
	u32		send_wr;	/* after rdma_rw_init_qp() */
	u32		send_sge;
	u32		limit;		/* rxe, fixed: -EINVAL above it */
	u32		log_max_qp_sz;	/* mlx5 */
	u32		max_wqe_sz_sq;	/* mlx5 */
	/* fixed: what it writes back, with inline data and without */
	struct rpcrdma_wqe_inline_caps with, without;
	/* failures injected before the model, one per creation (0: none) */
	const int	*errs;
	unsigned int	nerrs;
	unsigned int	created;	/* creations so far, over connections */
};

static u32 pow2_up(u32 v)
{
	u32 p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static int model_mlx5(const struct model *m, u32 inl,
		      struct rpcrdma_wqe_inline_caps *got)
{
	u32 size = 132 + 16 * m->send_sge, wqe, wq;

	if (inl)
		size = size > 136 + inl ? size : 136 + inl;
	wqe = (size + 63) / 64 * 64;
	if (wqe > m->max_wqe_sz_sq)
		return -EINVAL;
	wq = pow2_up(m->send_wr * wqe);
	if (wq / 64 > 1U << m->log_max_qp_sz)
		return -ENOMEM;
	got->max_send_wr = wq / wqe;
	got->max_send_sge = (min(wqe, 512U) - 32) / 16;
	got->max_write_sge = got->max_send_sge;
	got->max_read_sge = min(got->max_send_sge, 30U);
	got->max_inline_data = wqe - 136;
	return 0;
}

static int model_rxe(const struct model *m, u32 inl,
		     struct rpcrdma_wqe_inline_caps *got)
{
	u32 wqe = 16 * m->send_sge > inl ? 16 * m->send_sge : inl;

	if (inl > m->limit)
		return -EINVAL;
	got->max_send_wr = m->send_wr;
	got->max_send_sge = wqe / 16;
	got->max_write_sge = got->max_send_sge;
	got->max_read_sge = min(got->max_send_sge, 32U);
	got->max_inline_data = wqe;
	return 0;
}

/* @extra: send WRs asked beyond the ULP's (rpcrdma_wqe_inline_neg) */
static int model_create(struct model *m, u32 inl, u32 extra,
			struct rpcrdma_wqe_inline_caps *got)
{
	unsigned int i = m->created++;
	struct model asked = *m;

	memset(got, 0, sizeof(*got));
	if (i < m->nerrs && m->errs[i])
		return m->errs[i];
	asked.send_wr += extra;
	switch (m->kind) {
	case MODEL_MLX5:
		return model_mlx5(&asked, inl, got);
	case MODEL_RXE:
		return model_rxe(&asked, inl, got);
	default:
		if (inl > m->limit)
			return -EINVAL;
		*got = inl ? m->with : m->without;
		return 0;
	}
}

/* One connection's QP creation as wqe_inline_qp.c makes it, against
 * @m: the sizes asked, what the QP keeps, the bytes it may post inline
 */
struct conn {
	u32	asked[40];
	u32	attempts;
	u32	failed;		/* creations the device failed */
	int	ret;
	u32	size;		/* asked by the creation kept */
	u32	max;		/* bytes a Send may carry inline */
	struct rpcrdma_wqe_inline_caps keep;
	struct rpcrdma_wqe_inline_neg n;
};

static struct conn run_conn(const struct rpcrdma_wqe_inline_driver *drv,
			    u32 want, struct model *m,
			    struct rpcrdma_wqe_inline_memo *memo)
{
	struct rpcrdma_wqe_inline_caps got;
	enum rpcrdma_wqe_inline_act act;
	struct conn c;

	memset(&c, 0, sizeof(c));
	rpcrdma_wqe_inline_neg_start(&c.n, drv, want, memo);
	if (memo && memo->valid)
		memo->uses++;
	for (;;) {
		u32 size = c.n.size;

		if (c.attempts < ARRAY_SIZE(c.asked))
			c.asked[c.attempts] = size;
		c.attempts++;
		c.ret = model_create(m, size, size ? c.n.extra_wr : 0, &got);
		c.failed += !!c.ret;
		act = rpcrdma_wqe_inline_neg_step(&c.n, c.ret, &got);
		if (act == RPCRDMA_WQE_INLINE_FAIL)
			return c;
		if (act == RPCRDMA_WQE_INLINE_KEEP || c.attempts > 100)
			break;
	}
	c.size = c.n.size;
	if (c.size)
		rpcrdma_wqe_inline_keep_caps(&c.n.zero, &got, &c.keep);
	else
		c.keep = got;
	c.max = rpcrdma_wqe_inline_usable(drv, want, c.size,
					  got.max_inline_data);
	if (memo && c.n.refusals_only)
		rpcrdma_wqe_inline_memo_write(memo, &memo->key, want, c.size,
					      got.max_inline_data, &c.n.zero,
					      c.size ? c.n.extra_wr : 0);
	return c;
}

static void log_conn(const char *what, const struct conn *c)
{
	unsigned int i;

	printf("# %s: asked", what);
	for (i = 0; i < c->attempts && i < ARRAY_SIZE(c->asked); i++)
		printf(" %u", c->asked[i]);
	printf(" (%u failed): kept %u, inline max %u, WRs %u, SGEs send %u write %u read %u\n",
	       c->failed, c->size, c->max, c->keep.max_send_wr,
	       c->keep.max_send_sge, c->keep.max_write_sge,
	       c->keep.max_read_sge);
}

/* What the stock module's QP gets from @m: one creation asking 0 */
static struct rpcrdma_wqe_inline_caps stock_caps(struct model *m)
{
	struct rpcrdma_wqe_inline_caps got;
	unsigned int created = m->created, nerrs = m->nerrs;

	m->nerrs = 0;
	model_create(m, 0, 0, &got);
	m->created = created;
	m->nerrs = nerrs;
	return got;
}

static bool caps_ge(const struct rpcrdma_wqe_inline_caps *a,
		    const struct rpcrdma_wqe_inline_caps *b)
{
	return a->max_send_wr >= b->max_send_wr &&
	       a->max_send_sge >= b->max_send_sge &&
	       a->max_write_sge >= b->max_write_sge &&
	       a->max_read_sge >= b->max_read_sge;
}

/* RDMA Write (or Read) WRs rdma_rw builds for 1 MiB in 4 KiB pages */
static u32 wrs_per_mib(u32 sges)
{
	return (256 + sges - 1) / sges;
}

/* An NFSv3 WRITE Reply of a 4 KiB WRITE, by XDR: the RPC-over-RDMA
 * header with three empty chunk lists (28 bytes), the RPC reply header
 * (24), WRITE3resok: status, wcc_data (pre_op_attr 28, post_op_attr 88),
 * count, committed, verifier (136). docs/sizing.md counts it in <=256.
 */
#define NFS3_WRITE_REPLY	(28 + 24 + 136)

static void test_keep_caps(void)
{
	const struct rpcrdma_wqe_inline_caps mlx5_0 = { 2048, 14, 14, 14, 120 };
	const struct rpcrdma_wqe_inline_caps mlx5_256 = { 2340, 26, 26, 26, 312 };
	const struct rpcrdma_wqe_inline_caps rxe_0 = { 1810, 5, 5, 5, 80 };
	const struct rpcrdma_wqe_inline_caps rxe_256 = { 1810, 16, 16, 16, 256 };
	const struct rpcrdma_wqe_inline_caps fewer = { 1810, 3, 3, 3, 256 };
	struct rpcrdma_wqe_inline_caps keep;

	check(rpcrdma_wqe_inline_keep_caps(&mlx5_0, &mlx5_256, &keep) &&
	      keep.max_send_sge == 14 && keep.max_write_sge == 14 &&
	      keep.max_read_sge == 14 && keep.max_send_wr == 2340,
	      "keep: mlx5 keeps the 14 SGEs stock gets, not the 5 asked nor the 26 granted");
	check(rpcrdma_wqe_inline_keep_caps(&rxe_0, &rxe_256, &keep) &&
	      keep.max_send_sge == 5 && keep.max_write_sge == 5 &&
	      keep.max_read_sge == 5,
	      "keep: rxe keeps 5, what it gives without inline data (the ULP's ask)");
	check(!rpcrdma_wqe_inline_keep_caps(&rxe_0, &fewer, &keep) &&
	      keep.max_send_sge == 3,
	      "keep: fewer SGEs with inline data than without: refused, never more than granted");
	check(!rpcrdma_wqe_inline_keep_caps(&mlx5_256, &mlx5_0, &keep),
	      "keep: fewer send WRs with inline data than without: refused");
	check(rpcrdma_wqe_inline_keep_caps(&rxe_0, &rxe_0, &keep) &&
	      keep.max_send_sge == 5,
	      "keep: a device writing back exactly what it did without inline data");
}

static void test_mlx5_server(void)
{
	/* svcrdma's 5-SGE QP; send WRs after rdma_rw_init_qp(). 6.1 with
	 * 64 credits and no MRs for rdma_rw: 73 + 3 x 64 x 9 (256 pages
	 * in 30-SGE Reads) WRs; deep: clamped to 6.12's max_qp_wr on a
	 * ConnectX-6 Dx, 1 << 15 WQEBBs of 256-byte WQEs, 8192.
	 */
	struct model m = { .kind = MODEL_MLX5, .send_wr = 1801, .send_sge = 5,
			   .log_max_qp_sz = 15, .max_wqe_sz_sq = 1024 };
	struct rpcrdma_wqe_inline_memo memo = { 0 };
	struct rpcrdma_wqe_inline_caps stock = stock_caps(&m);
	unsigned int i, failed, asked256;
	struct conn c;

	check(stock.max_send_sge == 14 && stock.max_write_sge == 14 &&
	      stock.max_read_sge == 14 && stock.max_inline_data == 120,
	      "mlx5 model: stock's 5-SGE QP gets 14 SGEs and 120 bytes of inline data");
	c = run_conn(MLX5, 256, &m, &memo);
	log_conn("mlx5, 1801 WRs", &c);
	check(c.ret == 0 && c.attempts == 2 && c.asked[0] == 0 &&
	      c.asked[1] == 256 && c.failed == 0,
	      "mlx5, 1801 WRs: 0 (what stock gets), then 256, no failed creation");
	check(caps_ge(&c.keep, &stock) && c.keep.max_send_sge == 14 &&
	      c.keep.max_write_sge == 14,
	      "mlx5, 1801 WRs: every cap >= stock's; 14 SGEs kept, not 26");
	check_eq(wrs_per_mib(c.keep.max_write_sge), wrs_per_mib(stock.max_write_sge),
		 "mlx5, 1801 WRs: RDMA Writes per 1 MiB READ as stock (19)");
	check(wrs_per_mib(5) == 52,
	      "mlx5: the former clamp to the 5 asked took 52 Writes per 1 MiB");
	check(c.max == 256 && c.max >= NFS3_WRITE_REPLY,
	      "mlx5, 1801 WRs: 256 bytes inline; the 4 KiB WRITE Reply (188 bytes) inline");
	c = run_conn(MLX5, 256, &m, &memo);
	check(c.attempts == 1 && c.asked[0] == 256 && c.max == 256,
	      "mlx5, 1801 WRs: the next connection, one creation");

	m = (struct model){ .kind = MODEL_MLX5, .send_wr = 8192, .send_sge = 5,
			    .log_max_qp_sz = 15, .max_wqe_sz_sq = 1024 };
	memset(&memo, 0, sizeof(memo));
	stock = stock_caps(&m);
	c = run_conn(MLX5, 256, &m, &memo);
	log_conn("mlx5, 8192 WRs", &c);
	check(c.ret == 0 && c.attempts == 4 && c.asked[0] == 0 &&
	      c.asked[1] == 256 && c.asked[2] == 128 && c.asked[3] == 0 &&
	      c.failed == 2,
	      "mlx5, 8192 WRs: 0, 256 and 128 (-ENOMEM), then 0: two failed creations, first connection only");
	check(c.size == 0 && c.max == 120 && caps_ge(&c.keep, &stock),
	      "mlx5, 8192 WRs: stock's own QP, posting the 120 bytes mlx5 gives it inline");
	check(c.max < NFS3_WRITE_REPLY,
	      "mlx5, 8192 WRs: the 4 KiB WRITE Reply (188 bytes) goes by reference");
	for (i = 0, failed = 0, asked256 = 0; i < 2 * RPCRDMA_WQE_INLINE_REPROBE; i++) {
		c = run_conn(MLX5, 256, &m, &memo);
		failed += c.failed + c.attempts - 1;
		asked256 += c.asked[0] == 256;
	}
	check(failed == 0 && asked256 == 0 && c.max == 120,
	      "mlx5, 8192 WRs: 32 later connections, one creation each, none failed, no re-probe");

	/* A depth whose queue rounds to the same power of two at 448-byte
	 * WQEs as at 256: fewer send WRs written back than stock's
	 */
	m = (struct model){ .kind = MODEL_MLX5, .send_wr = 1100, .send_sge = 5,
			    .log_max_qp_sz = 15, .max_wqe_sz_sq = 1024 };
	memset(&memo, 0, sizeof(memo));
	stock = stock_caps(&m);
	c = run_conn(MLX5, 256, &m, &memo);
	log_conn("mlx5, 1100 WRs", &c);
	check(c.attempts == 3 && c.asked[2] == 256 && !c.n.short_caps &&
	      c.n.extra_wr == 2048 - 1170 && c.failed == 0 &&
	      caps_ge(&c.keep, &stock) && c.keep.max_send_wr == 2340 &&
	      c.max == 256,
	      "mlx5, 1100 WRs: 256 writes back 1170 WRs against stock's 2048: again with 878 more, 2340");
	check(c.max >= NFS3_WRITE_REPLY,
	      "mlx5, 1100 WRs: the 4 KiB WRITE Reply (188 bytes) inline");
	c = run_conn(MLX5, 256, &m, &memo);
	check(c.attempts == 1 && c.asked[0] == 256 && c.n.extra_wr == 878 &&
	      c.keep.max_send_wr == 2340 && c.max == 256,
	      "mlx5, 1100 WRs: later connections, one creation, with the extra WRs");

	/* Asking what mlx5 gives for free: no creation beyond the first */
	m.created = 0;
	memset(&memo, 0, sizeof(memo));
	c = run_conn(MLX5, 96, &m, &memo);
	check(c.attempts == 1 && c.size == 0 && c.max == 96,
	      "mlx5, inline_size 96 (under its free 120): the first creation is kept");
	c = run_conn(MLX5, 96, &m, &memo);
	check(c.attempts == 1 && c.asked[0] == 0 && c.max == 96,
	      "mlx5, inline_size 96: later connections ask 0, and post 96");
}

static void test_neg(void)
{
	static const int eio2[] = { 0, -EIO };
	static const int eio1[] = { -EIO };
	static const int einval_eio[] = { -EINVAL, 0, -EIO };
	static const int einval2[] = { -EINVAL, -EINVAL };
	static const int einval1[] = { -EINVAL };
	struct model rxe = { .kind = MODEL_RXE, .send_wr = 1801, .send_sge = 5,
			     .limit = 512 };
	struct rpcrdma_wqe_inline_memo memo = { 0 };
	struct rpcrdma_wqe_inline_caps stock;
	struct model m;
	struct conn c;

	stock = stock_caps(&rxe);
	c = run_conn(RXE, 256, &rxe, &memo);
	check(c.attempts == 2 && c.asked[0] == 0 && c.asked[1] == 256 &&
	      c.keep.max_send_sge == 5 && c.keep.max_write_sge == 5 &&
	      c.max == 256 && caps_ge(&c.keep, &stock),
	      "rxe: 0 then 256; it grants 16 SGEs and keeps stock's 5");
	c = run_conn(RXE, 256, &rxe, &memo);
	check(c.attempts == 1 && c.keep.max_send_sge == 5,
	      "rxe: the next connection takes one creation, and 5 SGEs");

	rxe.limit = 101;
	memset(&memo, 0, sizeof(memo));
	c = run_conn(RXE, 256, &rxe, &memo);
	check(c.attempts == 12 && c.size == 96 && c.max == 96 && c.failed == 10,
	      "rxe limited to 101: 0, then 256 down by 16 to 96 (12 creations)");
	rxe.limit = 0;
	memset(&memo, 0, sizeof(memo));
	c = run_conn(RXE, 256, &rxe, &memo);
	check(c.attempts == 18 && c.size == 0 && c.max == 0 && memo.valid &&
	      memo.accepted == 0,
	      "rxe refusing all inline data: 0, 256 down to 16, 0 (18), remembered");
	rxe.limit = 512;

	/* Item 9: a 0-byte QP made in this negotiation, then an error */
	m = rxe;
	m.created = 0;
	m.errs = eio2;
	m.nerrs = 2;
	memset(&memo, 0, sizeof(memo));
	c = run_conn(RXE, 256, &m, &memo);
	check(c.ret == 0 && c.attempts == 3 && c.asked[2] == 0 &&
	      c.size == 0 && c.max == 0 && c.n.err == -EIO && !memo.valid,
	      "-EIO after a QP without inline data was made: that QP again, nothing remembered");
	/* No 0-byte QP yet (the memo knew the shape): -EIO fails at once */
	m.created = 0;
	m.errs = NULL;
	m.nerrs = 0;
	run_conn(RXE, 256, &m, &memo);
	m.created = 0;
	m.errs = eio1;
	m.nerrs = 1;
	c = run_conn(RXE, 256, &m, &memo);
	check(c.ret == -EIO && c.attempts == 1 && c.asked[0] == 256,
	      "-EIO at a memo's size: returned at once, nothing smaller asked");
	m.created = 0;
	m.errs = einval_eio;
	m.nerrs = 3;
	c = run_conn(RXE, 256, &m, &memo);
	check(c.ret == 0 && c.attempts == 4 && c.asked[1] == 0 &&
	      c.asked[2] == 240 && c.asked[3] == 0 && c.size == 0,
	      "-EINVAL, the 0-byte check, -EIO at 240: ends on a QP without inline data");
	m.created = 0;
	m.errs = einval2;
	m.nerrs = 2;
	c = run_conn(RXE, 256, &m, &memo);
	check(c.ret == -EINVAL && c.attempts == 2 && c.n.check_size == 256,
	      "-EINVAL at 256 and at 0 too: not a refusal, returned");
	/* A device that refuses every QP: stock's creation fails, once */
	m.created = 0;
	m.errs = einval1;
	m.nerrs = 1;
	memset(&memo, 0, sizeof(memo));
	c = run_conn(RXE, 256, &m, &memo);
	check(c.ret == -EINVAL && c.attempts == 1 && c.asked[0] == 0 &&
	      !memo.valid,
	      "refusing every QP: the first creation (asking 0, as stock) fails, nothing remembered");

	/* Bad input: write-backs below and above the ask */
	m = (struct model){ .kind = MODEL_FIXED, .limit = 1024,
			    .with = { 128, 5, 5, 5, 64 },
			    .without = { 128, 5, 5, 5, 0 } };
	c = run_conn(RXE, 256, &m, NULL);
	check(c.size == 256 && c.max == 64,
	      "a device writing back less inline data than asked: the smaller, 64");
	m.with = (struct rpcrdma_wqe_inline_caps){ 128, 5, 5, 5, 1024 };
	c = run_conn(RXE, 256, &m, NULL);
	check(c.max == 256, "a device writing back more than asked: the ask, 256");
	c = run_conn(UNKNOWN, 256, &m, NULL);
	check(c.max == 256, "the same, a driver not in the table: 256");
	m.with = (struct rpcrdma_wqe_inline_caps){ 128, 3, 3, 3, 256 };
	m.without = (struct rpcrdma_wqe_inline_caps){ 128, 3, 3, 3, 0 };
	c = run_conn(RXE, 256, &m, NULL);
	check(c.size == 256 && c.keep.max_send_sge == 3 &&
	      c.keep.max_write_sge == 3,
	      "a device granting fewer SGEs than asked: never more than granted (3)");
	m.with = (struct rpcrdma_wqe_inline_caps){ 128, 2, 2, 2, 256 };
	c = run_conn(RXE, 256, &m, NULL);
	check(c.size == 0 && c.n.short_caps && c.attempts == 3 &&
	      c.keep.max_send_sge == 3 && c.max == 0,
	      "fewer SGEs with inline data than without: a QP without, as stock's");
	m.with = (struct rpcrdma_wqe_inline_caps){ 100, 3, 3, 3, 256 };
	c = run_conn(RXE, 256, &m, NULL);
	check(c.size == 0 && c.n.short_caps && c.keep.max_send_wr == 128 &&
	      c.attempts == 4 && c.n.extra_tried,
	      "fewer send WRs with inline data than without, asking more too: a QP without");
	m.without = (struct rpcrdma_wqe_inline_caps){ 128, 3, 3, 3, 200 };
	m.with = (struct rpcrdma_wqe_inline_caps){ 128, 3, 3, 3, 256 };
	c = run_conn(RXE, 256, &m, NULL);
	check(c.size == 256 && c.max == 256,
	      "rxe-like 200 bytes written back for 0: not used where the post path is not shown to check it");
	c = run_conn(MLX5, 256, &m, NULL);
	check(c.size == 256 && c.max == 256, "the same on mlx5: 256 asked, 256");
	c = run_conn(MLX5, 128, &m, NULL);
	check(c.attempts == 1 && c.size == 0 && c.max == 128,
	      "mlx5, 200 written back for 0 and inline_size 128: that QP, 128 inline");
}

static void test_param_refused(void)
{
	check_eq(rpcrdma_wqe_inline_param_refused(-EINVAL, false), -EINVAL,
		 "a bad value written at run time: refused");
	check_eq(rpcrdma_wqe_inline_param_refused(-E2BIG, false), -E2BIG,
		 "too many drivers written at run time: refused with -E2BIG");
	check_eq(rpcrdma_wqe_inline_param_refused(-EINVAL, true), 0,
		 "a bad value at load: not an error, the module loads");
	check_eq(rpcrdma_wqe_inline_param_refused(-E2BIG, true), 0,
		 "too many drivers at load: not an error either");
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
	check_eq(rpcrdma_wqe_inline_usable(RXE, 256, 256, 512), 256,
		 "usable: a device reporting more than asked");
	check_eq(rpcrdma_wqe_inline_usable(RXE, 256, 256, 100), 100,
		 "usable: a device reporting less than asked");
	check_eq(rpcrdma_wqe_inline_usable(RXE, 256, 0, 64), 0,
		 "usable: nothing asked, nothing inline (rxe reports 16 per SGE)");
	check_eq(rpcrdma_wqe_inline_usable(UNKNOWN, 256, 256, 256), 256,
		 "usable: a driver not in the table");
	{
		const struct rpcrdma_wqe_inline_driver capped = {
			.name = "capped", .on = true, .post_max = 96,
			.why = "test",
		};

		check_eq(rpcrdma_wqe_inline_usable(&capped, 256, 256, 256), 96,
			 "usable: a post path that takes less than creation grants");
	}
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
	sges[0] = (struct ib_sge){ .addr = 0x10000, .length = 28 };
	sges[1] = (struct ib_sge){ .addr = 0x80000, .length = 0 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 256, out, 2);
	check_eq(ret, -EINVAL, "a zero-length SGE: never inline, by reference");
	sges[0].length = 0;
	ret = rpcrdma_wqe_inline_map_sges(sges, 1, bufs, 1, 256, out, 1);
	check_eq(ret, -EINVAL, "a lone zero-length SGE: by reference");
	sges[0].length = 28;
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
	sges[1] = (struct ib_sge){ .addr = 0xdead000, .length = 4000 };
	ret = rpcrdma_wqe_inline_map_sges(sges, 2, bufs, 2, 256, out, 2);
	check_eq(ret, -EFAULT,
		 "in a page and too large: counted as in a page (no size would inline it)");
}

/* Why a Send went by reference, and its size class */
static void test_how(void)
{
	struct ib_sge sges[3] = {
		{ .length = 28 }, { .length = 100 }, { .length = 0xffffffff },
	};

	check_eq(rpcrdma_wqe_inline_how_of(128), RPCRDMA_WQE_INLINE_HOW_INLINE,
		 "a length: inline");
	check_eq(rpcrdma_wqe_inline_how_of(0), RPCRDMA_WQE_INLINE_HOW_INLINE,
		 "length 0 (never returned): inline");
	check_eq(rpcrdma_wqe_inline_how_of(-EFAULT), RPCRDMA_WQE_INLINE_HOW_PAGES,
		 "-EFAULT: pages");
	check_eq(rpcrdma_wqe_inline_how_of(-E2BIG), RPCRDMA_WQE_INLINE_HOW_LARGE,
		 "-E2BIG: large");
	check_eq(rpcrdma_wqe_inline_how_of(-EINVAL), RPCRDMA_WQE_INLINE_HOW_SGE,
		 "-EINVAL: sge");
	check(!strcmp(rpcrdma_wqe_inline_how_name(RPCRDMA_WQE_INLINE_HOW_CHAINED), "chained") &&
	      !strcmp(rpcrdma_wqe_inline_how_name(RPCRDMA_WQE_INLINE_HOW_CHUNKS), "chunks") &&
	      !strcmp(rpcrdma_wqe_inline_how_name(RPCRDMA_WQE_INLINE_HOW_UNPULLED), "unpulled") &&
	      !strcmp(rpcrdma_wqe_inline_how_name(RPCRDMA_WQE_INLINE_HOW_OFF), "off") &&
	      !strcmp(rpcrdma_wqe_inline_how_name(RPCRDMA_WQE_INLINE_HOW_NR), "?"),
	      "how names, and '?' out of range");
	check_eq(rpcrdma_wqe_inline_msg_len(sges, 2), 128, "message length: the SGEs' sum");
	check_eq(rpcrdma_wqe_inline_msg_len(sges, 0), 0, "no SGE: 0 bytes");
	check_eq(rpcrdma_wqe_inline_msg_len(sges, 3), 0xffffffff,
		 "a sum past 4 GiB saturates");
	check_eq(rpcrdma_wqe_inline_size_class(0), 0, "0 bytes: le64");
	check_eq(rpcrdma_wqe_inline_size_class(64), 0, "64 bytes: le64");
	check_eq(rpcrdma_wqe_inline_size_class(65), 1, "65 bytes: le128");
	check_eq(rpcrdma_wqe_inline_size_class(256), 2, "256 bytes: le256");
	check_eq(rpcrdma_wqe_inline_size_class(257), 3, "257 bytes: le512");
	check_eq(rpcrdma_wqe_inline_size_class(1024), 4, "1024 bytes: le1024");
	check_eq(rpcrdma_wqe_inline_size_class(1025), 5, "1025 bytes: gt1024");
	check_eq(rpcrdma_wqe_inline_size_class(0xffffffff), 5, "4 GiB: gt1024");
	check(!strcmp(rpcrdma_wqe_inline_size_name(0), "le64") &&
	      !strcmp(rpcrdma_wqe_inline_size_name(5), "gt1024") &&
	      !strcmp(rpcrdma_wqe_inline_size_name(6), "?"),
	      "size class names, and '?' out of range");
}

int main(void)
{
	test_driver_table();
	test_table_sane();
	test_decide();
	test_decide_behind_reg();
	test_decide_kernel();
	test_chain();
	test_parse();
	test_sequences();
	test_how();
	test_memo();
	test_retry();
	test_memo_keys();
	test_param_refused();
	test_bounds();
	test_keep_caps();
	test_mlx5_server();
	test_neg();
	test_eligibility();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
