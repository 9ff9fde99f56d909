/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * rpcrdma-inline: the decisions that need no kernel.
 *
 * "WQE inline" is the verbs feature IB_SEND_INLINE: the CPU copies a
 * small Send's payload into the send work queue entry, so the HCA does
 * not have to DMA-read it from host memory. It is unrelated to the
 * RPC-over-RDMA inline threshold (re_inline_send, rpcrdma_max_inline).
 *
 * This file is compiled into rpcrdma.ko and, unchanged, into the
 * userspace unit tests (tests/unit/).
 */
#ifndef _RPCRDMA_WQE_INLINE_POLICY_H
#define _RPCRDMA_WQE_INLINE_POLICY_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

/* Bytes of inline data asked for by default, and the largest value the
 * inline_size module parameter accepts (hns hip09 and mlx5 grant 1024
 * or more; no known device takes more than that per Send WR).
 */
#define RPCRDMA_WQE_INLINE_DEFAULT	256U
#define RPCRDMA_WQE_INLINE_MAX		1024U

/* After a refusal with no known limit below it, ask for this much less */
#define RPCRDMA_WQE_INLINE_STEP		16U

/* -ENOMEM taken for a refusal at most this many times in one QP
 * creation (drivers with @nomem_refuses), then the stock ask, 0
 */
#define RPCRDMA_WQE_INLINE_NOMEM_TRIES	3U

/* Memos kept per device (one per side and QP shape), and every how
 * many connections started from a memo below inline_size one probes
 * from inline_size again
 */
#define RPCRDMA_WQE_INLINE_MEMOS	4
#define RPCRDMA_WQE_INLINE_REPROBE	16U

/* enum rdma_driver_id values (UAPI, stable) of drivers newer than some
 * kernels this module builds for: 6.1's header has neither MANA nor
 * IONIC; Ubuntu 22.04's 5.15 has no ERDMA, RHEL 8.10 and 9.6 only
 * __RH_RESERVED_RDMA_DRIVER_ERDMA in its place (no erdma driver).
 */
#define RPCRDMA_WQE_INLINE_DRIVER_ERDMA	19U
#define RPCRDMA_WQE_INLINE_DRIVER_MANA	20U
#define RPCRDMA_WQE_INLINE_DRIVER_IONIC	21U

/* A kernel version as LINUX_VERSION_CODE encodes it (sublevel <= 255) */
#define RPCRDMA_WQE_INLINE_KV(a, b, c)	(((a) << 16) + ((b) << 8) + (c))

/* The kernel series whose driver sources were read (Debian's 6.1.192,
 * 6.12.117 and 7.3.4), as bits of &rpcrdma_wqe_inline_driver.series;
 * wqe_inline_drivers.c maps each to its LINUX_VERSION_CODE range.
 */
#define RPCRDMA_WQE_INLINE_SERIES_6_1	0x1U
#define RPCRDMA_WQE_INLINE_SERIES_6_12	0x2U
#define RPCRDMA_WQE_INLINE_SERIES_7_3	0x4U
#define RPCRDMA_WQE_INLINE_SERIES_ALL	0x7U

/* Known inline data limits per driver, and admin overrides, at most */
#define RPCRDMA_WQE_INLINE_LIMITS	3
#define RPCRDMA_WQE_INLINE_OVERRIDES	16

/**
 * struct rpcrdma_wqe_inline_driver - the inline policy of one RDMA driver
 * @driver_id: its enum rdma_driver_id (ib_device_ops::driver_id)
 * @name: its name, as the inline_drivers parameter and debugfs spell it
 * @on: Sends may go inline on its devices, unless an admin opts it out
 * @limits: inline data sizes its QP creation is known to accept, largest
 *	    first, to try before stepping down; unused entries are 0
 * @post_max: bytes its post path takes inline, when less than QP
 *	      creation may grant; 0 when there is no such limit
 * @no_inv: its post path refuses IB_SEND_INLINE on IB_WR_SEND_WITH_INV,
 *	    so only plain Sends may go inline
 * @behind_reg: its post path builds an inline Send the same when
 *		IB_WR_REG_MR WRs are chained in front of it in one
 *		ib_post_send() (a client Call with registered chunks), as
 *		its source shows; without it such Calls go by reference
 * @nomem_refuses: its QP creation returns -ENOMEM, not only -EINVAL,
 *		   for an inline data size that makes the send queue too
 *		   large (mlx5's calc_sq_size()); its refusals follow from
 *		   the QP's caps alone, so a size it refused is not asked
 *		   again for that shape (no re-probe)
 * @post_written: its post path checks inline data against the
 *		  max_inline_data it wrote back at QP creation, not against
 *		  the ask, and writes back room it makes anyway: a QP asked
 *		  for less (even 0) may post up to what it wrote back
 * @why: the reason for the verdict, from the audit of its source
 * @series: the kernel series (RPCRDMA_WQE_INLINE_SERIES_*) whose source
 *	    of it was read: an on verdict holds only there
 * @since: within them, the first LINUX_VERSION_CODE it holds for (a fix
 *	   the verdict needs), or 0
 * @before: why it is off before @since
 *
 * The table (wqe_inline_drivers.c) is the result of reading each
 * in-tree provider's source; see docs/devices.md.
 */
struct rpcrdma_wqe_inline_driver {
	u32		driver_id;
	const char	*name;
	bool		on;
	u32		limits[RPCRDMA_WQE_INLINE_LIMITS];
	u32		post_max;
	bool		no_inv;
	bool		behind_reg;
	bool		nomem_refuses;
	bool		post_written;
	const char	*why;
	u32		series;
	u32		since;
	const char	*before;
};

/**
 * struct rpcrdma_wqe_inline_kernel - the kernel the module is built for
 * @version: its LINUX_VERSION_CODE
 * @vendor: the distribution whose own backports it carries (RHEL, SUSE),
 *	    whose driver sources were not read; NULL for a kernel of the
 *	    kernel.org series as Debian ships them
 */
struct rpcrdma_wqe_inline_kernel {
	u32		version;
	const char	*vendor;
};

/**
 * struct rpcrdma_wqe_inline_overrides - an admin's opt-ins and opt-outs
 * @count: entries in use
 * @entry: one per driver: its driver_id, and whether inline is on
 * @entry.driver_id: enum rdma_driver_id
 * @entry.on: opted in (DRIVER:on or DRIVER:alone) or out (DRIVER:off)
 * @entry.behind_reg: Calls behind their registrations go inline too
 *	(DRIVER:on), or only Sends alone in their post (DRIVER:alone)
 */
struct rpcrdma_wqe_inline_overrides {
	unsigned int	count;
	struct {
		u32	driver_id;
		bool	on;
		bool	behind_reg;
	} entry[RPCRDMA_WQE_INLINE_OVERRIDES];
};

/**
 * struct rpcrdma_wqe_inline_verdict - whether a device's QPs get inline data
 * @on: ask for inline data at QP creation, and post inline
 * @behind_reg: a Send behind IB_WR_REG_MR WRs in its post may go inline
 * @driver: the driver's table entry, or NULL when it is not in the table
 * @why: the reason, one line
 * @kernel_off: the table says on, but not for this kernel (outside the
 *		series whose source was read, a vendor kernel, or before a
 *		fix the verdict needs)
 */
struct rpcrdma_wqe_inline_verdict {
	bool					on;
	bool					behind_reg;
	const struct rpcrdma_wqe_inline_driver	*driver;
	const char				*why;
	bool					kernel_off;
};

/**
 * struct rpcrdma_wqe_inline_memo_key - what a device's answer depends on
 * @side: enum rpcrdma_wqe_inline_side of the connection
 * @max_send_wr: the send queue depth asked for (before the driver's
 *		 write-back)
 * @max_send_sge: the send SGEs asked for
 * @max_rdma_ctxs: the RDMA R/W contexts asked for (the server's; they
 *		   grow the send queue in rdma_rw_init_qp())
 *
 * How much inline data a device accepts depends on the QP's shape: on
 * mlx5 every inline byte grows each send WQE, so a deep server send
 * queue may be refused what a client's shallow one is granted, and the
 * queue's depth is max_send_wr plus what rdma_rw_init_qp() adds for
 * max_rdma_ctxs (which follows the server's block size).
 */
struct rpcrdma_wqe_inline_memo_key {
	u32	side;
	u32	max_send_wr;
	u32	max_send_sge;
	u32	max_rdma_ctxs;
};

/**
 * struct rpcrdma_wqe_inline_caps - the send caps a QP creation wrote back
 * @max_send_wr: cap.max_send_wr
 * @max_send_sge: cap.max_send_sge (svcrdma from 6.12 on reads it back)
 * @max_write_sge: the QP's max_write_sge (rdma_rw's SGEs per RDMA Write)
 * @max_read_sge: the QP's max_read_sge (rdma_rw's SGEs per RDMA Read)
 * @max_inline_data: cap.max_inline_data
 */
struct rpcrdma_wqe_inline_caps {
	u32	max_send_wr;
	u32	max_send_sge;
	u32	max_write_sge;
	u32	max_read_sge;
	u32	max_inline_data;
};

/**
 * struct rpcrdma_wqe_inline_memo - what one device accepted last time,
 *	for QPs of one side and shape
 * @key: the side and shape it holds for
 * @want: the inline_size that was asked for then
 * @accepted: the size whose QP creation succeeded
 * @reported: the max_inline_data the device wrote back then
 * @zero: what it wrote back for the shape with no inline data: what the
 *	  stock module's QP gets, the least a QP of ours keeps
 * @extra_wr: send WRs asked beyond the ULP's with inline data then
 * @uses: connections that took it since it was written, counting from 1
 * @valid: the memo holds a result, @zero included
 */
struct rpcrdma_wqe_inline_memo {
	struct rpcrdma_wqe_inline_memo_key key;
	u32	want;
	u32	accepted;
	u32	reported;
	struct rpcrdma_wqe_inline_caps zero;
	u32	extra_wr;
	u32	uses;
	bool	valid;
};

/**
 * enum rpcrdma_wqe_inline_act - what a negotiation does after a creation
 * @RPCRDMA_WQE_INLINE_KEEP: keep the QP just created: done
 * @RPCRDMA_WQE_INLINE_ASK: destroy the QP just created, if any, and
 *	create one asking &rpcrdma_wqe_inline_neg.size bytes
 * @RPCRDMA_WQE_INLINE_FAIL: give up with the error of the last creation
 */
enum rpcrdma_wqe_inline_act {
	RPCRDMA_WQE_INLINE_KEEP,
	RPCRDMA_WQE_INLINE_ASK,
	RPCRDMA_WQE_INLINE_FAIL,
};

/**
 * struct rpcrdma_wqe_inline_neg - one QP's negotiation of its inline data
 * @drv: the device's driver in the policy table, or NULL
 * @want: the inline_size configured
 * @first: the first size with inline data to ask for
 *	   (rpcrdma_wqe_inline_first_size())
 * @zero: what the device writes back for this shape with no inline data
 * @zero_known: @zero holds, from the memo or a creation of this one
 * @zero_made: a creation with no inline data succeeded in this one
 * @size: the size the next (or last) creation asks for
 * @resume: the size to ask for once the creation checking the shape at
 *	    0 bytes succeeded
 * @nomem: -ENOMEM refusals so far (rpcrdma_wqe_inline_retry())
 * @refusals_only: every failure so far was a refusal of the size, so
 *		   the result may be remembered
 * @extra_wr: send WRs asked for beyond the ULP's in creations with inline
 *	      data, so that the device writes back at least as many as it
 *	      does with none (mlx5 rounds the queue to a power of two of its
 *	      larger WQEs: calc_sq_size())
 * @extra_tried: a creation with @extra_wr was made in this negotiation
 * @short_caps: a QP with inline data got fewer send WRs or SGEs than
 *		the shape gets with none; it ended without inline data
 * @err: the error that was no refusal, when it ended on a QP with no
 *	 inline data instead of failing (0 otherwise)
 * @check_size: the size whose failure a creation with no inline data
 *		checked, for the log
 * @check_err: that failure's error
 *
 * Filled by rpcrdma_wqe_inline_neg_start(), moved on by
 * rpcrdma_wqe_inline_neg_step() after each creation.
 */
struct rpcrdma_wqe_inline_neg {
	const struct rpcrdma_wqe_inline_driver *drv;
	u32		want;
	u32		first;
	struct rpcrdma_wqe_inline_caps zero;
	bool		zero_known;
	bool		zero_made;
	u32		size;
	u32		resume;
	unsigned int	nomem;
	bool		refusals_only;
	u32		extra_wr;
	bool		extra_tried;
	bool		short_caps;
	int		err;
	u32		check_size;
	int		check_err;
};

/**
 * enum rpcrdma_wqe_inline_how - how a Send WR was posted: inline, or by
 *	reference and why (the first reason that applies, in this order)
 * @RPCRDMA_WQE_INLINE_HOW_INLINE: inline
 * @RPCRDMA_WQE_INLINE_HOW_OFF: no inline data on this connection
 *	(inline_size=0, the side or the driver off, or nothing granted), or
 *	none for this opcode (Send With Invalidate on siw)
 * @RPCRDMA_WQE_INLINE_HOW_CHUNKS: a server Reply behind chunk data
 *	(RDMA Writes of its Write or Reply chunk) written for it, in its
 *	post or before it
 * @RPCRDMA_WQE_INLINE_HOW_CHAINED: behind other WRs in its post that
 *	do not allow it: a WR that is no registration, or IB_WR_REG_MR on
 *	a driver whose post path is not shown to build an inline Send the
 *	same behind one (&rpcrdma_wqe_inline_driver.behind_reg)
 * @RPCRDMA_WQE_INLINE_HOW_PAGES: some of the message is not in a buffer
 *	with a known kernel virtual address (data pages)
 * @RPCRDMA_WQE_INLINE_HOW_UNPULLED: a server Reply in more than one
 *	SGE: svcrdma pulls a Reply up into its header buffer only when
 *	it is smaller than RPCRDMA_PULLUP_THRESH (512 bytes)
 * @RPCRDMA_WQE_INLINE_HOW_LARGE: larger than the connection may post inline
 * @RPCRDMA_WQE_INLINE_HOW_SGE: no SGE, an empty one, or more than fit
 * @RPCRDMA_WQE_INLINE_HOW_NR: how many there are
 */
enum rpcrdma_wqe_inline_how {
	RPCRDMA_WQE_INLINE_HOW_INLINE,
	RPCRDMA_WQE_INLINE_HOW_OFF,
	RPCRDMA_WQE_INLINE_HOW_CHUNKS,
	RPCRDMA_WQE_INLINE_HOW_CHAINED,
	RPCRDMA_WQE_INLINE_HOW_PAGES,
	RPCRDMA_WQE_INLINE_HOW_UNPULLED,
	RPCRDMA_WQE_INLINE_HOW_LARGE,
	RPCRDMA_WQE_INLINE_HOW_SGE,
	RPCRDMA_WQE_INLINE_HOW_NR
};

/* The largest server Send that can go inline: svcrdma pulls a Reply,
 * transport header included, into one buffer only below
 * RPCRDMA_PULLUP_THRESH (checked against svc_rdma.h in wqe_inline_svc.c)
 */
#define RPCRDMA_WQE_INLINE_SERVER_MAX	511U

/* Send sizes are counted in classes: up to 64, 128, 256, 512 and 1024
 * bytes, and larger
 */
#define RPCRDMA_WQE_INLINE_SIZES	6

/**
 * struct rpcrdma_wqe_inline_buf - a buffer that has a kernel virtual address
 * @dma: its DMA address, as the Send's SGEs carry it
 * @va: its kernel virtual address, from which providers copy inline data
 * @len: its length in bytes
 */
struct rpcrdma_wqe_inline_buf {
	u64		dma;
	const void	*va;
	u32		len;
};

const struct rpcrdma_wqe_inline_driver *
rpcrdma_wqe_inline_driver_find(u32 driver_id);
const char *rpcrdma_wqe_inline_driver_name(u32 driver_id, char *buf,
					   size_t len);
void rpcrdma_wqe_inline_decide(u32 driver_id,
			       const struct rpcrdma_wqe_inline_overrides *ov,
			       struct rpcrdma_wqe_inline_verdict *v);
void rpcrdma_wqe_inline_decide_for(u32 driver_id,
				   const struct rpcrdma_wqe_inline_overrides *ov,
				   const struct rpcrdma_wqe_inline_kernel *kernel,
				   struct rpcrdma_wqe_inline_verdict *v);
int rpcrdma_wqe_inline_series_print(u32 series, char *buf, size_t len);
int rpcrdma_wqe_inline_overrides_parse(const char *val,
				       struct rpcrdma_wqe_inline_overrides *ov,
				       const char **bad, int *bad_len);
int rpcrdma_wqe_inline_overrides_print(const struct rpcrdma_wqe_inline_overrides *ov,
				       char *buf, size_t len);
u32 rpcrdma_wqe_inline_first_size(const struct rpcrdma_wqe_inline_driver *drv,
				  u32 want,
				  const struct rpcrdma_wqe_inline_memo *memo);
u32 rpcrdma_wqe_inline_next_size(const struct rpcrdma_wqe_inline_driver *drv,
				 u32 refused);
bool rpcrdma_wqe_inline_retry(const struct rpcrdma_wqe_inline_driver *drv,
			      u32 refused, int err, unsigned int *nomem,
			      u32 *next);
struct rpcrdma_wqe_inline_memo *
rpcrdma_wqe_inline_memo_find(struct rpcrdma_wqe_inline_memo *memos,
			     unsigned int n,
			     const struct rpcrdma_wqe_inline_memo_key *key);
struct rpcrdma_wqe_inline_memo *
rpcrdma_wqe_inline_memo_slot(struct rpcrdma_wqe_inline_memo *memos,
			     unsigned int n,
			     const struct rpcrdma_wqe_inline_memo_key *key);
void rpcrdma_wqe_inline_memo_write(struct rpcrdma_wqe_inline_memo *memo,
				   const struct rpcrdma_wqe_inline_memo_key *key,
				   u32 want, u32 accepted, u32 reported,
				   const struct rpcrdma_wqe_inline_caps *zero,
				   u32 extra_wr);
int rpcrdma_wqe_inline_param_refused(int err, bool loading);
u32 rpcrdma_wqe_inline_usable(const struct rpcrdma_wqe_inline_driver *drv,
			      u32 want, u32 asked, u32 reported);
u32 rpcrdma_wqe_inline_free(const struct rpcrdma_wqe_inline_driver *drv,
			    u32 want, const struct rpcrdma_wqe_inline_caps *zero);
bool rpcrdma_wqe_inline_keep_caps(const struct rpcrdma_wqe_inline_caps *zero,
				  const struct rpcrdma_wqe_inline_caps *got,
				  struct rpcrdma_wqe_inline_caps *keep);
void rpcrdma_wqe_inline_neg_start(struct rpcrdma_wqe_inline_neg *n,
				  const struct rpcrdma_wqe_inline_driver *drv,
				  u32 want,
				  const struct rpcrdma_wqe_inline_memo *memo);
enum rpcrdma_wqe_inline_act
rpcrdma_wqe_inline_neg_step(struct rpcrdma_wqe_inline_neg *n, int ret,
			    const struct rpcrdma_wqe_inline_caps *got);
bool rpcrdma_wqe_inline_size_valid(unsigned long size);
int rpcrdma_wqe_inline_map_sges(const struct ib_sge *sges,
				unsigned int num_sge,
				const struct rpcrdma_wqe_inline_buf *bufs,
				unsigned int num_bufs, u32 max,
				struct ib_sge *out, unsigned int num_out);

enum rpcrdma_wqe_inline_how rpcrdma_wqe_inline_how_of(int mapped);
bool rpcrdma_wqe_inline_chain_ok(const struct ib_send_wr *post_wr,
				 const struct ib_send_wr *send_wr,
				 bool behind_reg);
const char *rpcrdma_wqe_inline_how_name(enum rpcrdma_wqe_inline_how how);
u32 rpcrdma_wqe_inline_msg_len(const struct ib_sge *sges,
			       unsigned int num_sge);
unsigned int rpcrdma_wqe_inline_size_class(u32 len);
const char *rpcrdma_wqe_inline_size_name(unsigned int class);

#endif /* _RPCRDMA_WQE_INLINE_POLICY_H */
