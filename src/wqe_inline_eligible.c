// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: the eligibility rule (a Send inline or by
 * reference, and why) and the size classes it is counted in.
 *
 * Nothing here touches a device or a connection, so the same file is
 * built into rpcrdma.ko and into the userspace unit tests (tests/unit).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "rpcrdma_wqe_inline_policy.h"

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
