// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: set up and torn down with rpcrdma, and the definition
 * of its tracepoints. The rest is one concern per file (see
 * rpcrdma_wqe_inline_core.h).
 */

#include <linux/module.h>

#include "rpcrdma_wqe_inline_core.h"

#define CREATE_TRACE_POINTS
#include "rpcrdma_wqe_inline_trace.h"

/* The policy table names these drivers by number (6.1 has neither
 * MANA nor IONIC, 5.15 no ERDMA): check the numbers where this kernel
 * has the names (Kbuild)
 */
#ifdef RPCRDMA_WQE_INLINE_HAVE_ERDMA
static_assert(RPCRDMA_WQE_INLINE_DRIVER_ERDMA == RDMA_DRIVER_ERDMA);
#endif
#ifdef RPCRDMA_WQE_INLINE_HAVE_MANA
static_assert(RPCRDMA_WQE_INLINE_DRIVER_MANA == RDMA_DRIVER_MANA);
#endif
#ifdef RPCRDMA_WQE_INLINE_HAVE_IONIC
static_assert(RPCRDMA_WQE_INLINE_DRIVER_IONIC == RDMA_DRIVER_IONIC);
#endif

MODULE_VERSION(RPCRDMA_INLINE_VERSION);
MODULE_INFO(rpcrdma_inline, RPCRDMA_INLINE_VERSION);
/* The kernel series and hook variants it was built with, and whether a
 * test covers them (src/hooks/TESTED): "modinfo -F rpcrdma_inline_hooks"
 */
MODULE_INFO(rpcrdma_inline_hooks, RPCRDMA_INLINE_HOOKS);
MODULE_INFO(rpcrdma_inline_tested, RPCRDMA_INLINE_TESTED);

/**
 * rpcrdma_wqe_inline_init - set up rpcrdma-inline when rpcrdma loads
 *
 * Return: 0 or a negative errno; rpcrdma does not load on failure.
 */
int rpcrdma_wqe_inline_init(void)
{
	int ret;

	ret = rpcrdma_wqe_inline_devs_init();
	if (ret)
		return ret;
	rpcrdma_wqe_inline_counters_init();
	rpcrdma_wqe_inline_debugfs_init();
	rpcrdma_wqe_inline_params_loaded();
	return 0;
}

/**
 * rpcrdma_wqe_inline_exit - tear down rpcrdma-inline when rpcrdma unloads
 */
void rpcrdma_wqe_inline_exit(void)
{
	rpcrdma_wqe_inline_debugfs_exit();
	rpcrdma_wqe_inline_counters_exit();
	rpcrdma_wqe_inline_devs_exit();
}
