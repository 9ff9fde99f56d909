// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: inline size negotiation and the eligibility rule.
 *
 * Nothing here touches a device or a connection, so the same file is
 * built into rpcrdma.ko and into the userspace unit tests.
 */

#include <linux/errno.h>
#include <linux/kernel.h>

#include "rpcrdma_wqe_inline_policy.h"

/* The verbs API cannot report a device's inline data limit: only a QP
 * creation tells. Some drivers have fixed limits: Intel irdma 216, 101
 * or 48 bytes depending on the generation, Alibaba erdma 96. On those
 * devices, found by vendor ID, try the known limits first, largest
 * first. libfabric's verbs provider also probes by trial QP creation.
 */
static const struct {
	u32	vendor_id;
	u32	limit;
} rpcrdma_wqe_inline_limits[] = {
	{ RPCRDMA_WQE_INLINE_VENDOR_INTEL, 216 },
	{ RPCRDMA_WQE_INLINE_VENDOR_INTEL, 101 },
	{ RPCRDMA_WQE_INLINE_VENDOR_INTEL, 48 },
	{ RPCRDMA_WQE_INLINE_VENDOR_ALIBABA, 96 },
};

/* The largest known limit of @vendor_id below @below, or 0 if none */
static u32 rpcrdma_wqe_inline_vendor_limit(u32 vendor_id, u32 below)
{
	u32 best = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rpcrdma_wqe_inline_limits); i++) {
		u32 limit = rpcrdma_wqe_inline_limits[i].limit;

		if (rpcrdma_wqe_inline_limits[i].vendor_id == vendor_id &&
		    limit < below && limit > best)
			best = limit;
	}
	return best;
}

/**
 * rpcrdma_wqe_inline_first_size - inline data size of a first QP creation
 * @vendor_id: the device's vendor ID (ib_device_attr::vendor_id)
 * @want: the size configured (inline_size)
 * @memo: what this device accepted before, or NULL
 *
 * When the device accepted a size before for the same or a larger
 * @want, start there. Otherwise start at @want, capped at the
 * vendor's largest known limit.
 *
 * Return: the number of bytes of inline data to ask for.
 */
u32 rpcrdma_wqe_inline_first_size(u32 vendor_id, u32 want,
				  const struct rpcrdma_wqe_inline_memo *memo)
{
	u32 limit;

	if (memo && memo->valid && want <= memo->want)
		return min(want, memo->accepted);
	limit = rpcrdma_wqe_inline_vendor_limit(vendor_id, U32_MAX);
	if (limit && limit < want)
		return limit;
	return want;
}

/**
 * rpcrdma_wqe_inline_next_size - inline data size to ask for after a refusal
 * @vendor_id: the device's vendor ID
 * @refused: the size the device just refused
 *
 * The vendor's next known limit below @refused, else @refused less
 * RPCRDMA_WQE_INLINE_STEP bytes, down to zero. The caller stops after
 * zero has been tried.
 *
 * Return: the number of bytes of inline data to ask for next.
 */
u32 rpcrdma_wqe_inline_next_size(u32 vendor_id, u32 refused)
{
	u32 limit = rpcrdma_wqe_inline_vendor_limit(vendor_id, refused);

	if (limit)
		return limit;
	return refused - min(refused, RPCRDMA_WQE_INLINE_STEP);
}

/**
 * rpcrdma_wqe_inline_usable - bytes that may be posted inline on a new QP
 * @asked: the max_inline_data requested at QP creation
 * @reported: the max_inline_data the device wrote back
 *
 * Drivers may report more than was asked (rxe, mlx5 round up to their
 * WQE size), or, if broken, less. Never post more than either: with
 * nothing asked for, nothing is posted inline.
 *
 * Return: the smaller of the two.
 */
u32 rpcrdma_wqe_inline_usable(u32 asked, u32 reported)
{
	return min(asked, reported);
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
 * Return: the message length in bytes when the Send is eligible;
 * -EINVAL when it has no SGE or more than @num_out, -E2BIG when it
 * is larger than @max,
 * -EFAULT when an SGE is not within @bufs.
 */
int rpcrdma_wqe_inline_map_sges(const struct ib_sge *sges,
				unsigned int num_sge,
				const struct rpcrdma_wqe_inline_buf *bufs,
				unsigned int num_bufs, u32 max,
				struct ib_sge *out, unsigned int num_out)
{
	u32 total = 0;
	unsigned int i;

	if (!num_sge || num_sge > num_out)
		return -EINVAL;
	for (i = 0; i < num_sge; i++) {
		if (sges[i].length > max - total)
			return -E2BIG;
		total += sges[i].length;
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
	}
	return total;
}
