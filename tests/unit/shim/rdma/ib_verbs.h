/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Userspace stand-in for <rdma/ib_verbs.h>: struct ib_sge, and enum
 * rdma_driver_id from the UAPI header (linux-libc-dev), as the kernel's has.
 */
#ifndef _SHIM_RDMA_IB_VERBS_H
#define _SHIM_RDMA_IB_VERBS_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_verbs.h>

struct ib_sge {
	u64	addr;
	u32	length;
	u32	lkey;
};

#endif
