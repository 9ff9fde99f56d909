// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test only: make an RDMA device act as one with a given inline data
 * limit and driver (ib_device_ops::driver_id), without
 * rebuilding the kernel, and count the Send
 * WRs posted to its RC QPs with and without IB_SEND_INLINE, as the driver
 * sees them (parameters sends_inline and sends_byref), and of those the
 * ones with an IB_WR_REG_MR ahead of them in their chain (sends_reg_inline
 * and sends_reg_byref: a client Call with registered chunks). With
 * byref_delay_ns=D (writable at run time) every Send WR posted by
 * reference costs D ns of busy waiting in the post, as the PCIe read of
 * its message would on a real HCA; an inline Send costs nothing. How
 * long those waits really lasted, by the guest's own clock (ktime, which
 * also times the wait), is kept: byref_delays counts them,
 * byref_delay_spent_ns sums them (on a loaded host a wait lasts longer
 * than asked, and the bench's B - A follows what it lasted).
 *
 *   insmod inline_limit.ko netdev=dummy0 limit=101 driver_id=9
 *
 * QP creations asking for more than @limit bytes of inline data are
 * refused with -EINVAL, as irdma, erdma, siw and rxe refuse what exceeds
 * their limit, and the size written back is capped at @limit (and at
 * @report, to act as a device that reports less than it was asked). With
 * refuse_all=1 every RC QP creation is refused with -EINVAL, even one
 * asking for no inline data, to act as a device that cannot create the
 * QP at all. With report_zero=1 it grants no inline data, as mlx4 does.
 * With fail_create=N the next N RC QP creations fail with -fail_errno
 * (default 5, -EIO) before the device sees them, as a firmware error or
 * a device going away would (the count goes down to 0 and may be written
 * again at run time). Every RC QP creation's max_inline_data is recorded
 * in order (parameter asks, the last 32, comma-separated).
 * With fail_post_recv=N the next N Receive posts whose completion
 * handler is fail_recv_done (default svc_rdma_wc_receive: the server's)
 * fail with -ENOMEM before the device sees them, which drives
 * svc_rdma_accept() into its error path after its QP exists
 * (parameter recv_failed counts them).
 * With fail_post_send=N the next N posts whose chain holds a Send WR
 * whose completion handler is fail_send_done (default svc_rdma_wc_send:
 * the server's; rpcrdma_wc_send: the client's) fail with -ENOMEM before
 * the device sees them, none of their WRs posted (parameter send_failed
 * counts them, send_failed_inline those whose Send was inline); they are
 * not counted as Sends.
 * Each RC QP's max_send_sge as asked (before the device writes its own
 * back) is kept, and every RDMA Write and Read WR posted on it compared
 * with it: rw_wrs counts them, rw_sge_max is the most SGEs one carried,
 * rw_sge_over counts those with more SGEs than their QP asked for.
 * With model=mlx5 or model=irdma the device sizes its RC QPs, writes
 * their caps back and checks each post as that driver does (see the
 * "Device models" section below), and reports that driver's driver_id,
 * vendor ID and device limits: a test can then compare what the stock
 * rpcrdma and ours get from such a NIC. Every RC QP creation is listed
 * in parameter qps (asked and written-back caps, the error, and the
 * QP's max_write_sge and max_read_sge as its posts see them), the RDMA
 * Write and Read WRs and their SGEs are counted (write_wrs,
 * write_sges, read_wrs, read_sges), and the Send WRs by side, inline
 * or not, and size (parameter sends_sizes, in the size classes of
 * rpcrdma-inline's debugfs 'sends').
 * The device's create_qp, post_send and post_recv ops, its driver_id
 * and the attributes a model changes are restored on unload, which
 * must come before the device is removed (the module holds a
 * reference).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/pci_ids.h>
#include <linux/processor.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>
#include <rdma/ib_verbs.h>

static char *netdev = "dummy0";
module_param(netdev, charp, 0444);
MODULE_PARM_DESC(netdev, "Wrap the RDMA device on this netdev (default dummy0)");

static unsigned int limit = UINT_MAX;
module_param(limit, uint, 0444);
MODULE_PARM_DESC(limit, "Largest max_inline_data accepted, in bytes (default: any)");

static unsigned int report;
module_param(report, uint, 0444);
MODULE_PARM_DESC(report, "Report at most this much inline data back (0: up to limit)");

static int driver_id = -1;
module_param(driver_id, int, 0444);
MODULE_PARM_DESC(driver_id, "enum rdma_driver_id to report (-1: keep the device's)");

static bool report_zero;
module_param(report_zero, bool, 0444);
MODULE_PARM_DESC(report_zero, "Report no inline data back, whatever was asked, as mlx4 does for kernel QPs (default N)");

static atomic_t max_asked = ATOMIC_INIT(0);
module_param_named(max_asked, max_asked.counter, int, 0444);
MODULE_PARM_DESC(max_asked, "The largest max_inline_data an RC QP creation asked for");

static bool refuse_all;
module_param(refuse_all, bool, 0444);
MODULE_PARM_DESC(refuse_all, "Refuse every RC QP creation, whatever its inline data size (default N)");

static atomic_t fail_create = ATOMIC_INIT(0);
module_param_named(fail_create, fail_create.counter, int, 0644);
MODULE_PARM_DESC(fail_create, "Fail this many of the next RC QP creations with -fail_errno before the device sees them (default 0)");

static unsigned int fail_errno = EIO;
module_param(fail_errno, uint, 0644);
MODULE_PARM_DESC(fail_errno, "The errno fail_create fails them with, positive (default 5, EIO)");

static atomic_t failed = ATOMIC_INIT(0);
module_param_named(failed, failed.counter, int, 0444);
MODULE_PARM_DESC(failed, "QP creations failed by fail_create so far");

/* The max_inline_data of each RC QP creation, in order: the last ones */
#define ASKS_KEPT 32
static DEFINE_SPINLOCK(asks_lock);
static u32 asks[ASKS_KEPT];
static unsigned int nasks;

static void asks_record(u32 size)
{
	spin_lock(&asks_lock);
	if (nasks == ASKS_KEPT) {
		memmove(asks, asks + 1, sizeof(asks) - sizeof(asks[0]));
		nasks--;
	}
	asks[nasks++] = size;
	spin_unlock(&asks_lock);
}

static int asks_get(char *buf, const struct kernel_param *kp)
{
	unsigned int i;
	int n = 0;

	spin_lock(&asks_lock);
	for (i = 0; i < nasks; i++)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s%u", i ? "," : "",
			       asks[i]);
	spin_unlock(&asks_lock);
	n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	return n;
}

/* Writing anything clears the record */
static int asks_set(const char *val, const struct kernel_param *kp)
{
	spin_lock(&asks_lock);
	nasks = 0;
	spin_unlock(&asks_lock);
	return 0;
}

static const struct kernel_param_ops asks_ops = {
	.set	= asks_set,
	.get	= asks_get,
};

module_param_cb(asks, &asks_ops, NULL, 0644);
MODULE_PARM_DESC(asks, "max_inline_data of the last 32 RC QP creations, in order; write to clear");

static atomic_t refused = ATOMIC_INIT(0);
module_param_named(refused, refused.counter, int, 0444);
MODULE_PARM_DESC(refused, "QP creations refused so far");

static atomic_t created = ATOMIC_INIT(0);
module_param_named(created, created.counter, int, 0444);
MODULE_PARM_DESC(created, "QP creations passed to the device so far");

static atomic_t sends_inline = ATOMIC_INIT(0);
module_param_named(sends_inline, sends_inline.counter, int, 0444);
MODULE_PARM_DESC(sends_inline, "Send WRs posted with IB_SEND_INLINE");

static atomic_t sends_byref = ATOMIC_INIT(0);
module_param_named(sends_byref, sends_byref.counter, int, 0444);
MODULE_PARM_DESC(sends_byref, "Send WRs posted without IB_SEND_INLINE");

static atomic_t sends_reg_inline = ATOMIC_INIT(0);
module_param_named(sends_reg_inline, sends_reg_inline.counter, int, 0444);
MODULE_PARM_DESC(sends_reg_inline, "Send WRs with IB_SEND_INLINE behind an IB_WR_REG_MR in their chain");

static atomic_t sends_reg_byref = ATOMIC_INIT(0);
module_param_named(sends_reg_byref, sends_reg_byref.counter, int, 0444);
MODULE_PARM_DESC(sends_reg_byref, "Send WRs without IB_SEND_INLINE behind an IB_WR_REG_MR in their chain");

static unsigned int byref_delay_ns;
module_param(byref_delay_ns, uint, 0644);
MODULE_PARM_DESC(byref_delay_ns, "Busy-wait this many ns for every Send WR posted by reference, an emulated PCIe read of its message (default 0)");

static atomic_t byref_delays = ATOMIC_INIT(0);
module_param_named(byref_delays, byref_delays.counter, int, 0444);
MODULE_PARM_DESC(byref_delays, "Busy waits of byref_delay_ns done so far");

static atomic64_t byref_delay_spent = ATOMIC64_INIT(0);

static int byref_delay_spent_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&byref_delay_spent));
}

static const struct kernel_param_ops byref_delay_spent_ops = {
	.get = byref_delay_spent_get,
};

module_param_cb(byref_delay_spent_ns, &byref_delay_spent_ops, NULL, 0444);
MODULE_PARM_DESC(byref_delay_spent_ns, "The time those busy waits lasted, by ktime_get_ns(), summed");

static atomic_t fail_post_recv = ATOMIC_INIT(0);
module_param_named(fail_post_recv, fail_post_recv.counter, int, 0644);
MODULE_PARM_DESC(fail_post_recv, "Fail this many of the next Receive posts whose completion handler is fail_recv_done with -ENOMEM (default 0)");

static char *fail_recv_done = "svc_rdma_wc_receive";
module_param(fail_recv_done, charp, 0444);
MODULE_PARM_DESC(fail_recv_done, "The completion handler whose Receive posts fail_post_recv fails (default svc_rdma_wc_receive, the server's)");

static atomic_t recv_failed = ATOMIC_INIT(0);
module_param_named(recv_failed, recv_failed.counter, int, 0444);
MODULE_PARM_DESC(recv_failed, "Receive posts failed by fail_post_recv so far");

static atomic_t fail_post_send = ATOMIC_INIT(0);
module_param_named(fail_post_send, fail_post_send.counter, int, 0644);
MODULE_PARM_DESC(fail_post_send, "Fail this many of the next posts whose Send's completion handler is fail_send_done with -ENOMEM (default 0)");

static char fail_send_done[64] = "svc_rdma_wc_send";
module_param_string(fail_send_done, fail_send_done, sizeof(fail_send_done), 0644);
MODULE_PARM_DESC(fail_send_done, "The completion handler whose Sends fail_post_send fails (default svc_rdma_wc_send, the server's; rpcrdma_wc_send: the client's)");

static atomic_t send_failed = ATOMIC_INIT(0);
module_param_named(send_failed, send_failed.counter, int, 0444);
MODULE_PARM_DESC(send_failed, "Posts failed by fail_post_send so far");

static atomic_t send_failed_inline = ATOMIC_INIT(0);
module_param_named(send_failed_inline, send_failed_inline.counter, int, 0444);
MODULE_PARM_DESC(send_failed_inline, "Of those, the ones whose Send was inline");

static atomic_t rw_wrs = ATOMIC_INIT(0);
module_param_named(rw_wrs, rw_wrs.counter, int, 0444);
MODULE_PARM_DESC(rw_wrs, "RDMA Write and Read WRs posted on RC QPs");

static atomic_t rw_sge_max = ATOMIC_INIT(0);
module_param_named(rw_sge_max, rw_sge_max.counter, int, 0444);
MODULE_PARM_DESC(rw_sge_max, "The most SGEs one of them carried");

static atomic_t rw_sge_over = ATOMIC_INIT(0);
module_param_named(rw_sge_over, rw_sge_over.counter, int, 0444);
MODULE_PARM_DESC(rw_sge_over, "Those with more SGEs than their QP's max_send_sge as asked");

/*
 * Device models: model=mlx5 sizes RC QPs as mlx5_ib does for kernel QPs
 * (read in hw/mlx5/qp.c and wr.c of 6.1.192, 6.12.117 and 7.3.4, the
 * same there but for max_qp_wr):
 * - calc_send_wqe(): the send WQE is ALIGN(max(sq_overhead + 4 +
 *   max_inline_data (only when inline data is asked), sq_overhead +
 *   16 * max_send_sge), 64), sq_overhead() 132 bytes for RC (a 16-byte
 *   control segment and the larger of atomic + remote address, 32, and
 *   UMR control + mkey + 64 / 16, 116);
 * - calc_sq_size(): -EINVAL when the WQE is above max_wqe_sz_sq;
 *   max_inline_data written back as WQE - 136, even when 0 was asked;
 *   -ENOMEM when roundup_pow_of_two(max_send_wr * WQE) is more than
 *   1 << log_max_qp_sz WQEBBs of 64 bytes; max_send_wr written back as
 *   that queue size / WQE;
 * - get_send_sge(): max_send_sge written back as (min(WQE, 512) - 32) / 16
 *   for RC (-ENOMEM if that is below the ask);
 * - set_rq_size(): -EINVAL when max_recv_wr is above 1 << log_max_qp_sz;
 *   the receive caps are not written back;
 * - mlx5_ib_post_send(): -EINVAL for a WR with more SGEs than
 *   max_send_sge; set_data_inl_seg(): -ENOMEM when a Send's inline data
 *   exceeds max_inline_data;
 * - mlx5_ib_query_device(): max_send_sge (min(max_wqe_sz_sq, 512) -
 *   32) / 16 = 30, max_sge_rd MLX5_MAX_SGE_RD = 30, max_qp_wr
 *   1 << log_max_qp_sz in 6.1, mlx5_ib_calc_max_qp_wr() from 6.12 on
 *   (the queue with 256-byte WQEs: 8192).
 * ConnectX-6 Dx: log_max_qp_sz 15 (ibv_devinfo of a ConnectX-6 Dx,
 * vendor_part_id 4125, firmware 22.36.1010: max_qp_wr 32768, max_sge
 * 30, max_sge_rd 30); max_wqe_sz_sq 1024 (16 WQEBBs: "net/mlx5e: Read
 * max WQEBBs on the SQ from firmware" says every firmware so far
 * reports 16, and mlx5e_get_max_sq_wqebbs() caps at 1 KB).
 * The ib_core then takes the written-back max_send_sge as the QP's
 * max_write_sge, and its minimum with max_sge_rd as max_read_sge
 * (ib_create_qp_kernel()), so rdma_rw builds chunk WRs as on mlx5.
 *
 * model=irdma refuses what irdma_validate_qp_attrs() refuses, with
 * irdma_gen's limits (irdma_sc_init_hw(), i40iw_init_hw()): inline data
 * above 48 (gen1, X722), 101 (gen2, E810) or 216 (gen3, 7.3 only) bytes,
 * more send or receive SGEs than max_hw_wq_frags (3 gen1, 13 gen2 and
 * gen3), all -EINVAL; it writes no inline data or SGE count back, and
 * reports max_send_sge max_hw_wq_frags and max_sge_rd max_hw_read_sges
 * (1 gen1, 13 gen2 and gen3; irdma_query_device()). At the post,
 * irdma_uk_send() and irdma_uk_inline_send() refuse more SGEs than the
 * QP's and inline data above its max_inline_data with -EINVAL; the
 * inline copy reads every SGE (irdma_copy_inline_data(), since
 * 4f44e519b6a9 "RDMA/irdma: Fix inline for multiple SGE's", 6.2). With
 * irdma_pre_6_2=1 an inline Send of several SGEs carries only
 * sg_list[0], as before that fix (parameter inline_truncated counts
 * them).
 *
 * rxe underneath is given the caps the model writes back (inline data
 * at most rxe's 512), so that it holds every WR the model accepts.
 */
enum inline_limit_model {
	MODEL_NONE,
	MODEL_MLX5,
	MODEL_IRDMA,
};

static char *model = "";
module_param(model, charp, 0444);
MODULE_PARM_DESC(model, "Act as this driver: mlx5 (ConnectX-6 Dx) or irdma (default: none)");

static unsigned int mlx5_max_wqe_sz_sq = 1024;
module_param(mlx5_max_wqe_sz_sq, uint, 0444);
MODULE_PARM_DESC(mlx5_max_wqe_sz_sq, "model=mlx5: the HCA cap max_wqe_sz_sq, bytes (default 1024, ConnectX-6 Dx)");

static unsigned int mlx5_log_max_qp_sz = 15;
module_param(mlx5_log_max_qp_sz, uint, 0444);
MODULE_PARM_DESC(mlx5_log_max_qp_sz, "model=mlx5: the HCA cap log_max_qp_sz (default 15, ConnectX-6 Dx)");

static unsigned int irdma_gen = 2;
module_param(irdma_gen, uint, 0444);
MODULE_PARM_DESC(irdma_gen, "model=irdma: the hardware generation, 1 (X722), 2 (E810) or 3 (default 2)");

static bool irdma_pre_6_2;
module_param(irdma_pre_6_2, bool, 0444);
MODULE_PARM_DESC(irdma_pre_6_2, "model=irdma: copy only sg_list[0] of an inline Send, as irdma did before 6.2 (default N)");

static enum inline_limit_model active_model;

#define MLX5_MODEL_SQ_OVERHEAD	132	/* sq_overhead(), RC */
#define MLX5_MODEL_INLINE_SEG	4	/* struct mlx5_wqe_inline_seg */
#define MLX5_MODEL_DATA_SEG	16	/* struct mlx5_wqe_data_seg */
#define MLX5_MODEL_WQE_BB	64	/* MLX5_SEND_WQE_BB */
#define MLX5_MODEL_MAX_SGE_RD	30	/* MLX5_MAX_SGE_RD */
#define MLX5_MODEL_PART_ID	4125	/* ConnectX-6 Dx */
#define RXE_MODEL_MAX_INLINE	512	/* RXE_MAX_INLINE_DATA */

static const struct {
	u32 inline_max, frags, read_sges;
} irdma_model_gens[] = {
	{ 48, 3, 1 },		/* I40IW_MAX_INLINE_DATA_SIZE, ... */
	{ 101, 13, 13 },	/* IRDMA_MAX_INLINE_DATA_SIZE, ... */
	{ 216, 13, 13 },	/* IG3RDMA_MAX_INLINE_DATA_SIZE */
};

static atomic_t model_refused = ATOMIC_INIT(0);
module_param_named(model_refused, model_refused.counter, int, 0444);
MODULE_PARM_DESC(model_refused, "RC QP creations the model refused, as its driver would");

static atomic_t post_sge_over = ATOMIC_INIT(0);
module_param_named(post_sge_over, post_sge_over.counter, int, 0444);
MODULE_PARM_DESC(post_sge_over, "Posts refused by the model: a WR with more SGEs than its QP's max_send_sge");

static atomic_t post_inline_over = ATOMIC_INIT(0);
module_param_named(post_inline_over, post_inline_over.counter, int, 0444);
MODULE_PARM_DESC(post_inline_over, "Posts refused by the model: an inline Send larger than its QP's max_inline_data");

static atomic_t inline_truncated = ATOMIC_INIT(0);
module_param_named(inline_truncated, inline_truncated.counter, int, 0444);
MODULE_PARM_DESC(inline_truncated, "irdma_pre_6_2: inline Sends of several SGEs sent with sg_list[0] alone");

static atomic_t write_wrs = ATOMIC_INIT(0);
module_param_named(write_wrs, write_wrs.counter, int, 0444);
MODULE_PARM_DESC(write_wrs, "RDMA Write WRs posted on RC QPs");

static atomic_t write_sges = ATOMIC_INIT(0);
module_param_named(write_sges, write_sges.counter, int, 0444);
MODULE_PARM_DESC(write_sges, "Their SGEs");

static atomic_t read_wrs = ATOMIC_INIT(0);
module_param_named(read_wrs, read_wrs.counter, int, 0444);
MODULE_PARM_DESC(read_wrs, "RDMA Read WRs posted on RC QPs");

static atomic_t read_sges = ATOMIC_INIT(0);
module_param_named(read_sges, read_sges.counter, int, 0444);
MODULE_PARM_DESC(read_sges, "Their SGEs");

/* The side of a QP, from its event handler: svcrdma's or xprtrdma's */
enum {
	SIDE_SERVER,
	SIDE_CLIENT,
	SIDE_OTHER,
	SIDES
};

static const char * const side_names[SIDES] = { "server", "client", "other" };

/* Send WRs by side, inline or not, and size: rpcrdma-inline's classes */
#define SIZE_CLASSES 6
static const char * const size_names[SIZE_CLASSES] = {
	"le64", "le128", "le256", "le512", "le1024", "gt1024"
};

static atomic_t send_sizes[SIDES][2][SIZE_CLASSES];

static unsigned int size_class(u32 len)
{
	unsigned int c = 0;

	while (c < SIZE_CLASSES - 1 && len > (64U << c))
		c++;
	return c;
}

static int send_sizes_get(char *buf, const struct kernel_param *kp)
{
	unsigned int s, h, c;
	int n = 0;

	for (s = 0; s < SIDES; s++)
		for (h = 0; h < 2; h++) {
			n += scnprintf(buf + n, PAGE_SIZE - n, "%s %s", side_names[s],
				       h ? "inline" : "byref");
			for (c = 0; c < SIZE_CLASSES; c++)
				n += scnprintf(buf + n, PAGE_SIZE - n, " %s=%d", size_names[c],
					       atomic_read(&send_sizes[s][h][c]));
			n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
		}
	return n;
}

static const struct kernel_param_ops send_sizes_ops = {
	.get	= send_sizes_get,
};

module_param_cb(sends_sizes, &send_sizes_ops, NULL, 0444);
MODULE_PARM_DESC(sends_sizes, "Send WRs by side, inline or by reference, and total length");

/* Every RC QP creation, the last INLINE_LIMIT_QPS, in order */
#define INLINE_LIMIT_QPS 64
struct inline_limit_qp {
	const struct ib_qp *qp;
	unsigned int seq;
	unsigned int side;
	int rc;
	struct ib_qp_cap asked;
	struct ib_qp_cap got;
	u32 write_sge;
	u32 read_sge;
};

static struct inline_limit_qp qps[INLINE_LIMIT_QPS];
static unsigned int qps_next;
static DEFINE_SPINLOCK(qps_lock);

/* The side whose rpcrdma function @fn is: svcrdma's are the server's
 * (svc_rdma_wc_receive(), qp_event_handler()), xprtrdma's the client's
 * (rpcrdma_wc_receive(); its QPs have no event handler)
 */
static unsigned int side_of(const void *fn)
{
	char name[64];

	if (!fn)
		return SIDE_OTHER;
	snprintf(name, sizeof(name), "%ps", fn);
	if (!strstr(name, "[rpcrdma]"))
		return SIDE_OTHER;
	return strncmp(name, "rpcrdma_", 8) ? SIDE_SERVER : SIDE_CLIENT;
}

static void qps_record(const struct ib_qp *qp, const struct ib_qp_init_attr *attr,
		       const struct ib_qp_cap *asked, int rc)
{
	struct inline_limit_qp *e;
	unsigned long flags;

	spin_lock_irqsave(&qps_lock, flags);
	e = &qps[qps_next % INLINE_LIMIT_QPS];
	e->qp = rc ? NULL : qp;
	e->seq = qps_next++;
	e->side = side_of(attr->event_handler);
	e->rc = rc;
	e->asked = *asked;
	e->got = attr->cap;
	e->write_sge = 0;
	e->read_sge = 0;
	spin_unlock_irqrestore(&qps_lock, flags);
}

/* @qp's record, newest first, or NULL; under qps_lock */
static struct inline_limit_qp *qps_find(const struct ib_qp *qp)
{
	unsigned int i;

	for (i = 1; i <= INLINE_LIMIT_QPS && i <= qps_next; i++) {
		struct inline_limit_qp *e = &qps[(qps_next - i) % INLINE_LIMIT_QPS];

		if (e->qp == qp)
			return e;
	}
	return NULL;
}

/* A Receive of @qp: a QP of no known side takes that of its handler */
static void qps_recv(const struct ib_qp *qp, const struct ib_recv_wr *wr)
{
	struct inline_limit_qp *e;
	unsigned long flags;

	spin_lock_irqsave(&qps_lock, flags);
	e = qps_find(qp);
	if (e && e->side == SIDE_OTHER && wr->wr_cqe)
		e->side = side_of(wr->wr_cqe->done);
	spin_unlock_irqrestore(&qps_lock, flags);
}

/* @qp's record, newest first: its caps, and the side; the SGE limits
 * its posts see are kept. Return: false if it was not recorded
 */
static bool qps_post(const struct ib_qp *qp, struct inline_limit_qp *out)
{
	struct inline_limit_qp *e;
	unsigned long flags;

	spin_lock_irqsave(&qps_lock, flags);
	e = qps_find(qp);
	if (e) {
		e->write_sge = qp->max_write_sge;
		e->read_sge = qp->max_read_sge;
		*out = *e;
	}
	spin_unlock_irqrestore(&qps_lock, flags);
	return e;
}

static int qps_get(char *buf, const struct kernel_param *kp)
{
	unsigned int i, first;
	int n = 0;

	spin_lock_irq(&qps_lock);
	first = qps_next > INLINE_LIMIT_QPS ? qps_next - INLINE_LIMIT_QPS : 0;
	for (i = first; i < qps_next; i++) {
		const struct inline_limit_qp *e = &qps[i % INLINE_LIMIT_QPS];

		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "%u %s rc=%d asked=%u,%u,%u,%u,%u got=%u,%u,%u,%u,%u write_sge=%u read_sge=%u\n",
			       e->seq, side_names[e->side], e->rc,
			       e->asked.max_send_sge, e->asked.max_send_wr,
			       e->asked.max_inline_data, e->asked.max_recv_sge,
			       e->asked.max_recv_wr, e->got.max_send_sge,
			       e->got.max_send_wr, e->got.max_inline_data,
			       e->got.max_recv_sge, e->got.max_recv_wr,
			       e->write_sge, e->read_sge);
	}
	spin_unlock_irq(&qps_lock);
	return n;
}

/* Writing anything forgets the creations listed (their QPs too) */
static int qps_set(const char *val, const struct kernel_param *kp)
{
	spin_lock_irq(&qps_lock);
	memset(qps, 0, sizeof(qps));
	qps_next = 0;
	spin_unlock_irq(&qps_lock);
	return 0;
}

static const struct kernel_param_ops qps_ops = {
	.set	= qps_set,
	.get	= qps_get,
};

module_param_cb(qps, &qps_ops, NULL, 0644);
MODULE_PARM_DESC(qps, "RC QP creations: N SIDE rc=ERR asked=SEND_SGE,SEND_WR,INLINE,RECV_SGE,RECV_WR got=... write_sge=N read_sge=N (as the QP's posts see them); write to clear");

/* An RDMA Write or Read WR: count it, and its SGEs against the ask */
static void rw_sges_count(const struct inline_limit_qp *rec, bool have,
			  const struct ib_send_wr *w)
{
	int max;

	atomic_inc(&rw_wrs);
	if (w->opcode == IB_WR_RDMA_READ) {
		atomic_inc(&read_wrs);
		atomic_add(w->num_sge, &read_sges);
	} else {
		atomic_inc(&write_wrs);
		atomic_add(w->num_sge, &write_sges);
	}
	do {
		max = atomic_read(&rw_sge_max);
	} while (w->num_sge > max &&
		 atomic_cmpxchg(&rw_sge_max, max, w->num_sge) != max);
	if (have && w->num_sge > rec->asked.max_send_sge)
		atomic_inc(&rw_sge_over);
}

/* mlx5's caps for @attr (calc_sq_size(), get_send_sge(), set_rq_size()) */
static int mlx5_model_caps(const struct ib_qp_init_attr *attr,
			   struct ib_qp_cap *cap)
{
	u32 size = MLX5_MODEL_SQ_OVERHEAD + MLX5_MODEL_DATA_SEG * cap->max_send_sge;
	u32 max_bbs = 1U << mlx5_log_max_qp_sz;
	u32 inl = 0, wqe, sge;
	unsigned long wq;

	if (cap->max_recv_wr > max_bbs)
		return -EINVAL;
	if (!cap->max_send_wr)
		return 0;
	if (cap->max_inline_data)
		inl = MLX5_MODEL_SQ_OVERHEAD + MLX5_MODEL_INLINE_SEG +
		      cap->max_inline_data;
	wqe = ALIGN(max(inl, size), MLX5_MODEL_WQE_BB);
	if (wqe > mlx5_max_wqe_sz_sq)
		return -EINVAL;
	cap->max_inline_data = wqe - MLX5_MODEL_SQ_OVERHEAD - MLX5_MODEL_INLINE_SEG;
	wq = roundup_pow_of_two((unsigned long)cap->max_send_wr * wqe);
	if (wq / MLX5_MODEL_WQE_BB > max_bbs)
		return -ENOMEM;
	sge = (min_t(u32, wqe, 512) - 32) / MLX5_MODEL_DATA_SEG;
	if (sge < cap->max_send_sge)
		return -ENOMEM;
	cap->max_send_sge = sge;
	cap->max_send_wr = wq / wqe;
	return 0;
}

/* irdma's refusals for @attr (irdma_validate_qp_attrs()) */
static int irdma_model_caps(const struct ib_qp_init_attr *attr,
			    struct ib_qp_cap *cap)
{
	unsigned int g = clamp(irdma_gen, 1U, 3U) - 1;

	if (cap->max_inline_data > irdma_model_gens[g].inline_max ||
	    cap->max_send_sge > irdma_model_gens[g].frags ||
	    cap->max_recv_sge > irdma_model_gens[g].frags)
		return -EINVAL;
	return 0;
}

/* What the model's driver checks at the post: the SGEs of every WR
 * against max_send_sge, a Send's inline data against max_inline_data.
 * The whole post fails, none of its WRs given to rxe.
 */
static int model_post_check(const struct inline_limit_qp *rec,
			    const struct ib_send_wr *wr,
			    const struct ib_send_wr **bad_wr)
{
	const struct ib_send_wr *w;
	u32 len;
	int i;

	for (w = wr; w; w = w->next) {
		if (w->num_sge > rec->got.max_send_sge) {
			atomic_inc(&post_sge_over);
			*bad_wr = wr;
			return -EINVAL;
		}
		if (!(w->send_flags & IB_SEND_INLINE) ||
		    (w->opcode != IB_WR_SEND && w->opcode != IB_WR_SEND_WITH_INV &&
		     w->opcode != IB_WR_SEND_WITH_IMM))
			continue;
		for (len = 0, i = 0; i < w->num_sge; i++)
			len += w->sg_list[i].length;
		if (len > rec->got.max_inline_data) {
			atomic_inc(&post_inline_over);
			*bad_wr = wr;
			return active_model == MODEL_MLX5 ? -ENOMEM : -EINVAL;
		}
	}
	return 0;
}

/* One WR of any kind an RC QP takes, for a copy of a chain */
union inline_limit_wr {
	struct ib_send_wr send;
	struct ib_rdma_wr rdma;
	struct ib_atomic_wr atomic;
	struct ib_reg_wr reg;
};

static size_t wr_size(const struct ib_send_wr *w)
{
	switch (w->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		return sizeof(struct ib_rdma_wr);
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return sizeof(struct ib_atomic_wr);
	case IB_WR_REG_MR:
		return sizeof(struct ib_reg_wr);
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		return sizeof(struct ib_send_wr);
	default:
		return 0;
	}
}

static bool truncates(const struct ib_send_wr *w)
{
	return (w->opcode == IB_WR_SEND || w->opcode == IB_WR_SEND_WITH_INV ||
		w->opcode == IB_WR_SEND_WITH_IMM) &&
	       (w->send_flags & IB_SEND_INLINE) && w->num_sge > 1;
}

static int (*saved_post_send)(struct ib_qp *qp,
			      const struct ib_send_wr *wr,
			      const struct ib_send_wr **bad_wr);

/* irdma before 6.2: post a copy of @wr's chain in which every inline
 * Send of several SGEs has only its first. rxe copies each WR and its
 * inline data at the post, so the copy can go once posted.
 */
static int post_truncated(struct ib_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	const struct ib_send_wr *w, *bad = NULL;
	union inline_limit_wr *copy;
	unsigned int n = 0, i;
	int ret;

	for (w = wr; w; w = w->next) {
		if (!wr_size(w))
			return saved_post_send(qp, wr, bad_wr);
		n++;
	}
	copy = kcalloc(n, sizeof(*copy), GFP_ATOMIC);
	if (!copy) {
		*bad_wr = wr;
		return -ENOMEM;
	}
	for (w = wr, i = 0; w; w = w->next, i++) {
		memcpy(&copy[i], w, wr_size(w));
		copy[i].send.next = i + 1 < n ? &copy[i + 1].send : NULL;
		if (truncates(w)) {
			copy[i].send.num_sge = 1;
			atomic_inc(&inline_truncated);
		}
	}
	ret = saved_post_send(qp, &copy[0].send, &bad);
	if (ret) {
		*bad_wr = wr;
		for (w = wr, i = 0; w && bad; w = w->next, i++)
			if (bad == &copy[i].send) {
				*bad_wr = w;
				break;
			}
	}
	kfree(copy);
	return ret;
}

/* The model's device attributes, and the rxe values they replace */
struct inline_limit_attrs {
	u32 vendor_id, vendor_part_id;
	int max_send_sge, max_sge_rd, max_qp_wr;
};

static struct inline_limit_attrs saved_attrs;

static void attrs_get(const struct ib_device *dev, struct inline_limit_attrs *a)
{
	a->vendor_id = dev->attrs.vendor_id;
	a->vendor_part_id = dev->attrs.vendor_part_id;
	a->max_send_sge = dev->attrs.max_send_sge;
	a->max_sge_rd = dev->attrs.max_sge_rd;
	a->max_qp_wr = dev->attrs.max_qp_wr;
}

static void attrs_set(struct ib_device *dev, const struct inline_limit_attrs *a)
{
	WRITE_ONCE(dev->attrs.vendor_id, a->vendor_id);
	WRITE_ONCE(dev->attrs.vendor_part_id, a->vendor_part_id);
	WRITE_ONCE(dev->attrs.max_send_sge, a->max_send_sge);
	WRITE_ONCE(dev->attrs.max_sge_rd, a->max_sge_rd);
	WRITE_ONCE(dev->attrs.max_qp_wr, a->max_qp_wr);
}

/* Is the running kernel's release MAJOR.MINOR or later? */
static bool release_at_least(unsigned int major, unsigned int minor)
{
	unsigned int ma = 0, mi = 0;

	if (sscanf(init_utsname()->release, "%u.%u", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/* The attributes mlx5_ib_query_device() or irdma_query_device() reports */
static void model_attrs(struct inline_limit_attrs *a)
{
	unsigned int g = clamp(irdma_gen, 1U, 3U) - 1;

	if (active_model == MODEL_MLX5) {
		a->vendor_id = 0x02c9;
		a->vendor_part_id = MLX5_MODEL_PART_ID;
		a->max_send_sge = (min(mlx5_max_wqe_sz_sq, 512U) - 32) / MLX5_MODEL_DATA_SEG;
		a->max_sge_rd = MLX5_MODEL_MAX_SGE_RD;
		a->max_qp_wr = 1 << mlx5_log_max_qp_sz;
		/* 6.12 on: mlx5_ib_calc_max_qp_wr(), the queue of WQEs of
		 * the largest overhead and one SGE (164 bytes, rounded to 256)
		 */
		if (release_at_least(6, 12))
			a->max_qp_wr = (1 << mlx5_log_max_qp_sz) * MLX5_MODEL_WQE_BB / 256;
	} else {
		a->vendor_id = PCI_VENDOR_ID_INTEL;
		a->vendor_part_id = 0x1592;	/* E810-C, ICE_DEV_ID_E810C_QSFP */
		a->max_send_sge = irdma_model_gens[g].frags;
		a->max_sge_rd = irdma_model_gens[g].read_sges;
	}
}

static struct ib_device *wrapped;
static enum rdma_driver_id saved_driver_id;
static int (*saved_create_qp)(struct ib_qp *qp,
			      struct ib_qp_init_attr *attr,
			      struct ib_udata *udata);
static int (*saved_post_recv)(struct ib_qp *qp,
			      const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr);

/* An emulated DMA read of a Send's message by the HCA */
static void inline_limit_delay(void)
{
	unsigned int ns = READ_ONCE(byref_delay_ns);
	u64 start, spent;

	if (!ns)
		return;
	/* By the clock that times it: at least D, more when the host
	 * does not run this vCPU meanwhile (a loaded TCG host stretched
	 * 2 ms to 2.8 and 3.7 ms on average), and what it lasted is kept
	 */
	start = ktime_get_ns();
	do {
		cpu_relax();
		spent = ktime_get_ns() - start;
	} while (spent < ns);
	atomic64_add(spent, &byref_delay_spent);
	atomic_inc(&byref_delays);
}

/* "NAME [MODULE]" for a function of a module: does it start with @want? */
static bool inline_limit_done_is(const struct ib_cqe *cqe, const char *want)
{
	size_t len = strcspn(want, "\n");
	char name[64];

	if (!cqe || !len)
		return false;
	snprintf(name, sizeof(name), "%ps", cqe->done);
	return !strncmp(name, want, len) &&
	       (name[len] == '\0' || name[len] == ' ');
}

/* The Send of @wr's chain, if its completion handler is fail_send_done */
static const struct ib_send_wr *inline_limit_send_match(const struct ib_send_wr *wr)
{
	for (; wr; wr = wr->next)
		if ((wr->opcode == IB_WR_SEND || wr->opcode == IB_WR_SEND_WITH_INV) &&
		    inline_limit_done_is(wr->wr_cqe, fail_send_done))
			return wr;
	return NULL;
}

static int inline_limit_post_send(struct ib_qp *qp,
				  const struct ib_send_wr *wr,
				  const struct ib_send_wr **bad_wr)
{
	struct inline_limit_qp rec;
	const struct ib_send_wr *w;
	bool behind_reg = false, have = false, trunc = false;
	unsigned int i;
	u32 len;
	int ret;

	if (qp->qp_type == IB_QPT_RC) {
		have = qps_post(qp, &rec);
		if (have && active_model) {
			ret = model_post_check(&rec, wr, bad_wr);
			if (ret)
				return ret;
		}
	}
	if (atomic_read(&fail_post_send) > 0 && qp->qp_type == IB_QPT_RC) {
		w = inline_limit_send_match(wr);
		if (w && atomic_add_unless(&fail_post_send, -1, 0)) {
			atomic_inc(&send_failed);
			if (w->send_flags & IB_SEND_INLINE)
				atomic_inc(&send_failed_inline);
			*bad_wr = wr;
			return -ENOMEM;
		}
	}

	/* Only connected QPs: the CM's MADs go as UD Sends on QP1 */
	for (w = wr; w && qp->qp_type == IB_QPT_RC; w = w->next) {
		switch (w->opcode) {
		case IB_WR_SEND:
		case IB_WR_SEND_WITH_IMM:
		case IB_WR_SEND_WITH_INV:
			for (len = 0, i = 0; i < w->num_sge; i++)
				len += w->sg_list[i].length;
			atomic_inc(&send_sizes[have ? rec.side : SIDE_OTHER]
					      [!!(w->send_flags & IB_SEND_INLINE)]
					      [size_class(len)]);
			if (active_model == MODEL_IRDMA && irdma_pre_6_2 &&
			    truncates(w))
				trunc = true;
			if (w->send_flags & IB_SEND_INLINE) {
				atomic_inc(&sends_inline);
				if (behind_reg)
					atomic_inc(&sends_reg_inline);
			} else {
				atomic_inc(&sends_byref);
				if (behind_reg)
					atomic_inc(&sends_reg_byref);
				inline_limit_delay();
			}
			break;
		case IB_WR_REG_MR:
			behind_reg = true;
			break;
		case IB_WR_RDMA_WRITE:
		case IB_WR_RDMA_WRITE_WITH_IMM:
		case IB_WR_RDMA_READ:
			rw_sges_count(&rec, have, w);
			break;
		default:
			break;
		}
	}
	if (trunc)
		return post_truncated(qp, wr, bad_wr);
	return saved_post_send(qp, wr, bad_wr);
}

/* model=...: refuse as its driver would, else give rxe the caps the
 * model writes back, then write them back over rxe's
 */
static int model_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			   struct ib_udata *udata)
{
	struct ib_qp_cap cap = attr->cap;
	int ret;

	if (active_model == MODEL_MLX5)
		ret = mlx5_model_caps(attr, &cap);
	else
		ret = irdma_model_caps(attr, &cap);
	if (ret) {
		atomic_inc(&model_refused);
		return ret;
	}
	attr->cap = cap;
	attr->cap.max_inline_data = min_t(u32, cap.max_inline_data,
					  RXE_MODEL_MAX_INLINE);
	ret = saved_create_qp(qp, attr, udata);
	attr->cap = cap;
	return ret;
}

static int inline_limit_create_qp(struct ib_qp *qp,
				  struct ib_qp_init_attr *attr,
				  struct ib_udata *udata)
{
	struct ib_qp_cap asked = attr->cap;
	bool rc = attr->qp_type == IB_QPT_RC;
	int ret;

	if (rc && attr->cap.max_inline_data > (u32)atomic_read(&max_asked))
		atomic_set(&max_asked, attr->cap.max_inline_data);
	if (rc) {
		asks_record(attr->cap.max_inline_data);
		if (atomic_add_unless(&fail_create, -1, 0)) {
			atomic_inc(&failed);
			ret = -(int)fail_errno;
			goto out;
		}
	}
	if (attr->cap.max_inline_data > limit || (refuse_all && rc)) {
		atomic_inc(&refused);
		ret = -EINVAL;
		goto out;
	}
	if (rc && active_model)
		ret = model_create_qp(qp, attr, udata);
	else
		ret = saved_create_qp(qp, attr, udata);
	if (!ret) {
		atomic_inc(&created);
		if (attr->cap.max_inline_data > limit)
			attr->cap.max_inline_data = limit;
		if (report && attr->cap.max_inline_data > report)
			attr->cap.max_inline_data = report;
		if (report_zero)
			attr->cap.max_inline_data = 0;
	}
out:
	if (rc)
		qps_record(qp, attr, &asked, ret);
	return ret;
}

/* The Receive's completion handler is named fail_recv_done */
static bool inline_limit_recv_match(const struct ib_recv_wr *wr)
{
	return inline_limit_done_is(wr->wr_cqe, fail_recv_done);
}

static int inline_limit_post_recv(struct ib_qp *qp,
				  const struct ib_recv_wr *wr,
				  const struct ib_recv_wr **bad_wr)
{
	if (wr && qp->qp_type == IB_QPT_RC)
		qps_recv(qp, wr);
	if (wr && atomic_read(&fail_post_recv) > 0 &&
	    inline_limit_recv_match(wr) &&
	    atomic_add_unless(&fail_post_recv, -1, 0)) {
		atomic_inc(&recv_failed);
		*bad_wr = wr;
		return -ENOMEM;
	}
	return saved_post_recv(qp, wr, bad_wr);
}

static int __init inline_limit_init(void)
{
	struct net_device *ndev;

	/* ib_device_get_by_name() is not exported from 7.x on */
	ndev = dev_get_by_name(&init_net, netdev);
	if (!ndev) {
		pr_err("no netdev named %s\n", netdev);
		return -ENODEV;
	}
	wrapped = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	dev_put(ndev);
	if (!wrapped) {
		pr_err("no RDMA device on %s\n", netdev);
		return -ENODEV;
	}
	if (!strcmp(model, "mlx5")) {
		active_model = MODEL_MLX5;
		if (driver_id < 0)
			driver_id = RDMA_DRIVER_MLX5;
	} else if (!strcmp(model, "irdma")) {
		active_model = MODEL_IRDMA;
		if (driver_id < 0)
			driver_id = RDMA_DRIVER_IRDMA;
	} else if (*model) {
		pr_err("model=%s: give mlx5 or irdma\n", model);
		ib_device_put(wrapped);
		return -EINVAL;
	}
	attrs_get(wrapped, &saved_attrs);
	if (active_model) {
		struct inline_limit_attrs a = saved_attrs;

		model_attrs(&a);
		attrs_set(wrapped, &a);
	}
	saved_create_qp = wrapped->ops.create_qp;
	saved_post_send = wrapped->ops.post_send;
	saved_post_recv = wrapped->ops.post_recv;
	saved_driver_id = wrapped->ops.driver_id;
	if (driver_id >= 0)
		WRITE_ONCE(wrapped->ops.driver_id, driver_id);
	WRITE_ONCE(wrapped->ops.create_qp, inline_limit_create_qp);
	WRITE_ONCE(wrapped->ops.post_send, inline_limit_post_send);
	WRITE_ONCE(wrapped->ops.post_recv, inline_limit_post_recv);
	pr_info("%s: model %s, inline data limit %u, driver_id %u%s; failing the next %d RC QP creations with -%u\n",
		dev_name(&wrapped->dev), *model ? model : "none", limit,
		wrapped->ops.driver_id,
		refuse_all ? ", refusing every RC QP" : "",
		atomic_read(&fail_create), fail_errno);
	return 0;
}

static void __exit inline_limit_exit(void)
{
	WRITE_ONCE(wrapped->ops.post_recv, saved_post_recv);
	WRITE_ONCE(wrapped->ops.post_send, saved_post_send);
	WRITE_ONCE(wrapped->ops.create_qp, saved_create_qp);
	WRITE_ONCE(wrapped->ops.driver_id, saved_driver_id);
	attrs_set(wrapped, &saved_attrs);
	pr_info("%s restored: QP creations %d refused, %d passed; Sends %d inline, %d by reference; behind a REG_MR %d inline, %d by reference\n",
		dev_name(&wrapped->dev), atomic_read(&refused),
		atomic_read(&created), atomic_read(&sends_inline),
		atomic_read(&sends_byref), atomic_read(&sends_reg_inline),
		atomic_read(&sends_reg_byref));
	ib_device_put(wrapped);
}

module_init(inline_limit_init);
module_exit(inline_limit_exit);
MODULE_DESCRIPTION("Test only: an RDMA device with a given inline limit and driver_id, counting Sends");
MODULE_LICENSE("Dual BSD/GPL");
