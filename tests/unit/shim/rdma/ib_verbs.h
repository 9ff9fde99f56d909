/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Userspace stand-in for <rdma/ib_verbs.h>: struct ib_sge, the fields of
 * struct ib_send_wr that the eligibility rule reads, and enum
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

/* The opcodes the rule tells apart (the values are the shim's own) */
enum ib_wr_opcode {
	IB_WR_RDMA_WRITE,
	IB_WR_SEND,
	IB_WR_SEND_WITH_INV,
	IB_WR_LOCAL_INV,
	IB_WR_REG_MR,
};

struct ib_send_wr {
	struct ib_send_wr	*next;
	struct ib_sge		*sg_list;
	int			num_sge;
	enum ib_wr_opcode	opcode;
	int			send_flags;
};

#endif
