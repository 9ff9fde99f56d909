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
