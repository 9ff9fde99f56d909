/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rpcrdma-inline: small RPC-over-RDMA Sends posted with IB_SEND_INLINE.
 *
 * The hooks in net/sunrpc/xprtrdma call only what this header declares.
 * "WQE inline" names the verbs feature (inline data in the send work
 * queue entry), not the RPC-over-RDMA inline threshold.
 */
#ifndef _RPCRDMA_WQE_INLINE_H
#define _RPCRDMA_WQE_INLINE_H

#include <linux/percpu.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "rpcrdma_wqe_inline_policy.h"

struct svcxprt_rdma;
struct svc_rdma_send_ctxt;
struct svc_rdma_recv_ctxt;
struct rpcrdma_ep;
struct rpcrdma_req;
struct rpcrdma_wqe_inline_sends;

/**
 * enum rpcrdma_wqe_inline_side - which half of rpcrdma owns a connection
 * @RPCRDMA_WQE_INLINE_SERVER: svcrdma, posting Replies
 * @RPCRDMA_WQE_INLINE_CLIENT: xprtrdma, posting Calls
 */
enum rpcrdma_wqe_inline_side {
	RPCRDMA_WQE_INLINE_SERVER,
	RPCRDMA_WQE_INLINE_CLIENT,
};

#define RPCRDMA_WQE_INLINE_SIDES	2

/**
 * struct rpcrdma_wqe_inline_counts - one CPU's counts of a connection's Sends
 * @n: Sends posted, by how (inline, or why by reference)
 *
 * Allocated for every possible CPU, so it is kept small: 64 bytes, 16 KiB
 * a connection on a machine of 256 possible CPUs. Sizes are counted per
 * side, for all connections at once (wqe_inline_counters.c).
 */
struct rpcrdma_wqe_inline_counts {
	unsigned long	n[RPCRDMA_WQE_INLINE_HOW_NR];
};

/**
 * struct rpcrdma_wqe_inline - inline state of one connection's QP
 * @node: entry in the list shown in debugfs; unhashed until the QP exists
 * @peer: the remote address when the QP was created
 * @device: the RDMA device's name when the QP was created
 * @side: server or client
 * @asked: max_inline_data of the successful QP creation
 * @reported: max_inline_data the device wrote back
 * @max: bytes a Send may carry inline on this QP
 * @max_sge: SGEs a Send may have on this QP (what its creation granted,
 *	     at most what the shape gets without inline data)
 * @attempts: QP creations it took
 * @no_inv: only plain Sends may go inline, not Send With Invalidate
 * @behind_reg: a Send behind IB_WR_REG_MR WRs in its post may go inline
 * @sends: Sends posted, per CPU, by how (inline, or why by reference):
 *	one per-CPU increment per Send, summed when read; NULL when they
 *	could not be allocated (then not counted)
 * @sends_ref: what owns @sends: the connection and each debugfs reader
 *	summing them hold a reference, so that a reader sums them without
 *	the connections lock, and the last one frees them
 *
 * Embedded, zeroed, in struct svcxprt_rdma and struct rpcrdma_ep. What
 * the post path reads comes first, in one cache line: hook 02 places the
 * struct between svcrdma's sc_snd_w_inv and sc_sq_avail, and the cold
 * part (the peer and device name, copied so that debugfs never follows
 * a cm_id that may be going away) only moves sc_sq_avail's group down.
 */
struct rpcrdma_wqe_inline {
	/* read on every Send: first, beside the transport's own fields */
	u32			max;
	u32			max_sge;
	bool			no_inv;
	bool			behind_reg;
	struct rpcrdma_wqe_inline_counts __percpu *sends;

	/* read at connection setup, release and by debugfs only */
	enum rpcrdma_wqe_inline_side side;
	u32			asked;
	u32			reported;
	u32			attempts;
	struct rpcrdma_wqe_inline_sends *sends_ref;
	struct hlist_node	node;
	struct sockaddr_storage	peer;
	char			device[IB_DEVICE_NAME_MAX];
};

int rpcrdma_wqe_inline_init(void);
void rpcrdma_wqe_inline_exit(void);

int rpcrdma_wqe_inline_create_qp(struct rpcrdma_wqe_inline *wi,
				 struct rdma_cm_id *id, struct ib_pd *pd,
				 struct ib_qp_init_attr *attr,
				 enum rpcrdma_wqe_inline_side side);
void rpcrdma_wqe_inline_release(struct rpcrdma_wqe_inline *wi);

/**
 * struct rpcrdma_wqe_inline_post - a Send WR's count, until its post returns
 * @how: inline, or why by reference
 * @class: the size class of its message
 *
 * Taken from the WR before ib_post_send(), which may complete it (and
 * let its context be reused) before it returns.
 */
struct rpcrdma_wqe_inline_post {
	enum rpcrdma_wqe_inline_how	how;
	unsigned int			class;
};

void rpcrdma_wqe_inline_posting(struct rpcrdma_wqe_inline *wi,
				const struct ib_send_wr *send_wr,
				enum rpcrdma_wqe_inline_how how, bool behind,
				struct rpcrdma_wqe_inline_post *post);
void rpcrdma_wqe_inline_posted(struct rpcrdma_wqe_inline *wi,
			       const struct rpcrdma_wqe_inline_post *post,
			       int ret);

int rpcrdma_wqe_inline_svc_post(struct svcxprt_rdma *rdma,
				struct svc_rdma_send_ctxt *ctxt, bool alone,
				const struct ib_send_wr *first_wr,
				const struct ib_send_wr **bad_wr);
bool rpcrdma_wqe_inline_svc_chunks(const struct svc_rdma_recv_ctxt *rctxt);
int rpcrdma_wqe_inline_xprt_post(struct rpcrdma_ep *ep,
				 struct rpcrdma_req *req,
				 const struct ib_send_wr *post_wr);

#endif /* _RPCRDMA_WQE_INLINE_H */
