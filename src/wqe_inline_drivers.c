// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: the per-driver policy table, and the inline_drivers
 * overrides of it (parsed and printed).
 *
 * Nothing here touches a device or a connection, so the same file is
 * built into rpcrdma.ko and into the userspace unit tests (tests/unit).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "rpcrdma_wqe_inline_policy.h"

/* The kernel series whose driver sources were read, by LINUX_VERSION_CODE:
 * Debian's 6.1.192, 6.12.117 and 7.3.4, each taken for its stable series
 */
static const struct {
	u32		bit;
	u32		from;
	u32		to;
	const char	*name;
} rpcrdma_wqe_inline_series[] = {
	{ RPCRDMA_WQE_INLINE_SERIES_6_1, RPCRDMA_WQE_INLINE_KV(6, 1, 0),
	  RPCRDMA_WQE_INLINE_KV(6, 2, 0), "6.1" },
	{ RPCRDMA_WQE_INLINE_SERIES_6_12, RPCRDMA_WQE_INLINE_KV(6, 12, 0),
	  RPCRDMA_WQE_INLINE_KV(6, 13, 0), "6.12" },
	{ RPCRDMA_WQE_INLINE_SERIES_7_3, RPCRDMA_WQE_INLINE_KV(7, 3, 0),
	  RPCRDMA_WQE_INLINE_KV(7, 4, 0), "7.3" },
};

#define S_ALL	RPCRDMA_WQE_INLINE_SERIES_ALL
#define S_6_1	RPCRDMA_WQE_INLINE_SERIES_6_1
#define S_6_12	RPCRDMA_WQE_INLINE_SERIES_6_12
#define S_7_3	RPCRDMA_WQE_INLINE_SERIES_7_3

/* The policy of each in-tree RDMA provider, from reading its source in
 * the series of .series: docs/devices.md has the audit, with the
 * functions each verdict rests on. The verbs API cannot report a
 * device's inline data limit: only a QP creation tells, so drivers with
 * fixed limits list them, largest first, to be tried before stepping
 * down. A driver that is not in this table is off. .behind_reg only
 * where the source shows the REG_MR done before the next WR leaves: mlx5
 * fences that WR, rxe and siw run the registration in their send loop.
 */
static const struct rpcrdma_wqe_inline_driver rpcrdma_wqe_inline_drivers[] = {
	{ .driver_id = RDMA_DRIVER_MLX5, .name = "mlx5", .on = true,
	  .behind_reg = true,
	  .series = S_ALL,
	  .nomem_refuses = true, .post_written = true,
	  .why = "copies inline data from sge.addr; size from its WQE size" },
	{ .driver_id = RDMA_DRIVER_IRDMA, .name = "irdma", .on = true,
	  .series = S_ALL,
	  .since = RPCRDMA_WQE_INLINE_KV(6, 1, 2),
	  .before = "copies only sg_list[0] inline before 6.1.2 (4f44e519b6a9)",
	  .limits = { 216, 101, 48 },
	  .why = "copies inline data from sge.addr; 216/101/48 bytes; not behind REG_MR" },
	{ .driver_id = RDMA_DRIVER_QEDR, .name = "qedr", .on = true,
	  .series = S_ALL,
	  .limits = { 256, 128 },
	  .why = "copies inline data from sge.addr; 256 bytes (qed); not behind REG_MR" },
	{ .driver_id = RDMA_DRIVER_OCRDMA, .name = "ocrdma", .on = true,
	  .series = S_ALL,
	  .limits = { 224, 96 },
	  .why = "copies inline data from sge.addr; limit from firmware; not behind REG_MR" },
	{ .driver_id = RDMA_DRIVER_CXGB4, .name = "cxgb4", .on = true,
	  .series = S_ALL,
	  .limits = { 280 },
	  .why = "copies inline data from sge.addr; 280 bytes; not behind REG_MR" },
	{ .driver_id = RPCRDMA_WQE_INLINE_DRIVER_ERDMA, .name = "erdma", .on = true,
	  .series = S_ALL,
	  .limits = { 96 },
	  .why = "copies inline data from sge.addr; 96 bytes; not behind REG_MR" },
	{ .driver_id = RPCRDMA_WQE_INLINE_DRIVER_IONIC, .name = "ionic",
	  .on = true, .limits = { 224, 96, 32 },
	  .series = S_7_3,
	  .why = "copies inline data from sge.addr; limit from WQE stride; not behind REG_MR" },
	{ .driver_id = RDMA_DRIVER_RXE, .name = "rxe", .on = true,
	  .behind_reg = true,
	  .series = S_ALL,
	  .limits = { 512 },
	  .why = "copies inline data from sge.addr; up to 512 bytes" },
	{ .driver_id = RDMA_DRIVER_SIW, .name = "siw", .on = true,
	  .behind_reg = true,
	  .series = S_ALL,
	  .limits = { 80 }, .no_inv = true,
	  .why = "copies inline data from sge.addr; 80 bytes; no inline Send With Invalidate" },
	{ .driver_id = RDMA_DRIVER_BNXT_RE, .name = "bnxt_re",
	  .series = S_ALL,
	  .why = "posts inline WRs without their payload" },
	{ .driver_id = RDMA_DRIVER_HNS, .name = "hns",
	  .series = S_ALL,
	  .why = "copies inline data past 32 bytes to the wrong place" },
	{ .driver_id = RDMA_DRIVER_MLX4, .name = "mlx4",
	  .series = S_ALL,
	  .why = "kernel QPs get no inline data; post_send ignores the flag" },
	{ .driver_id = RDMA_DRIVER_VMW_PVRDMA, .name = "vmw_pvrdma",
	  .series = S_ALL,
	  .why = "grants no inline data; passes the flag to the device as is" },
	{ .driver_id = RDMA_DRIVER_MTHCA, .name = "mthca",
	  .series = S_ALL,
	  .why = "refuses any inline data for kernel QPs" },
	{ .driver_id = RDMA_DRIVER_HFI1, .name = "hfi1",
	  .series = S_ALL,
	  .why = "rdmavt grants no inline data and ignores the flag" },
	{ .driver_id = RDMA_DRIVER_QIB, .name = "qib",
	  .series = S_6_1 | S_6_12,
	  .why = "rdmavt grants no inline data and ignores the flag" },
	{ .driver_id = RPCRDMA_WQE_INLINE_DRIVER_MANA, .name = "mana",
	  .series = S_6_12 | S_7_3,
	  .why = "no kernel RC QPs" },
	{ .driver_id = RDMA_DRIVER_EFA, .name = "efa",
	  .series = S_ALL,
	  .why = "no kernel QPs" },
	{ .driver_id = RDMA_DRIVER_USNIC, .name = "usnic",
	  .series = S_ALL,
	  .why = "no kernel QPs" },
};

/**
 * rpcrdma_wqe_inline_driver_find - the policy table's entry of a driver
 * @driver_id: enum rdma_driver_id
 *
 * Return: the entry, or NULL when the driver is not in the table.
 */
const struct rpcrdma_wqe_inline_driver *
rpcrdma_wqe_inline_driver_find(u32 driver_id)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rpcrdma_wqe_inline_drivers); i++)
		if (rpcrdma_wqe_inline_drivers[i].driver_id == driver_id)
			return &rpcrdma_wqe_inline_drivers[i];
	return NULL;
}

/**
 * rpcrdma_wqe_inline_driver_name - a driver's name, for people
 * @driver_id: enum rdma_driver_id
 * @buf: room for the number, when the driver is not in the table
 * @len: size of @buf
 *
 * Return: the table's name of the driver, or its driver_id in decimal
 * (written to @buf), as the inline_drivers parameter takes it.
 */
const char *rpcrdma_wqe_inline_driver_name(u32 driver_id, char *buf,
					   size_t len)
{
	const struct rpcrdma_wqe_inline_driver *drv =
		rpcrdma_wqe_inline_driver_find(driver_id);

	if (drv)
		return drv->name;
	snprintf(buf, len, "%u", driver_id);
	return buf;
}

/* Whether @version is in one of the series of @series */
static bool rpcrdma_wqe_inline_in_series(u32 series, u32 version)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rpcrdma_wqe_inline_series); i++)
		if ((series & rpcrdma_wqe_inline_series[i].bit) &&
		    version >= rpcrdma_wqe_inline_series[i].from &&
		    version < rpcrdma_wqe_inline_series[i].to)
			return true;
	return false;
}

/**
 * rpcrdma_wqe_inline_series_print - the names of kernel series
 * @series: RPCRDMA_WQE_INLINE_SERIES_* bits
 * @buf: where to write "6.1,6.12,7.3" (or "-" for none), NUL-terminated
 * @len: size of @buf
 *
 * Return: the number of characters written, not counting the NUL.
 */
int rpcrdma_wqe_inline_series_print(u32 series, char *buf, size_t len)
{
	unsigned int i;
	size_t n = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(rpcrdma_wqe_inline_series) && n < len; i++)
		if (series & rpcrdma_wqe_inline_series[i].bit)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
				      rpcrdma_wqe_inline_series[i].name);
	if (!n)
		n = snprintf(buf, len, "-");
	return n < len ? n : len - 1;
}

/**
 * rpcrdma_wqe_inline_decide_for - whether a driver's QPs get inline data
 *	on a kernel
 * @driver_id: the device's enum rdma_driver_id
 * @ov: the admin's overrides (the inline_drivers parameter)
 * @kernel: the kernel the module is built for; NULL for the table's
 *	    verdict as audited, whatever the kernel
 * @v: filled with the verdict and its reason
 *
 * An override wins; then the table; a driver not in the table is off.
 * The table's on holds only on a kernel of the series whose source of
 * the driver was read, from the fix it needs on, and not on a vendor
 * kernel: elsewhere the driver is off, as stock. Sends behind
 * registrations in their post may go inline only where inline is on and
 * the override or the table says so.
 */
void rpcrdma_wqe_inline_decide_for(u32 driver_id,
				   const struct rpcrdma_wqe_inline_overrides *ov,
				   const struct rpcrdma_wqe_inline_kernel *kernel,
				   struct rpcrdma_wqe_inline_verdict *v)
{
	const struct rpcrdma_wqe_inline_driver *drv;
	unsigned int i;

	drv = rpcrdma_wqe_inline_driver_find(driver_id);
	v->driver = drv;
	v->kernel_off = false;
	for (i = 0; i < ov->count; i++) {
		if (ov->entry[i].driver_id != driver_id)
			continue;
		v->on = ov->entry[i].on;
		v->behind_reg = v->on && ov->entry[i].behind_reg;
		v->why = !v->on ? "opted out by the inline_drivers parameter" :
			 v->behind_reg ? "opted in by the inline_drivers parameter" :
			 "opted in by the inline_drivers parameter, Sends alone in their post only";
		return;
	}
	v->on = false;
	v->behind_reg = false;
	if (!drv) {
		v->why = "driver not audited; inline_drivers=ID:on opts it in";
		return;
	}
	v->why = drv->why;
	if (!drv->on)
		return;
	if (kernel && kernel->vendor)
		v->why = "vendor kernel: its driver backports not read; inline_drivers= opts in";
	else if (kernel &&
		 !rpcrdma_wqe_inline_in_series(drv->series, kernel->version))
		v->why = "kernel not of a series audited for this driver; inline_drivers= opts in";
	else if (kernel && kernel->version < drv->since)
		v->why = drv->before;
	else
		v->on = true;
	v->kernel_off = !v->on;
	v->behind_reg = v->on && drv->behind_reg;
}

/**
 * rpcrdma_wqe_inline_decide - the table's verdict on a driver, as audited
 * @driver_id: the device's enum rdma_driver_id
 * @ov: the admin's overrides (the inline_drivers parameter)
 * @v: filled with the verdict and its reason
 *
 * As rpcrdma_wqe_inline_decide_for() on a kernel of every audited series.
 */
void rpcrdma_wqe_inline_decide(u32 driver_id,
			       const struct rpcrdma_wqe_inline_overrides *ov,
			       struct rpcrdma_wqe_inline_verdict *v)
{
	rpcrdma_wqe_inline_decide_for(driver_id, ov, NULL, v);
}

/* The driver_id that @len bytes at @name give: a name of the table, or
 * a decimal number of at most three digits.
 */
static int rpcrdma_wqe_inline_parse_driver(const char *name, int len,
					   u32 *driver_id)
{
	unsigned int i;
	u32 id = 0;

	for (i = 0; i < ARRAY_SIZE(rpcrdma_wqe_inline_drivers); i++) {
		const char *known = rpcrdma_wqe_inline_drivers[i].name;

		if (strlen(known) == (size_t)len && !strncmp(known, name, len)) {
			*driver_id = rpcrdma_wqe_inline_drivers[i].driver_id;
			return 0;
		}
	}
	if (len < 1 || len > 3)
		return -EINVAL;
	for (i = 0; i < (unsigned int)len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -EINVAL;
		id = id * 10 + (name[i] - '0');
	}
	*driver_id = id;
	return 0;
}

/* The modes of the inline_drivers parameter, by what they allow: none,
 * Sends alone in their post, and Sends behind registrations too
 */
static const char *const rpcrdma_wqe_inline_modes[] = { "off", "alone", "on" };

/* One "DRIVER:MODE" of @len bytes at @item, into @ov */
static int rpcrdma_wqe_inline_parse_item(const char *item, int len,
					 struct rpcrdma_wqe_inline_overrides *ov)
{
	const char *colon = memchr(item, ':', len);
	int name_len, mode_len, mode, ret;
	unsigned int i;
	u32 driver_id;

	if (!colon)
		return -EINVAL;
	name_len = colon - item;
	mode_len = len - name_len - 1;
	for (mode = ARRAY_SIZE(rpcrdma_wqe_inline_modes) - 1; mode >= 0; mode--)
		if (strlen(rpcrdma_wqe_inline_modes[mode]) == (size_t)mode_len &&
		    !strncmp(colon + 1, rpcrdma_wqe_inline_modes[mode], mode_len))
			break;
	if (mode < 0)
		return -EINVAL;
	ret = rpcrdma_wqe_inline_parse_driver(item, name_len, &driver_id);
	if (ret)
		return ret;
	for (i = 0; i < ov->count; i++)
		if (ov->entry[i].driver_id == driver_id)
			break;
	if (i == RPCRDMA_WQE_INLINE_OVERRIDES)
		return -E2BIG;
	if (i == ov->count)
		ov->count++;
	ov->entry[i].driver_id = driver_id;
	ov->entry[i].on = mode > 0;
	ov->entry[i].behind_reg = mode > 1;
	return 0;
}

/**
 * rpcrdma_wqe_inline_overrides_parse - parse the inline_drivers parameter
 * @val: "DRIVER:MODE[,DRIVER:MODE...]", DRIVER a name of the table or
 *	 a driver_id in decimal, MODE on (inline, behind registrations
 *	 too), alone (only Sends alone in their post) or off; empty (or a
 *	 newline) for no override
 * @ov: filled with the overrides; a later entry for a driver wins
 * @bad: on error, set to the item that is wrong
 * @bad_len: on error, set to that item's length
 *
 * Return: 0, -EINVAL for a malformed item or an unknown driver name, or
 * -E2BIG for more than RPCRDMA_WQE_INLINE_OVERRIDES drivers.
 */
int rpcrdma_wqe_inline_overrides_parse(const char *val,
				       struct rpcrdma_wqe_inline_overrides *ov,
				       const char **bad, int *bad_len)
{
	int len = strcspn(val, "\n");
	const char *p = val, *end = val + len;
	int ret;

	ov->count = 0;
	if (!len)
		return 0;
	for (;;) {
		const char *comma = memchr(p, ',', end - p);
		int item_len = (comma ? comma : end) - p;

		ret = rpcrdma_wqe_inline_parse_item(p, item_len, ov);
		if (ret) {
			*bad = p;
			*bad_len = item_len;
			return ret;
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/**
 * rpcrdma_wqe_inline_overrides_print - the inline_drivers parameter's value
 * @ov: the overrides
 * @buf: where to write "DRIVER:on|alone|off[,...]", NUL-terminated
 * @len: size of @buf
 *
 * Return: the number of characters written, not counting the NUL.
 */
int rpcrdma_wqe_inline_overrides_print(const struct rpcrdma_wqe_inline_overrides *ov,
				       char *buf, size_t len)
{
	unsigned int i;
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < ov->count && n < len; i++) {
		char num[12];

		n += snprintf(buf + n, len - n, "%s%s:%s", i ? "," : "",
			      rpcrdma_wqe_inline_driver_name(ov->entry[i].driver_id,
							     num, sizeof(num)),
			      rpcrdma_wqe_inline_modes[ov->entry[i].on +
						       ov->entry[i].behind_reg]);
	}
	return n < len ? n : len - 1;
}
