// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: the inline sizes asked for: the first ask, the next
 * one after a refusal, the parameter's bounds.
 *
 * Nothing here touches a device or a connection, so the same file is
 * built into rpcrdma.ko and into the userspace unit tests (tests/unit).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "rpcrdma_wqe_inline_policy.h"

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
 * go back up; not on drivers whose refusals follow from the QP's caps
 * alone (@drv->nomem_refuses: mlx5's calc_sq_size()), where a re-probe
 * would only fail again. Otherwise start at @want, capped at the
 * driver's largest known limit.
 *
 * Return: the number of bytes of inline data to ask for.
 */
u32 rpcrdma_wqe_inline_first_size(const struct rpcrdma_wqe_inline_driver *drv,
				  u32 want,
				  const struct rpcrdma_wqe_inline_memo *memo)
{
	u32 limit;

	if (memo && memo->valid && want <= memo->want &&
	    (memo->accepted >= want || (drv && drv->nomem_refuses) ||
	     memo->uses % RPCRDMA_WQE_INLINE_REPROBE))
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
 * queue needs 120 or less, docs/devices.md), the next ones step down as
 * after -EINVAL, and after that comes svcrdma's and xprtrdma's ask, 0. So a
 * failed allocation costs at most four more creations. Any other error (-EIO or -ETIMEDOUT from the
 * firmware, -ENODEV from a device going away, -ENOMEM elsewhere) is
 * returned at once, as rdma_create_qp()'s caller does there: a smaller size would
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
 * @want: the inline_size configured
 * @asked: the max_inline_data requested at QP creation
 * @reported: the max_inline_data the device wrote back
 *
 * Drivers may report more than was asked (rxe, mlx5 round up to their
 * WQE size), or, if broken, less; and some post paths take less than
 * QP creation grants (@drv->post_max). Never post more than any of
 * them: with nothing asked for, nothing is posted inline. Where the
 * driver's post path checks inline data against the value it wrote
 * back (@drv->post_written: mlx5's set_data_inl_seg() against
 * qp->max_inline_data, which calc_sq_size() sets to what it writes
 * back), that value is the grant, up to @want: mlx5 gives a 5-SGE QP
 * asked for no inline data 120 bytes of it.
 *
 * Return: the smallest of them.
 */
u32 rpcrdma_wqe_inline_usable(const struct rpcrdma_wqe_inline_driver *drv,
			      u32 want, u32 asked, u32 reported)
{
	u32 max = min(drv && drv->post_written ? want : asked, reported);

	if (drv && drv->post_max)
		max = min(max, drv->post_max);
	return max;
}

/**
 * rpcrdma_wqe_inline_free - inline bytes a QP asked for none may post
 * @drv: the device's driver in the policy table, or NULL
 * @want: the inline_size configured
 * @zero: what the device wrote back for the shape with no inline data
 *
 * Return: rpcrdma_wqe_inline_usable() of a creation that asked 0: 0
 * unless the driver's post path checks against what it wrote back.
 */
u32 rpcrdma_wqe_inline_free(const struct rpcrdma_wqe_inline_driver *drv,
			    u32 want, const struct rpcrdma_wqe_inline_caps *zero)
{
	return rpcrdma_wqe_inline_usable(drv, want, 0, zero->max_inline_data);
}

/**
 * rpcrdma_wqe_inline_keep_caps - what a QP with inline data keeps of
 *	what its creation wrote back
 * @zero: what the device writes back for the same shape with no inline
 *	  data: what the stock module's QP gets
 * @got: what the creation with inline data wrote back
 * @keep: filled with what the QP keeps
 *
 * Never fewer resources than stock, and never more SGEs per WR than
 * stock or than granted: the send, RDMA Write and RDMA Read SGEs are the
 * smaller of @got and @zero. On mlx5 @zero is already more than the ULP
 * asked (a 5-SGE WQE of 256 bytes holds 14: get_send_sge()), and a QP
 * with inline data has at least that (26 at 448 bytes): it keeps 14. On
 * rxe @zero is the ULP's ask (rxe_qp_init_req() writes back what the
 * WQE holds, 16 SGEs at 256 bytes of inline data, 5 with none): it
 * keeps 5, so that rdma_rw builds its chunk Writes and Reads no larger
 * than stock (larger ones have fewer acknowledged points on a lossy
 * wire). max_send_wr stays as written back.
 *
 * Return: true when @got has at least @zero's send WRs and send, Write
 * and Read SGEs; false when the QP with inline data would have fewer
 * than stock's (the caller then creates one with none).
 */
bool rpcrdma_wqe_inline_keep_caps(const struct rpcrdma_wqe_inline_caps *zero,
				  const struct rpcrdma_wqe_inline_caps *got,
				  struct rpcrdma_wqe_inline_caps *keep)
{
	keep->max_send_wr = got->max_send_wr;
	keep->max_send_sge = min(got->max_send_sge, zero->max_send_sge);
	keep->max_write_sge = min(got->max_write_sge, zero->max_write_sge);
	keep->max_read_sge = min(got->max_read_sge, zero->max_read_sge);
	keep->max_inline_data = got->max_inline_data;
	return got->max_send_wr >= zero->max_send_wr &&
	       got->max_send_sge >= zero->max_send_sge &&
	       got->max_write_sge >= zero->max_write_sge &&
	       got->max_read_sge >= zero->max_read_sge;
}

/**
 * rpcrdma_wqe_inline_neg_start - begin the negotiation of one QP creation
 * @n: filled in; @n->size is what the first creation asks for
 * @drv: the device's driver in the policy table, or NULL
 * @want: the inline_size configured, not 0
 * @memo: what the device accepted before for this side and shape, or NULL
 *
 * What the device writes back with no inline data is found once per
 * device and shape: without a memo the first creation asks for none,
 * as the stock module's does. If a QP asked for none may post as much
 * as the first size asked (rpcrdma_wqe_inline_free()), that is the QP
 * to make.
 */
void rpcrdma_wqe_inline_neg_start(struct rpcrdma_wqe_inline_neg *n,
				  const struct rpcrdma_wqe_inline_driver *drv,
				  u32 want,
				  const struct rpcrdma_wqe_inline_memo *memo)
{
	memset(n, 0, sizeof(*n));
	n->drv = drv;
	n->want = want;
	n->refusals_only = true;
	n->first = rpcrdma_wqe_inline_first_size(drv, want, memo);
	if (memo && memo->valid) {
		n->zero = memo->zero;
		n->zero_known = true;
		n->extra_wr = memo->extra_wr;
		if (n->first > rpcrdma_wqe_inline_free(drv, want, &n->zero))
			n->size = n->first;
	} else {
		n->resume = n->first;
	}
}

/**
 * rpcrdma_wqe_inline_neg_step - what to do after a QP creation
 * @n: the negotiation; @n->size is what the creation asked for
 * @ret: what rdma_create_qp() returned
 * @got: what it wrote back, when it succeeded
 *
 * A creation with no inline data that succeeds gives what the shape
 * gets with none (once per negotiation without a memo); then the size
 * to resume at is asked for, unless the QP made covers it. A QP with
 * inline data is kept when it has at least what one with none has
 * (rpcrdma_wqe_inline_keep_caps()). One short of send WRs alone is made
 * again, once, asking for the missing WRs beyond the ULP's
 * (@n->extra_wr: mlx5 rounds its send queue up to a power of two, so a
 * larger WQE may leave fewer WRs than stock's in the same memory, where
 * one more WR doubles it); one still short, or short of SGEs, is replaced
 * by one with none. After a
 * refusal of the size (rpcrdma_wqe_inline_retry()) the next size is
 * asked for, 0 once a QP with none would post as much; before that, if
 * no creation with no inline data has succeeded in this negotiation,
 * one checks that the failure was about the size. An error that is no
 * refusal fails the negotiation, unless a QP with no inline data was
 * made in it: then it ends with such a QP, never with a failed
 * connection. A failed creation with no inline data ends it with that
 * error: the stock module's would have failed too.
 *
 * Return: what to do next, with @n->size set for %RPCRDMA_WQE_INLINE_ASK.
 */
enum rpcrdma_wqe_inline_act
rpcrdma_wqe_inline_neg_step(struct rpcrdma_wqe_inline_neg *n, int ret,
			    const struct rpcrdma_wqe_inline_caps *got)
{
	struct rpcrdma_wqe_inline_caps keep;
	u32 free, next;

	if (!ret && !n->size) {
		if (!n->zero_known) {
			n->zero = *got;
			n->zero_known = true;
		}
		n->zero_made = true;
		next = n->resume;
		n->resume = 0;
		if (next > rpcrdma_wqe_inline_free(n->drv, n->want, &n->zero)) {
			n->size = next;
			return RPCRDMA_WQE_INLINE_ASK;
		}
		return RPCRDMA_WQE_INLINE_KEEP;
	}
	if (!ret) {
		if (rpcrdma_wqe_inline_keep_caps(&n->zero, got, &keep))
			return RPCRDMA_WQE_INLINE_KEEP;
		/* Short of send WRs alone: once, ask for the missing ones */
		if (!n->extra_tried && got->max_send_wr < n->zero.max_send_wr &&
		    keep.max_send_sge >= n->zero.max_send_sge &&
		    got->max_write_sge >= n->zero.max_write_sge &&
		    got->max_read_sge >= n->zero.max_read_sge) {
			n->extra_tried = true;
			n->extra_wr += n->zero.max_send_wr - got->max_send_wr;
			return RPCRDMA_WQE_INLINE_ASK;
		}
		n->short_caps = true;
		n->size = 0;
		return RPCRDMA_WQE_INLINE_ASK;
	}
	if (!n->size)
		return RPCRDMA_WQE_INLINE_FAIL;
	if (!rpcrdma_wqe_inline_retry(n->drv, n->size, ret, &n->nomem, &next)) {
		if (!n->zero_made)
			return RPCRDMA_WQE_INLINE_FAIL;
		n->refusals_only = false;
		n->err = ret;
		n->size = 0;
		return RPCRDMA_WQE_INLINE_ASK;
	}
	free = n->zero_known ?
	       rpcrdma_wqe_inline_free(n->drv, n->want, &n->zero) : 0;
	if (next <= free)
		next = 0;
	if (!n->zero_made && next) {
		n->check_size = n->size;
		n->check_err = ret;
		n->resume = next;
		next = 0;
	}
	n->size = next;
	return RPCRDMA_WQE_INLINE_ASK;
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
