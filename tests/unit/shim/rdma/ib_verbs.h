/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Userspace stand-in for <rdma/ib_verbs.h>: struct ib_sge only. */
#ifndef _SHIM_RDMA_IB_VERBS_H
#define _SHIM_RDMA_IB_VERBS_H

#include <linux/types.h>

struct ib_sge {
	u64	addr;
	u32	length;
	u32	lkey;
};

#endif
