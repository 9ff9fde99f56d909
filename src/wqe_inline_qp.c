// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: QP creation with as much inline data as the device
 * accepts.
 *
 * Only a QP creation tells how much inline data a device accepts per
 * Send WR. So QPs are created asking for inline_size bytes (or what the
 * device accepted before for this side and shape: wqe_inline_dev.c), and
 * for less after each refusal (rpcrdma_wqe_inline_retry()), once a
 * creation with no inline data has shown that the error was about the
 * size. Any other error is returned at once, as from xprtrdma's and svcrdma's
 * one rdma_create_qp() call, and nothing is remembered from that run.
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

/* One creation asking @size bytes of inline data, @attr restored first:
 * rdma_create_qp() may change it even when it fails
 */
static int rpcrdma_wqe_inline_ask(struct rpcrdma_wqe_inline *wi,
				  struct rdma_cm_id *id, struct ib_pd *pd,
				  struct ib_qp_init_attr *attr,
				  const struct ib_qp_init_attr *orig, u32 size)
{
	*attr = *orig;
	attr->cap.max_inline_data = size;
	return rpcrdma_wqe_inline_try(wi, id, pd, attr, size);
}

/* Asks for inline data from @first down while the device refuses the
 * size; on success @size is the size accepted. The first error that may
 * be a refusal is checked once by a creation with no inline data: the
 * errors drivers refuse a size with (-EINVAL, mlx5's -ENOMEM) also come
 * from ib_modify_qp() to INIT, caps out of range and firmware, and a
 * smaller size would not help those. If that creation fails too, the
 * error is returned as it is; if it succeeds, that QP is kept when
 * nothing but 0 is left to ask, else destroyed and the sizes walked.
 * Return: 0, or the error of the last attempt.
 */
static int rpcrdma_wqe_inline_negotiate(struct rpcrdma_wqe_inline *wi,
					struct rdma_cm_id *id, struct ib_pd *pd,
					struct ib_qp_init_attr *attr,
					const struct rpcrdma_wqe_inline_verdict *verdict,
					u32 first, u32 *size)
{
	const char *side = rpcrdma_wqe_inline_side_name(wi->side);
	struct ib_qp_init_attr orig = *attr;
	unsigned int nomem = 0;
	bool checked = false;
	int ret, err;
	u32 next;

	*size = first;
	for (;;) {
		ret = rpcrdma_wqe_inline_ask(wi, id, pd, attr, &orig, *size);
		if (!ret)
			return 0;
		if (!rpcrdma_wqe_inline_retry(verdict->driver, *size, ret,
					      &nomem, &next))
			break;
		if (!checked) {
			err = ret;
			ret = rpcrdma_wqe_inline_ask(wi, id, pd, attr, &orig, 0);
			if (ret) {
				pr_warn_ratelimited("%s: %s QP creation failed asking %u bytes of inline data (error %d) and also asking none (error %d): not a refusal of the size, so not retried smaller\n",
						    dev_name(&id->device->dev),
						    side, *size, err, ret);
				return ret;
			}
			checked = true;
			if (!next) {
				*size = 0;
				return 0;
			}
			rdma_destroy_qp(id);
		}
		*size = next;
	}
	if (!*size)
		/* Refused without inline data, once accepted: the connection fails */
		pr_warn_ratelimited("%s: %s QP creation failed at every inline data size from %u bytes down to 0 (%u attempts): error %d\n",
				    dev_name(&id->device->dev), side, first,
				    wi->attempts, ret);
	else
		pr_warn_ratelimited("%s: %s QP creation failed asking %u bytes of inline data (attempt %u): error %d, not a refusal of the size, so not retried smaller\n",
				    dev_name(&id->device->dev), side, *size,
				    wi->attempts, ret);
	return ret;
}

/* A driver may make room for inline data by growing the send WQE, and
 * report that room back as more send SGEs (rxe: max(SGEs * 16, inline
 * bytes) / 16, so svcrdma's 5 become 16 at 256 bytes). ib_create_qp()
 * takes the number written back as the QP's max_write_sge and
 * max_read_sge, and rdma_rw would then build svcrdma's chunk RDMA Writes
 * and Reads in larger WRs than without inline data: on rxe, fewer
 * acknowledged points in each Write chunk, and more of them ending in
 * the retry limit on a lossy wire. Keep all three at what the ULP asked.
 */
static void rpcrdma_wqe_inline_keep_sges(struct ib_qp *qp,
					 struct ib_qp_init_attr *attr,
					 u32 asked)
{
	qp->max_write_sge = min(qp->max_write_sge, asked);
	qp->max_read_sge = min(qp->max_read_sge, asked);
	attr->cap.max_send_sge = min(attr->cap.max_send_sge, asked);
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
 * (-EMSGSIZE: svc_rdma_accept() then rejects it, and the client's mount
 * fails) while inline data is asked for; with inline_size=0 it is
 * accepted as the stock module does. Logged either way.
 */
static int rpcrdma_wqe_inline_check_path(struct rdma_cm_id *id, u32 want)
{
	int port_mtu = rpcrdma_wqe_inline_path_mtu_over(id);

	if (!port_mtu)
		return 0;
	pr_warn_ratelimited("%s: %pISpc asks a path MTU of %d bytes, more than this port's active MTU of %d bytes (its netdev's): RDMA packets that long cannot leave this host, %s. Give both NICs the same MTU\n",
			    dev_name(&id->device->dev), &id->route.addr.dst_addr,
			    ib_mtu_enum_to_int(id->route.path_rec->mtu), port_mtu,
			    want ? "so the connection is refused" :
			    "yet it is accepted (inline_size=0: as the stock module does) and will stall at its first longer packet");
	return want ? -EMSGSIZE : 0;
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
 * on the device's driver (rpcrdma_wqe_inline_decide()), asks for the
 * configured inline size, or the driver's known limits below it, and
 * steps down after each refusal (-EINVAL, or mlx5's -ENOMEM, bounded:
 * rpcrdma_wqe_inline_retry()), restoring all of @attr before every
 * attempt (rdma_create_qp() may change it even when it fails). The first
 * such error is a refusal only if a creation with no inline data then
 * succeeds; if that fails too, its error is returned and nothing is
 * remembered. Any other error is returned at once. With nothing to ask for (inline_size=0, the
 * side switched off, or the driver off), it is exactly one
 * rdma_create_qp() call with @attr as given. On success @attr holds what
 * the device wrote back, as after rdma_create_qp(), except that a QP
 * with inline data keeps the send SGEs asked (the QP's read and write SGE
 * limits too, see rpcrdma_wqe_inline_keep_sges()), and @wi is listed in
 * debugfs. On the server, a RoCE connection whose path MTU is larger than
 * the port's active MTU is refused before any creation while the server
 * asks for inline data, and only logged with inline_size=0
 * (rpcrdma_wqe_inline_check_path()).
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
	struct rpcrdma_wqe_inline_memo memo;
	bool negotiated;
	u32 first = 0, size;
	int ret;

	if (side == RPCRDMA_WQE_INLINE_SERVER) {
		ret = rpcrdma_wqe_inline_check_path(id, want);
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
		first = rpcrdma_wqe_inline_first_size(verdict.driver, want,
						      &memo);
		ret = rpcrdma_wqe_inline_negotiate(wi, id, pd, attr, &verdict,
						   first, &size);
	}
	if (ret) {
		rpcrdma_wqe_inline_counters_free(wi);
		return ret;
	}

	if (negotiated && size)
		rpcrdma_wqe_inline_keep_sges(id->qp, attr, key.max_send_sge);
	wi->asked = size;
	wi->reported = attr->cap.max_inline_data;
	/* What the verdict gives the connection: set here only */
	wi->max = negotiated ?
		rpcrdma_wqe_inline_usable(verdict.driver, size, wi->reported) : 0;
	wi->no_inv = verdict.driver && verdict.driver->no_inv;
	wi->behind_reg = verdict.behind_reg;

	if (negotiated) {
		/* Refused at every size above 0: every Send by reference */
		if (!size && wi->attempts > 1)
			pr_info_ratelimited("%s: %s QP created without inline data: the device refused every size from %u bytes down (%u attempts)\n",
					    dev_name(&id->device->dev),
					    rpcrdma_wqe_inline_side_name(side),
					    first, wi->attempts);
		/* Every failure of this run was a refusal (else it returned) */
		rpcrdma_wqe_inline_memo_set(id->device, &key, want, size,
					    wi->reported);
	}

	memcpy(&wi->peer, &id->route.addr.dst_addr, sizeof(wi->peer));
	strscpy(wi->device, dev_name(&id->device->dev), sizeof(wi->device));
	trace_rpcrdma_wqe_inline_granted(wi);
	rpcrdma_wqe_inline_conn_add(wi);
	return 0;
}
