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
 * The device's create_qp, post_send and post_recv ops and its driver_id are
 * restored on unload, which must come before the device is
 * removed (the module holds a reference).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/processor.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
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

/* Each RC QP's max_send_sge as asked, by QP (the last 64 created) */
#define INLINE_LIMIT_QPS 64
static struct {
	const struct ib_qp *qp;
	u32 asked;
} qp_sges[INLINE_LIMIT_QPS];
static unsigned int qp_sges_next;
static DEFINE_SPINLOCK(qp_sges_lock);

static void qp_sges_record(const struct ib_qp *qp, u32 asked)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&qp_sges_lock, flags);
	for (i = 0; i < INLINE_LIMIT_QPS; i++)
		if (qp_sges[i].qp == qp)
			break;
	if (i == INLINE_LIMIT_QPS)
		i = qp_sges_next++ % INLINE_LIMIT_QPS;
	qp_sges[i].qp = qp;
	qp_sges[i].asked = asked;
	spin_unlock_irqrestore(&qp_sges_lock, flags);
}

/* @qp's max_send_sge as asked, or 0 if it was not recorded */
static u32 qp_sges_asked(const struct ib_qp *qp)
{
	unsigned long flags;
	unsigned int i;
	u32 asked = 0;

	spin_lock_irqsave(&qp_sges_lock, flags);
	for (i = 0; i < INLINE_LIMIT_QPS; i++)
		if (qp_sges[i].qp == qp)
			asked = qp_sges[i].asked;
	spin_unlock_irqrestore(&qp_sges_lock, flags);
	return asked;
}

/* An RDMA Write or Read WR of @qp: count it, and its SGEs against the ask */
static void rw_sges_count(const struct ib_qp *qp, const struct ib_send_wr *w)
{
	u32 asked = qp_sges_asked(qp);
	int max;

	atomic_inc(&rw_wrs);
	do {
		max = atomic_read(&rw_sge_max);
	} while (w->num_sge > max &&
		 atomic_cmpxchg(&rw_sge_max, max, w->num_sge) != max);
	if (asked && w->num_sge > asked)
		atomic_inc(&rw_sge_over);
}

static struct ib_device *wrapped;
static enum rdma_driver_id saved_driver_id;
static int (*saved_create_qp)(struct ib_qp *qp,
			      struct ib_qp_init_attr *attr,
			      struct ib_udata *udata);
static int (*saved_post_send)(struct ib_qp *qp,
			      const struct ib_send_wr *wr,
			      const struct ib_send_wr **bad_wr);
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
	const struct ib_send_wr *w;
	bool behind_reg = false;

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
			rw_sges_count(qp, w);
			break;
		default:
			break;
		}
	}
	return saved_post_send(qp, wr, bad_wr);
}

static int inline_limit_create_qp(struct ib_qp *qp,
				  struct ib_qp_init_attr *attr,
				  struct ib_udata *udata)
{
	int ret;

	if (attr->qp_type == IB_QPT_RC &&
	    attr->cap.max_inline_data > (u32)atomic_read(&max_asked))
		atomic_set(&max_asked, attr->cap.max_inline_data);
	if (attr->qp_type == IB_QPT_RC) {
		asks_record(attr->cap.max_inline_data);
		qp_sges_record(qp, attr->cap.max_send_sge);
		if (atomic_add_unless(&fail_create, -1, 0)) {
			atomic_inc(&failed);
			return -(int)fail_errno;
		}
	}
	if (attr->cap.max_inline_data > limit ||
	    (refuse_all && attr->qp_type == IB_QPT_RC)) {
		atomic_inc(&refused);
		return -EINVAL;
	}
	ret = saved_create_qp(qp, attr, udata);
	if (ret)
		return ret;
	atomic_inc(&created);
	if (attr->cap.max_inline_data > limit)
		attr->cap.max_inline_data = limit;
	if (report && attr->cap.max_inline_data > report)
		attr->cap.max_inline_data = report;
	if (report_zero)
		attr->cap.max_inline_data = 0;
	return 0;
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
	saved_create_qp = wrapped->ops.create_qp;
	saved_post_send = wrapped->ops.post_send;
	saved_post_recv = wrapped->ops.post_recv;
	saved_driver_id = wrapped->ops.driver_id;
	if (driver_id >= 0)
		WRITE_ONCE(wrapped->ops.driver_id, driver_id);
	WRITE_ONCE(wrapped->ops.create_qp, inline_limit_create_qp);
	WRITE_ONCE(wrapped->ops.post_send, inline_limit_post_send);
	WRITE_ONCE(wrapped->ops.post_recv, inline_limit_post_recv);
	pr_info("%s: inline data limit %u, driver_id %u%s; failing the next %d RC QP creations with -%u\n",
		dev_name(&wrapped->dev), limit,
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
