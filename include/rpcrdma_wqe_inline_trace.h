/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rpcrdma-inline tracepoints: events/rpcrdma_inline/ in tracefs.
 * One event per QP creation attempt, per granted QP, per Send posted
 * (with whether other work went ahead of it: REG_MRs, chunk data), per
 * Send whose post failed, per connection released, and per device
 * forgotten.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rpcrdma_inline

#if !defined(_RPCRDMA_WQE_INLINE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RPCRDMA_WQE_INLINE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include "rpcrdma_wqe_inline.h"

#define show_wqe_inline_side(side)					\
	__print_symbolic(side,						\
			 { RPCRDMA_WQE_INLINE_SERVER, "server" },	\
			 { RPCRDMA_WQE_INLINE_CLIENT, "client" })

TRACE_DEFINE_ENUM(RPCRDMA_WQE_INLINE_HOW_INLINE);
TRACE_DEFINE_ENUM(RPCRDMA_WQE_INLINE_HOW_OFF);
TRACE_DEFINE_ENUM(RPCRDMA_WQE_INLINE_HOW_CHUNKS);
TRACE_DEFINE_ENUM(RPCRDMA_WQE_INLINE_HOW_CHAINED);
TRACE_DEFINE_ENUM(RPCRDMA_WQE_INLINE_HOW_PAGES);
TRACE_DEFINE_ENUM(RPCRDMA_WQE_INLINE_HOW_UNPULLED);
TRACE_DEFINE_ENUM(RPCRDMA_WQE_INLINE_HOW_LARGE);
TRACE_DEFINE_ENUM(RPCRDMA_WQE_INLINE_HOW_SGE);

#define show_wqe_inline_how(how)					\
	__print_symbolic(how,						\
			 { RPCRDMA_WQE_INLINE_HOW_INLINE, "inline" },	\
			 { RPCRDMA_WQE_INLINE_HOW_OFF, "off" },		\
			 { RPCRDMA_WQE_INLINE_HOW_CHUNKS, "chunks" },	\
			 { RPCRDMA_WQE_INLINE_HOW_CHAINED, "chained" },	\
			 { RPCRDMA_WQE_INLINE_HOW_PAGES, "pages" },	\
			 { RPCRDMA_WQE_INLINE_HOW_UNPULLED, "unpulled" },	\
			 { RPCRDMA_WQE_INLINE_HOW_LARGE, "large" },	\
			 { RPCRDMA_WQE_INLINE_HOW_SGE, "sge" })

TRACE_EVENT(rpcrdma_wqe_inline_create_qp,
	    TP_PROTO(const struct ib_device *device,
		     enum rpcrdma_wqe_inline_side side,
		     u32 attempt, u32 asked, int ret),
	    TP_ARGS(device, side, attempt, asked, ret),
	    TP_STRUCT__entry(__array(char, device, IB_DEVICE_NAME_MAX)
			     __field(u32, driver_id)
			     __field(int, side)
			     __field(u32, attempt)
			     __field(u32, asked)
			     __field(int, ret)),
	    TP_fast_assign(strscpy(__entry->device, dev_name(&device->dev),
				   IB_DEVICE_NAME_MAX);
			   __entry->driver_id = device->ops.driver_id;
			   __entry->side = side;
			   __entry->attempt = attempt;
			   __entry->asked = asked;
			   __entry->ret = ret;),
	    TP_printk("device=%s driver_id=%u side=%s attempt=%u asked=%u ret=%d",
		      __entry->device, __entry->driver_id,
		      show_wqe_inline_side(__entry->side),
		      __entry->attempt, __entry->asked, __entry->ret)
);

TRACE_EVENT(rpcrdma_wqe_inline_granted,
	    TP_PROTO(const struct rpcrdma_wqe_inline *wi),
	    TP_ARGS(wi),
	    TP_STRUCT__entry(__array(char, device, IB_DEVICE_NAME_MAX)
			     __array(u8, peer, sizeof(struct sockaddr_in6))
			     __field(int, side)
			     __field(u32, asked)
			     __field(u32, reported)
			     __field(u32, max)
			     __field(u32, attempts)),
	    TP_fast_assign(memcpy(__entry->device, wi->device, IB_DEVICE_NAME_MAX);
			   memcpy(__entry->peer, &wi->peer,
				  sizeof(struct sockaddr_in6));
			   __entry->side = wi->side;
			   __entry->asked = wi->asked;
			   __entry->reported = wi->reported;
			   __entry->max = wi->max;
			   __entry->attempts = wi->attempts;),
	    TP_printk("device=%s side=%s peer=%pISpc asked=%u granted=%u max=%u attempts=%u",
		      __entry->device, show_wqe_inline_side(__entry->side),
		      __entry->peer, __entry->asked, __entry->reported,
		      __entry->max, __entry->attempts)
);

TRACE_EVENT(rpcrdma_wqe_inline_post,
	    TP_PROTO(const struct rpcrdma_wqe_inline *wi,
		     const struct ib_send_wr *send_wr,
		     enum rpcrdma_wqe_inline_how how, u32 len, bool behind),
	    TP_ARGS(wi, send_wr, how, len, behind),
	    TP_STRUCT__entry(__field(const void *, wi)
			     __field(int, side)
			     __field(bool, inlined)
			     __field(bool, behind)
			     __field(int, how)
			     __field(int, num_sge)
			     __field(u32, len)),
	    TP_fast_assign(__entry->wi = wi;
			   __entry->side = wi->side;
			   __entry->inlined = send_wr->send_flags & IB_SEND_INLINE;
			   __entry->behind = behind;
			   __entry->how = how;
			   __entry->num_sge = send_wr->num_sge;
			   __entry->len = len;),
	    TP_printk("conn=%p side=%s %s how=%s num_sge=%d len=%u behind=%d",
		      __entry->wi, show_wqe_inline_side(__entry->side),
		      __entry->inlined ? "inline" : "byref",
		      show_wqe_inline_how(__entry->how),
		      __entry->num_sge, __entry->len, __entry->behind)
);

TRACE_EVENT(rpcrdma_wqe_inline_post_err,
	    TP_PROTO(const struct rpcrdma_wqe_inline *wi,
		     enum rpcrdma_wqe_inline_how how, int ret),
	    TP_ARGS(wi, how, ret),
	    TP_STRUCT__entry(__field(const void *, wi)
			     __field(int, side)
			     __field(int, how)
			     __field(int, ret)),
	    TP_fast_assign(__entry->wi = wi;
			   __entry->side = wi->side;
			   __entry->how = how;
			   __entry->ret = ret;),
	    TP_printk("conn=%p side=%s how=%s ret=%d",
		      __entry->wi, show_wqe_inline_side(__entry->side),
		      show_wqe_inline_how(__entry->how), __entry->ret)
);

TRACE_EVENT(rpcrdma_wqe_inline_release,
	    TP_PROTO(const struct rpcrdma_wqe_inline *wi, long n_inline,
		     long n_byref),
	    TP_ARGS(wi, n_inline, n_byref),
	    TP_STRUCT__entry(__array(char, device, IB_DEVICE_NAME_MAX)
			     __field(int, side)
			     __field(long, n_inline)
			     __field(long, n_byref)),
	    TP_fast_assign(memcpy(__entry->device, wi->device, IB_DEVICE_NAME_MAX);
			   __entry->side = wi->side;
			   __entry->n_inline = n_inline;
			   __entry->n_byref = n_byref;),
	    TP_printk("device=%s side=%s inline=%ld byref=%ld",
		      __entry->device, show_wqe_inline_side(__entry->side),
		      __entry->n_inline, __entry->n_byref)
);

TRACE_EVENT(rpcrdma_wqe_inline_forget,
	    TP_PROTO(const struct ib_device *device),
	    TP_ARGS(device),
	    TP_STRUCT__entry(__array(char, device, IB_DEVICE_NAME_MAX)),
	    TP_fast_assign(strscpy(__entry->device, dev_name(&device->dev),
				   IB_DEVICE_NAME_MAX);),
	    TP_printk("device=%s",
		      __entry->device)
);

#endif /* _RPCRDMA_WQE_INLINE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE rpcrdma_wqe_inline_trace
#include <trace/define_trace.h>
