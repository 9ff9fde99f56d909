// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: inline size negotiation and the eligibility rule.
 *
 * Nothing here touches a device or a connection, so the same file is
 * built into rpcrdma.ko and into the userspace unit tests.
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
	  .nomem_refuses = true,
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

/* The largest known limit of @drv below @below, or 0 if none */
static u32 rpcrdma_wqe_inline_known_limit(const struct rpcrdma_wqe_inline_driver *drv,
					  u32 below)
{
	unsigned int i;

	for (i = 0; drv && i < RPCRDMA_WQE_INLINE_LIMITS; i++)
		if (drv->limits[i] && drv->limits[i] < below)
			return drv->limits[i];
	return 0;
}

/**
 * rpcrdma_wqe_inline_first_size - inline data size of a first QP creation
 * @drv: the device's driver in the policy table, or NULL
 * @want: the size configured (inline_size)
 * @memo: what this device accepted before, or NULL
 *
 * When the device accepted a size before for the same or a larger
 * @want, start there, except on every RPCRDMA_WQE_INLINE_REPROBE-th use
 * of a memo below @want (@memo->uses), so that a size lowered once can
 * go back up. Otherwise start at @want, capped at the driver's largest
 * known limit.
 *
 * Return: the number of bytes of inline data to ask for.
 */
u32 rpcrdma_wqe_inline_first_size(const struct rpcrdma_wqe_inline_driver *drv,
				  u32 want,
				  const struct rpcrdma_wqe_inline_memo *memo)
{
	u32 limit;

	if (memo && memo->valid && want <= memo->want &&
	    (memo->accepted >= want || memo->uses % RPCRDMA_WQE_INLINE_REPROBE))
		return min(want, memo->accepted);
	limit = rpcrdma_wqe_inline_known_limit(drv, U32_MAX);
	if (limit && limit < want)
		return limit;
	return want;
}

/**
 * rpcrdma_wqe_inline_next_size - inline data size to ask for after a refusal
 * @drv: the device's driver in the policy table, or NULL
 * @refused: the size the device just refused
 *
 * The driver's next known limit below @refused, else @refused less
 * RPCRDMA_WQE_INLINE_STEP bytes, down to zero. The caller stops after
 * zero has been tried.
 *
 * Return: the number of bytes of inline data to ask for next.
 */
u32 rpcrdma_wqe_inline_next_size(const struct rpcrdma_wqe_inline_driver *drv,
				 u32 refused)
{
	u32 limit = rpcrdma_wqe_inline_known_limit(drv, refused);

	if (limit)
		return limit;
	return refused - min(refused, RPCRDMA_WQE_INLINE_STEP);
}

/**
 * rpcrdma_wqe_inline_retry - whether a failed QP creation is a refusal
 *	of its inline data size, and what to ask for next
 * @drv: the device's driver in the policy table, or NULL
 * @refused: the size the failed creation asked for
 * @err: the error it returned
 * @nomem: -ENOMEM refusals so far in this negotiation, zeroed by the
 *	   caller before the first attempt; counted here
 * @next: set to the size to ask for next when the result is true
 *
 * Drivers refuse an inline data size they cannot take with -EINVAL
 * (irdma, erdma, siw, rxe, and mlx5 for a WQE above max_wqe_sz_sq). mlx5's
 * calc_sq_size() also returns -ENOMEM when the send queue, max_send_wr
 * WQEs each grown by the inline data, exceeds log_max_qp_sz; that cannot
 * be told from a failed allocation, so for drivers with @nomem_refuses
 * -ENOMEM counts as a refusal only while inline data is asked for, at
 * most RPCRDMA_WQE_INLINE_NOMEM_TRIES times: the first asks for half
 * (the queue's size is rounded up to a power of two, so a WQE must
 * shrink to half to make a difference: 256 bytes on a deep 5-SGE server
 * queue needs 120 or less, src/DEVICES.md), the next ones step down as
 * after -EINVAL, and after that comes the stock module's ask, 0. So a
 * failed allocation costs at most four more creations. Any other error (-EIO or -ETIMEDOUT from the
 * firmware, -ENODEV from a device going away, -ENOMEM elsewhere) is
 * returned at once, as the stock module would: a smaller size would
 * not help, and its success would be remembered as the device's limit.
 *
 * Return: true to try again at *@next, false to give up with @err.
 */
bool rpcrdma_wqe_inline_retry(const struct rpcrdma_wqe_inline_driver *drv,
			      u32 refused, int err, unsigned int *nomem,
			      u32 *next)
{
	if (!refused)
		return false;
	if (err == -EINVAL) {
		*next = rpcrdma_wqe_inline_next_size(drv, refused);
		return true;
	}
	if (err != -ENOMEM || !drv || !drv->nomem_refuses)
		return false;
	++*nomem;
	if (*nomem > RPCRDMA_WQE_INLINE_NOMEM_TRIES)
		*next = 0;
	else if (*nomem == 1)
		*next = refused / 2 / RPCRDMA_WQE_INLINE_STEP *
			RPCRDMA_WQE_INLINE_STEP;
	else
		*next = rpcrdma_wqe_inline_next_size(drv, refused);
	return true;
}

static bool rpcrdma_wqe_inline_key_eq(const struct rpcrdma_wqe_inline_memo_key *a,
				      const struct rpcrdma_wqe_inline_memo_key *b)
{
	return a->side == b->side && a->max_send_wr == b->max_send_wr &&
	       a->max_send_sge == b->max_send_sge &&
	       a->max_rdma_ctxs == b->max_rdma_ctxs;
}

/**
 * rpcrdma_wqe_inline_memo_find - a device's memo for one side and shape
 * @memos: the device's memos
 * @n: how many there are
 * @key: the side and shape of the QP about to be created
 *
 * Return: the valid memo written for @key, or NULL: a memo of another
 * side or shape never applies.
 */
struct rpcrdma_wqe_inline_memo *
rpcrdma_wqe_inline_memo_find(struct rpcrdma_wqe_inline_memo *memos,
			     unsigned int n,
			     const struct rpcrdma_wqe_inline_memo_key *key)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (memos[i].valid && rpcrdma_wqe_inline_key_eq(&memos[i].key, key))
			return &memos[i];
	return NULL;
}

/**
 * rpcrdma_wqe_inline_memo_slot - where to write a memo for @key
 * @memos: the device's memos, oldest first
 * @n: how many there are, at least one
 * @key: the side and shape of the QP just created
 *
 * The memo of @key itself if there is one, else an unused one, else the
 * oldest: the others move down one, and the last is freed for @key.
 * The caller fills it, @key included.
 *
 * Return: the memo to write.
 */
struct rpcrdma_wqe_inline_memo *
rpcrdma_wqe_inline_memo_slot(struct rpcrdma_wqe_inline_memo *memos,
			     unsigned int n,
			     const struct rpcrdma_wqe_inline_memo_key *key)
{
	struct rpcrdma_wqe_inline_memo *memo;
	unsigned int i;

	memo = rpcrdma_wqe_inline_memo_find(memos, n, key);
	if (memo)
		return memo;
	for (i = 0; i < n; i++)
		if (!memos[i].valid)
			return &memos[i];
	for (i = 0; i + 1 < n; i++)
		memos[i] = memos[i + 1];
	memset(&memos[i], 0, sizeof(memos[i]));
	return &memos[i];
}

/**
 * rpcrdma_wqe_inline_memo_write - remember what a QP creation accepted
 * @memo: the memo of @key (from rpcrdma_wqe_inline_memo_slot())
 * @key: the side and shape of the QP created
 * @want: the inline_size asked for
 * @accepted: the size whose creation succeeded
 * @reported: the max_inline_data the device wrote back
 *
 * Call only after a negotiation whose failures were all refusals
 * (rpcrdma_wqe_inline_retry()). A result equal to the memo's keeps its
 * count of uses, so that every RPCRDMA_WQE_INLINE_REPROBE-th connection
 * still probes; a new one counts from 1.
 */
void rpcrdma_wqe_inline_memo_write(struct rpcrdma_wqe_inline_memo *memo,
				   const struct rpcrdma_wqe_inline_memo_key *key,
				   u32 want, u32 accepted, u32 reported)
{
	if (!memo->valid || !rpcrdma_wqe_inline_key_eq(&memo->key, key) ||
	    memo->want != want || memo->accepted != accepted)
		memo->uses = 1;
	memo->key = *key;
	memo->want = want;
	memo->accepted = accepted;
	memo->reported = reported;
	memo->valid = true;
}

/**
 * rpcrdma_wqe_inline_param_refused - what a parameter's set function
 *	returns for a value it refused
 * @err: why it refused it (a negative errno)
 * @loading: the value was given at module load, not written at run time
 *
 * At run time (a sysfs write) the write fails and the old value stays.
 * At load (modprobe arguments, /etc/modprobe.d) an error would make
 * load_module() fail, and rpcrdma, with NFS over RDMA, would not load
 * for a typo: there the default is kept and loading goes on.
 *
 * Return: @err at run time, 0 at load.
 */
int rpcrdma_wqe_inline_param_refused(int err, bool loading)
{
	return loading ? 0 : err;
}

/**
 * rpcrdma_wqe_inline_usable - bytes that may be posted inline on a new QP
 * @drv: the device's driver in the policy table, or NULL
 * @asked: the max_inline_data requested at QP creation
 * @reported: the max_inline_data the device wrote back
 *
 * Drivers may report more than was asked (rxe, mlx5 round up to their
 * WQE size), or, if broken, less; and some post paths take less than
 * QP creation grants (@drv->post_max). Never post more than any of
 * them: with nothing asked for, nothing is posted inline.
 *
 * Return: the smallest of them.
 */
u32 rpcrdma_wqe_inline_usable(const struct rpcrdma_wqe_inline_driver *drv,
			      u32 asked, u32 reported)
{
	u32 max = min(asked, reported);

	if (drv && drv->post_max)
		max = min(max, drv->post_max);
	return max;
}

/**
 * rpcrdma_wqe_inline_size_valid - check a value for the inline_size parameter
 * @size: bytes of inline data per Send WR
 *
 * Return: true when @size is between 0 and RPCRDMA_WQE_INLINE_MAX.
 */
bool rpcrdma_wqe_inline_size_valid(unsigned long size)
{
	return size <= RPCRDMA_WQE_INLINE_MAX;
}

/* The kernel virtual address of @len bytes at DMA address @dma, or
 * NULL when they are not wholly inside one of @bufs.
 */
static const void *
rpcrdma_wqe_inline_va(u64 dma, u32 len,
		      const struct rpcrdma_wqe_inline_buf *bufs,
		      unsigned int num_bufs)
{
	unsigned int i;

	for (i = 0; i < num_bufs; i++) {
		const struct rpcrdma_wqe_inline_buf *buf = &bufs[i];

		if (!buf->va || dma < buf->dma || len > buf->len ||
		    dma - buf->dma > buf->len - len)
			continue;
		return (const char *)buf->va + (dma - buf->dma);
	}
	return NULL;
}

/**
 * rpcrdma_wqe_inline_map_sges - the eligibility rule for one Send WR
 * @sges: the Send's SGEs, as DMA-mapped for posting by reference
 * @num_sge: how many there are
 * @bufs: the buffers whose kernel virtual addresses are known
 * @num_bufs: how many there are
 * @max: bytes that may be posted inline on this QP
 * @out: filled with @num_sge SGEs holding kernel virtual addresses
 * @num_out: how many SGEs @out has room for
 *
 * A Send may go inline when every SGE lies wholly within one of @bufs
 * (never in a mapped page: its virtual address is not known here), and
 * the message fits in @max bytes. The caller also checks that the Send
 * WR is posted alone. Inline data is copied by the provider from
 * sg_list[].addr as a kernel virtual address, hence @out: the original
 * SGEs keep the DMA addresses that are synced and unmapped later.
 *
 * The checks run in that order, so that a Send that is too large is one
 * that a larger @max would have posted inline (for the size counts).
 *
 * Return: the message length in bytes when the Send is eligible;
 * -EINVAL when it has no SGE, more than @num_out, or an empty one
 * (never posted inline), -EFAULT when an SGE is not within @bufs,
 * -E2BIG when it is larger than @max.
 */
int rpcrdma_wqe_inline_map_sges(const struct ib_sge *sges,
				unsigned int num_sge,
				const struct rpcrdma_wqe_inline_buf *bufs,
				unsigned int num_bufs, u32 max,
				struct ib_sge *out, unsigned int num_out)
{
	u64 total = 0;
	unsigned int i;

	if (!num_sge || num_sge > num_out)
		return -EINVAL;
	for (i = 0; i < num_sge; i++) {
		/* Some providers refuse an empty inline SGE (ionic) */
		if (!sges[i].length)
			return -EINVAL;
	}
	for (i = 0; i < num_sge; i++) {
		const void *va = rpcrdma_wqe_inline_va(sges[i].addr,
						       sges[i].length,
						       bufs, num_bufs);

		if (!va)
			return -EFAULT;
		out[i].addr = (uintptr_t)va;
		out[i].length = sges[i].length;
		out[i].lkey = sges[i].lkey;
		total += sges[i].length;
	}
	if (total > max)
		return -E2BIG;
	return total;
}

/**
 * rpcrdma_wqe_inline_how_of - how a Send goes, from the eligibility rule
 * @mapped: what rpcrdma_wqe_inline_map_sges() returned for it
 *
 * Return: %RPCRDMA_WQE_INLINE_HOW_INLINE for a length, else the reason
 * the Send goes by reference.
 */
enum rpcrdma_wqe_inline_how rpcrdma_wqe_inline_how_of(int mapped)
{
	if (mapped >= 0)
		return RPCRDMA_WQE_INLINE_HOW_INLINE;
	if (mapped == -EFAULT)
		return RPCRDMA_WQE_INLINE_HOW_PAGES;
	if (mapped == -E2BIG)
		return RPCRDMA_WQE_INLINE_HOW_LARGE;
	return RPCRDMA_WQE_INLINE_HOW_SGE;
}

/**
 * rpcrdma_wqe_inline_chain_ok - the eligibility rule for a Send's chain
 * @post_wr: the first WR of the ib_post_send() that posts the Send
 * @send_wr: the Send WR, the last of that chain
 * @behind_reg: the driver builds an inline Send the same behind
 *		IB_WR_REG_MR WRs (rpcrdma_wqe_inline_verdict.behind_reg)
 *
 * A Send alone in its post may go inline. So may one behind nothing but
 * memory registrations, where @behind_reg allows it: a REG_MR carries
 * no payload, and the HCA would still DMA-read the Send right after it.
 * Any other WR ahead of it (chunk data) keeps it by reference.
 *
 * Return: true when the chain allows @send_wr to go inline; false when
 * another WR is ahead of it, or @send_wr is not in the chain at all.
 */
bool rpcrdma_wqe_inline_chain_ok(const struct ib_send_wr *post_wr,
				 const struct ib_send_wr *send_wr,
				 bool behind_reg)
{
	const struct ib_send_wr *wr;

	for (wr = post_wr; wr && wr != send_wr; wr = wr->next)
		if (!behind_reg || wr->opcode != IB_WR_REG_MR)
			return false;
	return wr == send_wr;
}

static const char *const rpcrdma_wqe_inline_how_names[] = {
	[RPCRDMA_WQE_INLINE_HOW_INLINE]		= "inline",
	[RPCRDMA_WQE_INLINE_HOW_OFF]		= "off",
	[RPCRDMA_WQE_INLINE_HOW_CHUNKS]		= "chunks",
	[RPCRDMA_WQE_INLINE_HOW_CHAINED]	= "chained",
	[RPCRDMA_WQE_INLINE_HOW_PAGES]		= "pages",
	[RPCRDMA_WQE_INLINE_HOW_UNPULLED]	= "unpulled",
	[RPCRDMA_WQE_INLINE_HOW_LARGE]		= "large",
	[RPCRDMA_WQE_INLINE_HOW_SGE]		= "sge",
};

static_assert(ARRAY_SIZE(rpcrdma_wqe_inline_how_names) ==
	      RPCRDMA_WQE_INLINE_HOW_NR);

/**
 * rpcrdma_wqe_inline_how_name - the name debugfs and the tracepoint give @how
 * @how: how a Send was posted
 *
 * Return: "inline", or the reason by reference: "off", "chunks",
 * "chained", "pages", "unpulled", "large" or "sge".
 */
const char *rpcrdma_wqe_inline_how_name(enum rpcrdma_wqe_inline_how how)
{
	if ((unsigned int)how >= RPCRDMA_WQE_INLINE_HOW_NR)
		return "?";
	return rpcrdma_wqe_inline_how_names[how];
}

/**
 * rpcrdma_wqe_inline_msg_len - the bytes a Send carries
 * @sges: its SGEs
 * @num_sge: how many there are
 *
 * Return: the sum of their lengths, at most U32_MAX.
 */
u32 rpcrdma_wqe_inline_msg_len(const struct ib_sge *sges,
			       unsigned int num_sge)
{
	u64 total = 0;
	unsigned int i;

	for (i = 0; i < num_sge; i++)
		total += sges[i].length;
	return total > U32_MAX ? U32_MAX : total;
}

/**
 * rpcrdma_wqe_inline_size_class - the size class a Send is counted in
 * @len: its length in bytes
 *
 * Return: 0 for up to 64 bytes, 1 for up to 128, 2 for 256, 3 for 512,
 * 4 for 1024, and 5 (%RPCRDMA_WQE_INLINE_SIZES - 1) for larger.
 */
unsigned int rpcrdma_wqe_inline_size_class(u32 len)
{
	unsigned int class = 0;

	while (class < RPCRDMA_WQE_INLINE_SIZES - 1 && len > 64U << class)
		class++;
	return class;
}

static const char *const rpcrdma_wqe_inline_size_names[] = {
	"le64", "le128", "le256", "le512", "le1024", "gt1024",
};

static_assert(ARRAY_SIZE(rpcrdma_wqe_inline_size_names) ==
	      RPCRDMA_WQE_INLINE_SIZES);

/**
 * rpcrdma_wqe_inline_size_name - the name debugfs gives a size class
 * @class: a size class of rpcrdma_wqe_inline_size_class()
 *
 * Return: "le64", "le128", "le256", "le512", "le1024" or "gt1024".
 */
const char *rpcrdma_wqe_inline_size_name(unsigned int class)
{
	if (class >= RPCRDMA_WQE_INLINE_SIZES)
		return "?";
	return rpcrdma_wqe_inline_size_names[class];
}
