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

/* The policy of each in-tree RDMA provider, from reading its source in
 * every kernel this module supports: src/DEVICES.md has the audit, with
 * the functions each verdict rests on. The verbs API cannot report a
 * device's inline data limit: only a QP creation tells, so drivers with
 * fixed limits list them, largest first, to be tried before stepping
 * down. A driver that is not in this table is off.
 */
static const struct rpcrdma_wqe_inline_driver rpcrdma_wqe_inline_drivers[] = {
	{ .driver_id = RDMA_DRIVER_MLX5, .name = "mlx5", .on = true,
	  .behind_reg = true,
	  .nomem_refuses = true, .post_written = true,
	  .why = "copies inline data from sge.addr; size from its WQE size" },
	{ .driver_id = RDMA_DRIVER_IRDMA, .name = "irdma", .on = true,
	  .behind_reg = true,
	  .limits = { 216, 101, 48 },
	  .why = "copies inline data from sge.addr; 216/101/48 bytes by generation" },
	{ .driver_id = RDMA_DRIVER_QEDR, .name = "qedr", .on = true,
	  .behind_reg = true,
	  .limits = { 256, 128 },
	  .why = "copies inline data from sge.addr; 256 bytes (qed)" },
	{ .driver_id = RDMA_DRIVER_OCRDMA, .name = "ocrdma", .on = true,
	  .behind_reg = true,
	  .limits = { 224, 96 },
	  .why = "copies inline data from sge.addr; limit from the firmware" },
	{ .driver_id = RDMA_DRIVER_CXGB4, .name = "cxgb4", .on = true,
	  .behind_reg = true,
	  .limits = { 280 },
	  .why = "copies inline data from sge.addr; 280 bytes" },
	{ .driver_id = RDMA_DRIVER_ERDMA, .name = "erdma", .on = true,
	  .behind_reg = true,
	  .limits = { 96 },
	  .why = "copies inline data from sge.addr; 96 bytes" },
	{ .driver_id = RPCRDMA_WQE_INLINE_DRIVER_IONIC, .name = "ionic",
	  .on = true, .behind_reg = true, .limits = { 224, 96, 32 },
	  .why = "copies inline data from sge.addr; limit from its WQE stride" },
	{ .driver_id = RDMA_DRIVER_RXE, .name = "rxe", .on = true,
	  .behind_reg = true,
	  .limits = { 512 },
	  .why = "copies inline data from sge.addr; up to 512 bytes" },
	{ .driver_id = RDMA_DRIVER_SIW, .name = "siw", .on = true,
	  .behind_reg = true,
	  .limits = { 80 }, .no_inv = true,
	  .why = "copies inline data from sge.addr; 80 bytes; no inline Send With Invalidate" },
	{ .driver_id = RDMA_DRIVER_BNXT_RE, .name = "bnxt_re",
	  .why = "posts inline WRs without their payload" },
	{ .driver_id = RDMA_DRIVER_HNS, .name = "hns",
	  .why = "copies inline data past 32 bytes to the wrong place" },
	{ .driver_id = RDMA_DRIVER_MLX4, .name = "mlx4",
	  .why = "kernel QPs get no inline data; post_send ignores the flag" },
	{ .driver_id = RDMA_DRIVER_VMW_PVRDMA, .name = "vmw_pvrdma",
	  .why = "grants no inline data; passes the flag to the device as is" },
	{ .driver_id = RDMA_DRIVER_MTHCA, .name = "mthca",
	  .why = "refuses any inline data for kernel QPs" },
	{ .driver_id = RDMA_DRIVER_HFI1, .name = "hfi1",
	  .why = "rdmavt grants no inline data and ignores the flag" },
	{ .driver_id = RDMA_DRIVER_QIB, .name = "qib",
	  .why = "rdmavt grants no inline data and ignores the flag" },
	{ .driver_id = RPCRDMA_WQE_INLINE_DRIVER_MANA, .name = "mana",
	  .why = "no kernel RC QPs" },
	{ .driver_id = RDMA_DRIVER_EFA, .name = "efa",
	  .why = "no kernel QPs" },
	{ .driver_id = RDMA_DRIVER_USNIC, .name = "usnic",
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

/**
 * rpcrdma_wqe_inline_decide - whether a driver's QPs get inline data
 * @driver_id: the device's enum rdma_driver_id
 * @ov: the admin's overrides (the inline_drivers parameter)
 * @v: filled with the verdict and its reason
 *
 * An override wins; then the table; a driver not in the table is off.
 * Sends behind registrations in their post may go inline only where
 * inline is on and the override or the table says so.
 */
void rpcrdma_wqe_inline_decide(u32 driver_id,
			       const struct rpcrdma_wqe_inline_overrides *ov,
			       struct rpcrdma_wqe_inline_verdict *v)
{
	unsigned int i;

	v->driver = rpcrdma_wqe_inline_driver_find(driver_id);
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
	if (v->driver) {
		v->on = v->driver->on;
		v->behind_reg = v->on && v->driver->behind_reg;
		v->why = v->driver->why;
		return;
	}
	v->on = false;
	v->behind_reg = false;
	v->why = "driver not audited; inline_drivers=ID:on opts it in";
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
