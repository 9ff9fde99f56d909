// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline, server side: post small svcrdma Sends inline.
 */

#include <linux/sunrpc/svc_rdma.h>

#include "rpcrdma_wqe_inline.h"

/* A Reply is pulled up into one SGE only below this size */
static_assert(RPCRDMA_WQE_INLINE_SERVER_MAX + 1 == RPCRDMA_PULLUP_THRESH);

/* The eligibility rule on a Reply: its SGEs in the header buffer @buf,
 * no more of them than the QP grants
 */
static int rpcrdma_wqe_inline_svc_map(struct svc_rdma_send_ctxt *ctxt,
				      const struct rpcrdma_wqe_inline_buf *buf,
				      const struct rpcrdma_wqe_inline *wi)
{
	return rpcrdma_wqe_inline_map_sges(ctxt->sc_sges,
					   ctxt->sc_send_wr.num_sge, buf, 1,
					   wi->max, &ctxt->sc_wqe_inline_sge,
					   min(1U, wi->max_sge));
}

/*
 * How a server Send is posted. The Send goes inline when the connection
 * has inline data (for Send With Invalidate too, unless the driver
 * cannot inline it: siw), it is @alone (a Reply behind its own chunk
 * data goes by reference: the design found no gain there), the whole
 * message was pulled up into the transport header buffer (below 512
 * bytes), and it fits in what the QP was granted: its one SGE lies in
 * that buffer as mapped when the context was made (the DMA address
 * recorded then, not read back from the SGE), and the inline SGE then
 * carries the buffer's kernel virtual address. Otherwise it goes by
 * reference, for the first of those that failed (off, chunks, unpulled,
 * large, sge). sg_list and send_flags are set afresh on every post: the
 * context is reused.
 */
static enum rpcrdma_wqe_inline_how
rpcrdma_wqe_inline_svc_prepare(struct svcxprt_rdma *rdma,
			       struct svc_rdma_send_ctxt *ctxt, bool alone)
{
	struct rpcrdma_wqe_inline *wi = &rdma->sc_wqe_inline;
	struct ib_send_wr *send_wr = &ctxt->sc_send_wr;
	const struct rpcrdma_wqe_inline_buf buf = {
		.dma	= ctxt->sc_wqe_inline_dma,
		.va	= ctxt->sc_xprt_buf,
		.len	= rdma->sc_max_req_size,
	};
	enum rpcrdma_wqe_inline_how how;

	send_wr->sg_list = ctxt->sc_sges;
	send_wr->send_flags &= ~IB_SEND_INLINE;
	if (!wi->max || (send_wr->opcode != IB_WR_SEND && wi->no_inv))
		how = RPCRDMA_WQE_INLINE_HOW_OFF;
	else if (!alone)
		how = RPCRDMA_WQE_INLINE_HOW_CHUNKS;
	else if (send_wr->num_sge > 1)
		how = RPCRDMA_WQE_INLINE_HOW_UNPULLED;
	else
		how = rpcrdma_wqe_inline_how_of(rpcrdma_wqe_inline_svc_map(ctxt, &buf,
									   wi));
	if (how == RPCRDMA_WQE_INLINE_HOW_INLINE) {
		send_wr->sg_list = &ctxt->sc_wqe_inline_sge;
		send_wr->send_flags |= IB_SEND_INLINE;
	}
	return how;
}

/**
 * rpcrdma_wqe_inline_svc_post - post a server Send, inline or by reference
 * @rdma: the connection
 * @ctxt: the send context, after the transport header buffer was synced
 *	  through ctxt->sc_sges[0]
 * @alone: the Send WR is the only WR of its ib_post_send(), and no
 *	   chunk data was written for this Reply before it
 * @first_wr: the first WR of the post: the Send WR, or the chunk
 *	      RDMA Writes chained in front of it
 * @bad_wr: as for ib_post_send()
 *
 * Takes the place of svcrdma's ib_post_send() of a send context: chooses
 * how the Send goes (see rpcrdma_wqe_inline_svc_prepare()), posts it,
 * and counts it once the post returned, without reading the context
 * again, which its completion may already have released.
 *
 * Return: what ib_post_send() returned.
 */
int rpcrdma_wqe_inline_svc_post(struct svcxprt_rdma *rdma,
				struct svc_rdma_send_ctxt *ctxt, bool alone,
				const struct ib_send_wr *first_wr,
				const struct ib_send_wr **bad_wr)
{
	struct rpcrdma_wqe_inline_post post;
	int ret;

	rpcrdma_wqe_inline_posting(&rdma->sc_wqe_inline, &ctxt->sc_send_wr,
				   rpcrdma_wqe_inline_svc_prepare(rdma, ctxt, alone),
				   !alone, &post);
	ret = ib_post_send(rdma->sc_qp, first_wr, bad_wr);
	rpcrdma_wqe_inline_posted(&rdma->sc_wqe_inline, &post, ret);
	return ret;
}

/**
 * rpcrdma_wqe_inline_svc_chunks - whether RDMA Writes carried Reply data
 * @rctxt: the Call's receive context, with its Write list and Reply chunk
 *
 * For kernels that post chunk RDMA Writes in their own ib_post_send()
 * ahead of the Send (6.1): such a Reply is posted by reference, as
 * later kernels do when the Writes precede the Send in one WR chain.
 *
 * Return: true when a Reply chunk or a Write chunk with payload was used.
 */
bool rpcrdma_wqe_inline_svc_chunks(const struct svc_rdma_recv_ctxt *rctxt)
{
	const struct svc_rdma_chunk *chunk;

	if (!pcl_is_empty(&rctxt->rc_reply_pcl))
		return true;
	pcl_for_each_chunk(chunk, &rctxt->rc_write_pcl)
		if (chunk->ch_payload_length)
			return true;
	return false;
}
