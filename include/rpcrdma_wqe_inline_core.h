/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rpcrdma-inline: what the files of src/ share with each other, and the
 * hooks never call. One concern per file: wqe_inline_param.c (module
 * parameters), wqe_inline_dev.c (the device list and its memos),
 * wqe_inline_qp.c (QP creation), wqe_inline_counters.c (the connection
 * list and its Send counters), wqe_inline_debugfs.c (debugfs), and
 * wqe_inline.c (module init and exit, the tracepoints). What needs no
 * kernel, built in tests/unit too, is declared in rpcrdma_wqe_inline_policy.h:
 * wqe_inline_drivers.c (the per-driver policy and its overrides),
 * wqe_inline_sizes.c (the sizes asked for), wqe_inline_memo.c (the memo
 * table) and wqe_inline_eligible.c (the eligibility rule, size classes).
 */
#ifndef _RPCRDMA_WQE_INLINE_CORE_H
#define _RPCRDMA_WQE_INLINE_CORE_H

#include "rpcrdma_wqe_inline.h"

/* What scripts/prepare-source.sh built this from: the kernel series and
 * hook variants, and "tested" or "UNTESTED" (src/hooks/TESTED); written
 * into the hooked tree's include/, as the hooks are
 */
#include "rpcrdma_inline_build.h"
#ifndef RPCRDMA_INLINE_VERSION
#define RPCRDMA_INLINE_VERSION "unknown"
#endif

/* As XPRTRDMA_GFP_FLAGS (xprt_rdma.h), for allocations on the client's
 * connect path, which may run to write out pages for swap over NFS: no
 * reclaim, no emergency reserves, and fail quietly.
 */
#define RPCRDMA_WQE_INLINE_CONNECT_GFP \
	(__GFP_NOMEMALLOC | __GFP_NORETRY | __GFP_NOWARN)

static inline const char *
rpcrdma_wqe_inline_side_name(enum rpcrdma_wqe_inline_side side)
{
	return side == RPCRDMA_WQE_INLINE_SERVER ? "server" : "client";
}

/* wqe_inline_param.c */
u32 rpcrdma_wqe_inline_want(enum rpcrdma_wqe_inline_side side);
void rpcrdma_wqe_inline_decide_id(u32 driver_id,
				  struct rpcrdma_wqe_inline_verdict *v);
const struct rpcrdma_wqe_inline_kernel *rpcrdma_wqe_inline_this_kernel(void);
void rpcrdma_wqe_inline_params_loaded(void);

/* wqe_inline_dev.c */

/**
 * struct rpcrdma_wqe_inline_dev_snap - one device's entry, copied
 * @name: the device's name
 * @driver_id: its enum rdma_driver_id
 * @last: the memo written last, of any side and shape
 * @memos: its memos, one per side and QP shape, oldest first
 */
struct rpcrdma_wqe_inline_dev_snap {
	char				name[IB_DEVICE_NAME_MAX];
	u32				driver_id;
	struct rpcrdma_wqe_inline_memo	last;
	struct rpcrdma_wqe_inline_memo	memos[RPCRDMA_WQE_INLINE_MEMOS];
};

/**
 * struct rpcrdma_wqe_inline_devs_snap - every listed device, copied
 * @n: how many there are
 * @dev: their entries
 */
struct rpcrdma_wqe_inline_devs_snap {
	unsigned int				n;
	struct rpcrdma_wqe_inline_dev_snap	dev[];
};

int rpcrdma_wqe_inline_devs_init(void);
void rpcrdma_wqe_inline_devs_exit(void);
void rpcrdma_wqe_inline_memo_get(const struct ib_device *device,
				 const struct rpcrdma_wqe_inline_memo_key *key,
				 struct rpcrdma_wqe_inline_memo *memo);
void rpcrdma_wqe_inline_memo_set(const struct ib_device *device,
				 const struct rpcrdma_wqe_inline_memo_key *key,
				 u32 want, u32 accepted, u32 reported,
				 const struct rpcrdma_wqe_inline_caps *zero,
				 u32 extra_wr);
struct rpcrdma_wqe_inline_devs_snap *rpcrdma_wqe_inline_devs_snapshot(void);

/* wqe_inline_counters.c */

/**
 * struct rpcrdma_wqe_inline_conn_snap - one connection's numbers, copied
 * @peer: the remote address when the QP was created
 * @device: the RDMA device's name
 * @side: server or client
 * @asked: max_inline_data of the successful QP creation
 * @reported: max_inline_data the device wrote back
 * @max: bytes a Send may carry inline
 * @attempts: QP creations it took
 * @counted: its Sends are counted (the per-CPU counters were allocated)
 * @sends: its Sends by how, summed over the CPUs
 * @ref: its counters while they are summed, outside the connections lock
 */
struct rpcrdma_wqe_inline_conn_snap {
	struct sockaddr_storage		peer;
	char				device[IB_DEVICE_NAME_MAX];
	enum rpcrdma_wqe_inline_side	side;
	u32				asked;
	u32				reported;
	u32				max;
	u32				attempts;
	bool				counted;
	long				sends[RPCRDMA_WQE_INLINE_HOW_NR];
	struct rpcrdma_wqe_inline_sends	*ref;
};

/**
 * struct rpcrdma_wqe_inline_conns_snap - every listed connection, copied
 * @n: how many there are
 * @conn: their numbers
 */
struct rpcrdma_wqe_inline_conns_snap {
	unsigned int				n;
	struct rpcrdma_wqe_inline_conn_snap	conn[];
};

/**
 * struct rpcrdma_wqe_inline_sizes - one side's Sends by how and size class
 * @n: Sends posted since rpcrdma loaded, by how and size class
 * @failed: Sends whose ib_post_send() failed, by size class
 */
struct rpcrdma_wqe_inline_sizes {
	long	n[RPCRDMA_WQE_INLINE_HOW_NR][RPCRDMA_WQE_INLINE_SIZES];
	long	failed[RPCRDMA_WQE_INLINE_SIZES];
};

void rpcrdma_wqe_inline_counters_init(void);
void rpcrdma_wqe_inline_counters_exit(void);
bool rpcrdma_wqe_inline_sizes_sum(struct rpcrdma_wqe_inline_sizes *sum,
				  enum rpcrdma_wqe_inline_side side);
void rpcrdma_wqe_inline_counters_alloc(struct rpcrdma_wqe_inline *wi,
				       gfp_t gfp);
void rpcrdma_wqe_inline_counters_free(struct rpcrdma_wqe_inline *wi);
void rpcrdma_wqe_inline_conn_add(struct rpcrdma_wqe_inline *wi);
struct rpcrdma_wqe_inline_conns_snap *rpcrdma_wqe_inline_conns_snapshot(void);

/* wqe_inline_debugfs.c */
void rpcrdma_wqe_inline_debugfs_init(void);
void rpcrdma_wqe_inline_debugfs_exit(void);

#endif /* _RPCRDMA_WQE_INLINE_CORE_H */
