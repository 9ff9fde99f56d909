// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline, client side: post small xprtrdma Calls inline.
 */

#include "xprt_rdma.h"

#include "rpcrdma_wqe_inline.h"

/* @rb as a buffer with a known kernel virtual address, if it is mapped */
static void rpcrdma_wqe_inline_regbuf(struct rpcrdma_regbuf *rb,
				      struct rpcrdma_wqe_inline_buf *buf)
{
	if (!rb || !rpcrdma_regbuf_is_mapped(rb)) {
		buf->va = NULL;
		return;
	}
	buf->dma = rdmab_addr(rb);
	buf->va = rdmab_data(rb);
	buf->len = rdmab_length(rb);
}

/*
 * How a client Call is posted. The Call goes inline when the connection
 * has inline data, nothing but memory registrations is chained ahead of
 * it (and the driver builds an inline Send the same behind them,
 * wi->behind_reg) or it is alone, no SGE points into a mapped page
 * (sc_unmap_count is zero, so every SGE lies in the transport header
 * buffer rl_rdmabuf or the pulled-up message in rl_sendbuf), and it fits
 * in what the QP was granted, in bytes and SGEs; the inline SGEs then carry kernel virtual
 * addresses, while the send context's SGEs keep the DMA addresses.
 * Otherwise it goes by reference, for the first of those that failed
 * (off, chained, pages, large). sg_list and send_flags are set afresh on
 * every post: rl_wr persists between Calls.
 */
static enum rpcrdma_wqe_inline_how
rpcrdma_wqe_inline_xprt_prepare(struct rpcrdma_ep *ep, struct rpcrdma_req *req,
				const struct ib_send_wr *post_wr)
{
	struct rpcrdma_wqe_inline *wi = &ep->re_wqe_inline;
	struct rpcrdma_sendctx *sc = req->rl_sendctx;
	struct ib_send_wr *send_wr = &req->rl_wr;
	struct rpcrdma_wqe_inline_buf bufs[2];
	enum rpcrdma_wqe_inline_how how;
	int mapped;

	send_wr->sg_list = sc->sc_sges;
	send_wr->send_flags &= ~IB_SEND_INLINE;
	if (!wi->max) {
		how = RPCRDMA_WQE_INLINE_HOW_OFF;
	} else if (!rpcrdma_wqe_inline_chain_ok(post_wr, send_wr,
						wi->behind_reg)) {
		how = RPCRDMA_WQE_INLINE_HOW_CHAINED;
	} else if (sc->sc_unmap_count) {
		/* Some of the message is in pages mapped for this Send */
		how = RPCRDMA_WQE_INLINE_HOW_PAGES;
	} else {
		rpcrdma_wqe_inline_regbuf(req->rl_rdmabuf, &bufs[0]);
		rpcrdma_wqe_inline_regbuf(req->rl_sendbuf, &bufs[1]);
		mapped = rpcrdma_wqe_inline_map_sges(sc->sc_sges,
						     send_wr->num_sge,
						     bufs, ARRAY_SIZE(bufs),
						     wi->max,
						     req->rl_wqe_inline_sge,
						     min_t(u32, wi->max_sge,
							   ARRAY_SIZE(req->rl_wqe_inline_sge)));
		how = rpcrdma_wqe_inline_how_of(mapped);
	}
	if (how == RPCRDMA_WQE_INLINE_HOW_INLINE) {
		send_wr->sg_list = req->rl_wqe_inline_sge;
		send_wr->send_flags |= IB_SEND_INLINE;
	}
	return how;
}

/**
 * rpcrdma_wqe_inline_xprt_post - post a client Call, inline or by reference
 * @ep: the connection's endpoint
 * @req: the Call
 * @post_wr: the first WR of its ib_post_send(): the Send WR itself, or
 *	     the first of the REG_MR WRs that frwr_send() chained in front
 *	     of it
 *
 * Takes the place of frwr_send()'s ib_post_send(): chooses how the Call
 * goes (see rpcrdma_wqe_inline_xprt_prepare()), posts it, and counts it
 * once the post returned, without reading the request again, which its
 * completion may already have released.
 *
 * Return: what ib_post_send() returned.
 */
int rpcrdma_wqe_inline_xprt_post(struct rpcrdma_ep *ep,
				 struct rpcrdma_req *req,
				 const struct ib_send_wr *post_wr)
{
	struct rpcrdma_wqe_inline_post post;
	int ret;

	rpcrdma_wqe_inline_posting(&ep->re_wqe_inline, &req->rl_wr,
				   rpcrdma_wqe_inline_xprt_prepare(ep, req, post_wr),
				   post_wr != &req->rl_wr, &post);
	ret = ib_post_send(ep->re_id->qp, post_wr, NULL);
	rpcrdma_wqe_inline_posted(&ep->re_wqe_inline, &post, ret);
	return ret;
}
