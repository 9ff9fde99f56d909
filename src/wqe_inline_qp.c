// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: QP creation with as much inline data as the device
 * accepts, and never less of anything else than the stock module gets.
 *
 * Only a QP creation tells how much inline data a device accepts per
 * Send WR, and what else it grants with it. The first connection of a
 * side and QP shape on a device creates its QP asking for no inline
 * data, as the stock module does, and remembers what the device wrote
 * back: the send WRs and SGEs, and the RDMA Read and Write SGEs derived
 * from them, that a QP of ours keeps at least (and, where the send
 * WQE grows with inline data, at most: rpcrdma_wqe_inline_keep_caps()).
 * Then it asks for inline_size bytes (or what the device accepted before
 * for this side and shape: wqe_inline_dev.c), and for less after each
 * refusal (rpcrdma_wqe_inline_retry()). The steps are
 * rpcrdma_wqe_inline_neg_step()'s (wqe_inline_sizes.c, unit-tested).
 * An error that is no refusal fails the creation as it would fail
 * xprtrdma's and svcrdma's one rdma_create_qp() call, unless a QP
 * without inline data was made in this negotiation: then the connection
 * gets one. Nothing is remembered from such a run.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/string.h>

#include "rpcrdma_wqe_inline_core.h"
#include "rpcrdma_wqe_inline_trace.h"

static int rpcrdma_wqe_inline_try(struct rpcrdma_wqe_inline *wi,
				  struct rdma_cm_id *id, struct ib_pd *pd,
				  struct ib_qp_init_attr *attr, u32 asked)
{
	int ret;

	ret = rdma_create_qp(id, pd, attr);
	trace_rpcrdma_wqe_inline_create_qp(id->device, wi->side,
					   ++wi->attempts, asked, ret);
	return ret;
}

/* What a successful creation wrote back: @attr's caps, and the RDMA
 * Write and Read SGEs that ib_create_qp_kernel() derived from them
 */
static void rpcrdma_wqe_inline_got(const struct ib_qp *qp,
				   const struct ib_qp_init_attr *attr,
				   struct rpcrdma_wqe_inline_caps *got)
{
	got->max_send_wr = attr->cap.max_send_wr;
	got->max_send_sge = attr->cap.max_send_sge;
	got->max_write_sge = qp->max_write_sge;
	got->max_read_sge = qp->max_read_sge;
	got->max_inline_data = attr->cap.max_inline_data;
}

/* Creations from @n's first ask until one is kept
 * (rpcrdma_wqe_inline_neg_step()), all of @attr restored before every
 * attempt: rdma_create_qp() may change it even when it fails
 * (rdma_rw_init_qp() grows max_send_wr), and drivers write their caps
 * back.
 * Return: 0, or the error of the last attempt.
 */
static int rpcrdma_wqe_inline_negotiate(struct rpcrdma_wqe_inline *wi,
					struct rdma_cm_id *id, struct ib_pd *pd,
					struct ib_qp_init_attr *attr,
					struct rpcrdma_wqe_inline_neg *n)
{
	const char *dev = dev_name(&id->device->dev);
	const char *side = rpcrdma_wqe_inline_side_name(wi->side);
	struct ib_qp_init_attr orig = *attr;
	struct rpcrdma_wqe_inline_caps got = {};
	enum rpcrdma_wqe_inline_act act;
	u32 size;
	int ret;

	for (;;) {
		size = n->size;
		*attr = orig;
		attr->cap.max_inline_data = size;
		if (size)
			attr->cap.max_send_wr += n->extra_wr;
		ret = rpcrdma_wqe_inline_try(wi, id, pd, attr, size);
		if (!ret)
			rpcrdma_wqe_inline_got(id->qp, attr, &got);
		act = rpcrdma_wqe_inline_neg_step(n, ret, &got);
		if (act == RPCRDMA_WQE_INLINE_KEEP)
			return 0;
		if (act == RPCRDMA_WQE_INLINE_FAIL)
			break;
		if (!ret)
			rdma_destroy_qp(id);
		if (n->err && !n->size)
			pr_warn_ratelimited("%s: %s QP creation failed asking %u bytes of inline data (attempt %u): error %d, not a refusal of the size; one without inline data was made before, so the connection gets one\n",
					    dev, side, size, wi->attempts,
					    n->err);
		else if (!ret && size && !n->size)
			pr_warn_ratelimited("%s: %s QP with %u bytes of inline data got fewer send WRs or SGEs than without (%u/%u/%u/%u against %u/%u/%u/%u: WRs, send, Write, Read SGEs): made again without inline data\n",
					    dev, side, size, got.max_send_wr,
					    got.max_send_sge, got.max_write_sge,
					    got.max_read_sge, n->zero.max_send_wr,
					    n->zero.max_send_sge,
					    n->zero.max_write_sge,
					    n->zero.max_read_sge);
	}
	if (!size && n->check_err && !n->zero_made)
		pr_warn_ratelimited("%s: %s QP creation failed asking %u bytes of inline data (error %d) and also asking none (error %d): not a refusal of the size, so not retried smaller\n",
				    dev, side, n->check_size, n->check_err, ret);
	else if (!size)
		pr_warn_ratelimited("%s: %s QP creation failed asking no inline data, as the stock module's would (attempt %u): error %d\n",
				    dev, side, wi->attempts, ret);
	else
		pr_warn_ratelimited("%s: %s QP creation failed asking %u bytes of inline data (attempt %u): error %d, not a refusal of the size, so not retried smaller\n",
				    dev, side, size, wi->attempts, ret);
	return ret;
}

/* A RoCE server's QP takes its path MTU from the client's CM REQ
 * (cm_req_handler()), and the client took it from its own netdev
 * (cma_resolve_iboe_route(): iboe_get_mtu()). Nothing lowers it to this
 * port's MTU: rxe checks a path MTU against the port's max_mtu, not its
 * active_mtu (rxe_qp_chk_attr()), and sends with IP_DF (prepare4()), so
 * every packet longer than this host's netdev MTU is dropped before it
 * leaves, and the RC QP resends it until the connection ends, again after
 * every reconnect: an NFS mount that stalls for good at its first
 * transfer of more than one packet.
 * Return: this port's active MTU in bytes when @id's path MTU is larger,
 * else 0.
 */
static int rpcrdma_wqe_inline_path_mtu_over(struct rdma_cm_id *id)
{
	struct ib_port_attr port;

	if (!id->route.path_rec ||
	    !rdma_protocol_roce(id->device, id->port_num) ||
	    ib_query_port(id->device, id->port_num, &port) ||
	    id->route.path_rec->mtu <= port.active_mtu)
		return 0;
	return ib_mtu_enum_to_int(port.active_mtu);
}

/* A server connection whose path MTU this port cannot send is refused
 * on rxe, whatever inline_size is (-EMSGSIZE: svc_rdma_accept() then
 * rejects it, and the client's mount fails at once): there the stall
 * was traced. Elsewhere it is only logged, and accepted as the stock
 * module accepts it: mlx5 checks a path MTU only against 256..4096 and
 * hands it to its firmware (__mlx5_ib_modify_qp(), qp.c), and no other
 * driver's source read shows what its hardware does with one above the
 * port's active MTU.
 */
static int rpcrdma_wqe_inline_check_path(struct rdma_cm_id *id)
{
	int port_mtu = rpcrdma_wqe_inline_path_mtu_over(id);
	bool refuse = id->device->ops.driver_id == RDMA_DRIVER_RXE;
	const char *what;

	if (!port_mtu)
		return 0;
	if (refuse)
		what = "RDMA packets that long cannot leave, so the connection is refused";
	else
		what = "yet it is accepted, as by the stock module; longer packets may not arrive";
	pr_warn_ratelimited("%s: %pISpc asks a path MTU of %d bytes, more than this port's active MTU of %d bytes (its netdev's): %s. Give both NICs the same MTU\n",
			    dev_name(&id->device->dev), &id->route.addr.dst_addr,
			    ib_mtu_enum_to_int(id->route.path_rec->mtu), port_mtu,
			    what);
	return refuse ? -EMSGSIZE : 0;
}

/**
 * rpcrdma_wqe_inline_create_qp - create a QP with as much inline data as allowed
 * @wi: the connection's inline state, zeroed
 * @id: the connection's CM ID
 * @pd: protection domain for the QP
 * @attr: QP attributes as rdma_create_qp() takes them
 * @side: server or client
 *
 * Stands in for rdma_create_qp(). Where the policy allows inline data
 * on the device's driver (rpcrdma_wqe_inline_decide()), negotiates the
 * inline size (rpcrdma_wqe_inline_neg_step()): once per device, side
 * and QP shape a creation with no inline data, to learn what the stock
 * module's QP gets; then the configured inline size, or the driver's
 * known limits below it, stepping down after each refusal (-EINVAL, or
 * mlx5's -ENOMEM, bounded: rpcrdma_wqe_inline_retry()), with all of
 * @attr restored before every attempt. An error that is no refusal is
 * returned, unless a QP without inline data was made in this
 * negotiation: then the connection gets one. With nothing to ask for
 * (inline_size=0, the side switched off, or the driver off), it is
 * exactly one rdma_create_qp() call with @attr as given. On success
 * @attr holds what the device wrote back, as after rdma_create_qp(),
 * except that a QP with inline data keeps the send SGEs, and the QP the
 * RDMA Write and Read SGEs, that the shape gets with none
 * (rpcrdma_wqe_inline_keep_caps()); and @wi is listed in debugfs. On
 * the server, a RoCE connection whose path MTU is larger than the
 * port's active MTU is refused before any creation on rxe, and only
 * logged elsewhere (rpcrdma_wqe_inline_check_path()).
 *
 * Return: 0, -EMSGSIZE for a path MTU refused, or the error of the last
 * attempt (logged, rate-limited, when sizes were negotiated).
 */
int rpcrdma_wqe_inline_create_qp(struct rpcrdma_wqe_inline *wi,
				 struct rdma_cm_id *id, struct ib_pd *pd,
				 struct ib_qp_init_attr *attr,
				 enum rpcrdma_wqe_inline_side side)
{
	u32 want = rpcrdma_wqe_inline_want(side);
	struct rpcrdma_wqe_inline_verdict verdict;
	struct rpcrdma_wqe_inline_memo_key key = {};
	struct rpcrdma_wqe_inline_caps got, keep;
	struct rpcrdma_wqe_inline_memo memo;
	struct rpcrdma_wqe_inline_neg n;
	bool negotiated;
	u32 size;
	int ret;

	if (side == RPCRDMA_WQE_INLINE_SERVER) {
		ret = rpcrdma_wqe_inline_check_path(id);
		if (ret)
			return ret;
	}

	wi->side = side;
	wi->attempts = 0;
	rpcrdma_wqe_inline_decide_id(id->device->ops.driver_id, &verdict);
	rpcrdma_wqe_inline_counters_alloc(wi, side == RPCRDMA_WQE_INLINE_CLIENT ?
					  RPCRDMA_WQE_INLINE_CONNECT_GFP :
					  GFP_KERNEL);
	negotiated = want && verdict.on;
	if (!negotiated) {
		size = attr->cap.max_inline_data;
		ret = rpcrdma_wqe_inline_try(wi, id, pd, attr, size);
	} else {
		/* The shape as asked, before drivers write theirs back */
		key = (struct rpcrdma_wqe_inline_memo_key){
			.side		= side,
			.max_send_wr	= attr->cap.max_send_wr,
			.max_send_sge	= attr->cap.max_send_sge,
			.max_rdma_ctxs	= attr->cap.max_rdma_ctxs,
		};
		rpcrdma_wqe_inline_memo_get(id->device, &key, &memo);
		rpcrdma_wqe_inline_neg_start(&n, verdict.driver, want, &memo);
		ret = rpcrdma_wqe_inline_negotiate(wi, id, pd, attr, &n);
		size = n.size;
	}
	if (ret) {
		rpcrdma_wqe_inline_counters_free(wi);
		return ret;
	}

	wi->asked = size;
	wi->reported = attr->cap.max_inline_data;
	wi->max_sge = attr->cap.max_send_sge;
	if (negotiated && size) {
		rpcrdma_wqe_inline_got(id->qp, attr, &got);
		rpcrdma_wqe_inline_keep_caps(&n.zero, &got, &keep);
		attr->cap.max_send_sge = keep.max_send_sge;
		id->qp->max_write_sge = keep.max_write_sge;
		id->qp->max_read_sge = keep.max_read_sge;
		wi->max_sge = keep.max_send_sge;
	}
	/* What the verdict gives the connection: set here only */
	wi->max = negotiated ?
		rpcrdma_wqe_inline_usable(verdict.driver, want, size,
					  wi->reported) : 0;
	wi->no_inv = verdict.driver && verdict.driver->no_inv;
	wi->behind_reg = verdict.behind_reg;

	if (negotiated) {
		/* Refused at every size above 0: every Send by reference */
		if (!size && !wi->max && n.first && n.refusals_only &&
		    !n.short_caps)
			pr_info_ratelimited("%s: %s QP created without inline data: the device refused every size from %u bytes down (%u attempts)\n",
					    dev_name(&id->device->dev),
					    rpcrdma_wqe_inline_side_name(side),
					    n.first, wi->attempts);
		/* Only from a run whose failures were all refusals */
		if (n.refusals_only)
			rpcrdma_wqe_inline_memo_set(id->device, &key, want,
						    size, wi->reported,
						    &n.zero,
						    size ? n.extra_wr : 0);
	}

	memcpy(&wi->peer, &id->route.addr.dst_addr, sizeof(wi->peer));
	strscpy(wi->device, dev_name(&id->device->dev), sizeof(wi->device));
	trace_rpcrdma_wqe_inline_granted(wi);
	rpcrdma_wqe_inline_conn_add(wi);
	return 0;
}
