/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rpcrdma-inline: the decisions that need no kernel.
 *
 * "WQE inline" is the verbs feature IB_SEND_INLINE: the CPU copies a
 * small Send's payload into the send work queue entry, so the HCA does
 * not have to DMA-read it from host memory. It is unrelated to the
 * RPC-over-RDMA inline threshold (re_inline_send, rpcrdma_max_inline).
 *
 * This file is compiled into rpcrdma.ko and, unchanged, into the
 * userspace unit tests (tests/unit/).
 */
#ifndef _RPCRDMA_WQE_INLINE_POLICY_H
#define _RPCRDMA_WQE_INLINE_POLICY_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

/* Bytes of inline data asked for by default, and the largest value the
 * inline_size module parameter accepts (hns hip09 and mlx5 grant 1024
 * or more; no known device takes more than that per Send WR).
 */
#define RPCRDMA_WQE_INLINE_DEFAULT	256U
#define RPCRDMA_WQE_INLINE_MAX		1024U

/* After a refusal with no vendor limit below it, ask for this much less */
#define RPCRDMA_WQE_INLINE_STEP		16U

#define RPCRDMA_WQE_INLINE_VENDOR_INTEL		0x8086U
#define RPCRDMA_WQE_INLINE_VENDOR_ALIBABA	0x1dedU

/**
 * struct rpcrdma_wqe_inline_memo - what one device accepted last time
 * @want: the inline_size that was asked for then
 * @accepted: the size whose QP creation succeeded
 * @valid: the memo holds a result
 */
struct rpcrdma_wqe_inline_memo {
	u32	want;
	u32	accepted;
	bool	valid;
};

/**
 * struct rpcrdma_wqe_inline_buf - a buffer that has a kernel virtual address
 * @dma: its DMA address, as the Send's SGEs carry it
 * @va: its kernel virtual address, from which providers copy inline data
 * @len: its length in bytes
 */
struct rpcrdma_wqe_inline_buf {
	u64		dma;
	const void	*va;
	u32		len;
};

u32 rpcrdma_wqe_inline_first_size(u32 vendor_id, u32 want,
				  const struct rpcrdma_wqe_inline_memo *memo);
u32 rpcrdma_wqe_inline_next_size(u32 vendor_id, u32 refused);
u32 rpcrdma_wqe_inline_usable(u32 asked, u32 reported);
bool rpcrdma_wqe_inline_size_valid(unsigned long size);
int rpcrdma_wqe_inline_map_sges(const struct ib_sge *sges,
				unsigned int num_sge,
				const struct rpcrdma_wqe_inline_buf *bufs,
				unsigned int num_bufs, u32 max,
				struct ib_sge *out, unsigned int num_out);

#endif /* _RPCRDMA_WQE_INLINE_POLICY_H */
