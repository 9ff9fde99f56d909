// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: inline data negotiation at QP creation, per-device
 * memory of what was granted, per-connection counters in debugfs, and
 * the module parameters.
 *
 * The verbs API has no attribute that reports how much inline data a
 * device accepts per Send WR: only a QP creation tells. So QPs are
 * created asking for inline_size bytes, and for less after each
 * refusal (see wqe_inline_policy.c). What a device accepted is kept
 * until the device goes away, so that later connections on it create
 * their QP at the first attempt.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "rpcrdma_wqe_inline.h"

#define CREATE_TRACE_POINTS
#include "rpcrdma_wqe_inline_trace.h"

#ifndef RPCRDMA_INLINE_VERSION
#define RPCRDMA_INLINE_VERSION "unknown"
#endif

/* The policy table names these drivers by number (6.1 has neither
 * name): check the numbers where this kernel has the names (Kbuild)
 */
#ifdef RPCRDMA_WQE_INLINE_HAVE_MANA
static_assert(RPCRDMA_WQE_INLINE_DRIVER_MANA == RDMA_DRIVER_MANA);
#endif
#ifdef RPCRDMA_WQE_INLINE_HAVE_IONIC
static_assert(RPCRDMA_WQE_INLINE_DRIVER_IONIC == RDMA_DRIVER_IONIC);
#endif

MODULE_VERSION(RPCRDMA_INLINE_VERSION);
MODULE_INFO(rpcrdma_inline, RPCRDMA_INLINE_VERSION);

static unsigned int rpcrdma_wqe_inline_size = RPCRDMA_WQE_INLINE_DEFAULT;
static bool rpcrdma_wqe_inline_server = true;
static bool rpcrdma_wqe_inline_client = true;

static int rpcrdma_wqe_inline_size_set(const char *val,
				       const struct kernel_param *kp)
{
	unsigned int size;

	if (kstrtouint(val, 0, &size) || !rpcrdma_wqe_inline_size_valid(size)) {
		pr_warn("inline_size=%.*s refused: give a number of bytes from 0 to %u; inline_size stays %u\n",
			(int)strcspn(val, "\n"), val, RPCRDMA_WQE_INLINE_MAX,
			READ_ONCE(*(unsigned int *)kp->arg));
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, size);
	return 0;
}

static const struct kernel_param_ops rpcrdma_wqe_inline_size_ops = {
	.set	= rpcrdma_wqe_inline_size_set,
	.get	= param_get_uint,
};

module_param_cb(inline_size, &rpcrdma_wqe_inline_size_ops,
		&rpcrdma_wqe_inline_size, 0644);
__MODULE_PARM_TYPE(inline_size, "uint");
MODULE_PARM_DESC(inline_size,
		 "Bytes of inline data to ask for per Send WR at QP creation (0 to 1024, default 256; 0: none, as the stock module). New connections only.");
/* The admin's opt-ins and opt-outs of drivers, and their lock */
static struct rpcrdma_wqe_inline_overrides rpcrdma_wqe_inline_overrides;
static DEFINE_SPINLOCK(rpcrdma_wqe_inline_overrides_lock);

static int rpcrdma_wqe_inline_drivers_set(const char *val,
					  const struct kernel_param *kp)
{
	struct rpcrdma_wqe_inline_overrides ov;
	const char *bad = val;
	int bad_len = 0;
	int ret;

	ret = rpcrdma_wqe_inline_overrides_parse(val, &ov, &bad, &bad_len);
	if (ret) {
		char old[128];

		spin_lock(&rpcrdma_wqe_inline_overrides_lock);
		rpcrdma_wqe_inline_overrides_print(&rpcrdma_wqe_inline_overrides,
						   old, sizeof(old));
		spin_unlock(&rpcrdma_wqe_inline_overrides_lock);
		pr_warn("inline_drivers=%.*s refused: %s '%.*s'; give DRIVER:on, DRIVER:alone or DRIVER:off, comma-separated, at most %u, DRIVER a name from 'devices' in debugfs or a driver_id number; inline_drivers stays '%s'\n",
			(int)strcspn(val, "\n"), val,
			ret == -E2BIG ? "too many drivers at" :
			"malformed or unknown driver in", bad_len, bad,
			RPCRDMA_WQE_INLINE_OVERRIDES, old);
		return ret;
	}
	spin_lock(&rpcrdma_wqe_inline_overrides_lock);
	rpcrdma_wqe_inline_overrides = ov;
	spin_unlock(&rpcrdma_wqe_inline_overrides_lock);
	return 0;
}

static int rpcrdma_wqe_inline_drivers_get(char *buf,
					  const struct kernel_param *kp)
{
	int n;

	spin_lock(&rpcrdma_wqe_inline_overrides_lock);
	n = rpcrdma_wqe_inline_overrides_print(&rpcrdma_wqe_inline_overrides,
					       buf, PAGE_SIZE - 1);
	spin_unlock(&rpcrdma_wqe_inline_overrides_lock);
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

static const struct kernel_param_ops rpcrdma_wqe_inline_drivers_ops = {
	.set	= rpcrdma_wqe_inline_drivers_set,
	.get	= rpcrdma_wqe_inline_drivers_get,
};

module_param_cb(inline_drivers, &rpcrdma_wqe_inline_drivers_ops, NULL, 0644);
__MODULE_PARM_TYPE(inline_drivers, "string");
MODULE_PARM_DESC(inline_drivers,
		 "Opt RDMA drivers in or out of inline Sends, overriding the built-in policy: DRIVER:on|alone|off[,...] (alone: only Sends alone in their post, not Calls behind their registrations), DRIVER a name (mlx5, bnxt_re, rxe, ...) or a driver_id number. New connections only.");

/* The verdict on @device's driver, with the admin's overrides */
static void rpcrdma_wqe_inline_decide_dev(const struct ib_device *device,
					  struct rpcrdma_wqe_inline_verdict *v)
{
	spin_lock(&rpcrdma_wqe_inline_overrides_lock);
	rpcrdma_wqe_inline_decide(device->ops.driver_id,
				  &rpcrdma_wqe_inline_overrides, v);
	spin_unlock(&rpcrdma_wqe_inline_overrides_lock);
}

module_param_named(server_inline, rpcrdma_wqe_inline_server, bool, 0644);
MODULE_PARM_DESC(server_inline,
		 "Post small server Replies inline (default Y). New connections only.");
module_param_named(client_inline, rpcrdma_wqe_inline_client, bool, 0644);
MODULE_PARM_DESC(client_inline,
		 "Post small client Calls inline (default Y). New connections only.");

/* Connections whose QP exists, for debugfs */
static HLIST_HEAD(rpcrdma_wqe_inline_conns);
static DEFINE_SPINLOCK(rpcrdma_wqe_inline_conns_lock);

/**
 * struct rpcrdma_wqe_inline_dev - an RDMA device, and what it accepted
 * @list: entry in rpcrdma_wqe_inline_devs
 * @device: the device; valid while listed (until our ib_client's remove)
 * @memo: the result of the last successful QP creation on it
 * @reported: the max_inline_data the device wrote back then
 */
struct rpcrdma_wqe_inline_dev {
	struct list_head		list;
	const struct ib_device		*device;
	struct rpcrdma_wqe_inline_memo	memo;
	u32				reported;
};

static LIST_HEAD(rpcrdma_wqe_inline_devs);
static DEFINE_MUTEX(rpcrdma_wqe_inline_devs_lock);

/* @device's entry: there is one from our ib_client's add to its remove,
 * unless it could not be allocated
 */
static struct rpcrdma_wqe_inline_dev *
rpcrdma_wqe_inline_dev_find(const struct ib_device *device)
{
	struct rpcrdma_wqe_inline_dev *dev;

	lockdep_assert_held(&rpcrdma_wqe_inline_devs_lock);
	list_for_each_entry(dev, &rpcrdma_wqe_inline_devs, list)
		if (dev->device == device)
			return dev;
	return NULL;
}

static void rpcrdma_wqe_inline_memo_get(const struct ib_device *device,
					struct rpcrdma_wqe_inline_memo *memo)
{
	struct rpcrdma_wqe_inline_dev *dev;

	memo->valid = false;
	mutex_lock(&rpcrdma_wqe_inline_devs_lock);
	dev = rpcrdma_wqe_inline_dev_find(device);
	if (dev)
		*memo = dev->memo;
	mutex_unlock(&rpcrdma_wqe_inline_devs_lock);
}

/* Only while the device is listed: an entry made for a device already
 * removed would outlive it. Without one the next connection probes again.
 */
static void rpcrdma_wqe_inline_memo_set(const struct ib_device *device,
					u32 want, u32 accepted, u32 reported)
{
	struct rpcrdma_wqe_inline_dev *dev;

	mutex_lock(&rpcrdma_wqe_inline_devs_lock);
	dev = rpcrdma_wqe_inline_dev_find(device);
	if (dev) {
		dev->memo.want = want;
		dev->memo.accepted = accepted;
		dev->memo.valid = true;
		dev->reported = reported;
	}
	mutex_unlock(&rpcrdma_wqe_inline_devs_lock);
}

/* Lists every device, so that 'devices' shows each one's verdict. Never
 * fails: ib_core calls no remove for a device whose add failed, and a
 * device that is not listed only loses the memory of its negotiation.
 */
static int rpcrdma_wqe_inline_add_one(struct ib_device *device)
{
	struct rpcrdma_wqe_inline_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return 0;
	dev->device = device;
	mutex_lock(&rpcrdma_wqe_inline_devs_lock);
	list_add_tail(&dev->list, &rpcrdma_wqe_inline_devs);
	mutex_unlock(&rpcrdma_wqe_inline_devs_lock);
	return 0;
}

static void rpcrdma_wqe_inline_remove_one(struct ib_device *device,
					  void *client_data)
{
	struct rpcrdma_wqe_inline_dev *dev;

	mutex_lock(&rpcrdma_wqe_inline_devs_lock);
	dev = rpcrdma_wqe_inline_dev_find(device);
	if (dev) {
		trace_rpcrdma_wqe_inline_forget(device);
		list_del(&dev->list);
		kfree(dev);
	}
	mutex_unlock(&rpcrdma_wqe_inline_devs_lock);
}

/* Tells when a device comes and goes, so that it is listed, and its memo
 * forgotten
 */
static struct ib_client rpcrdma_wqe_inline_ib_client = {
	.name	= "rpcrdma_inline",
	.add	= rpcrdma_wqe_inline_add_one,
	.remove	= rpcrdma_wqe_inline_remove_one,
};

static const char *rpcrdma_wqe_inline_side_name(enum rpcrdma_wqe_inline_side side)
{
	return side == RPCRDMA_WQE_INLINE_SERVER ? "server" : "client";
}

/* What @side asks for: inline_size, and on the server no more than a
 * Reply can use (one pulled-up SGE); on mlx5 every byte asked grows
 * every send WQE
 */
static u32 rpcrdma_wqe_inline_want(enum rpcrdma_wqe_inline_side side)
{
	u32 size = READ_ONCE(rpcrdma_wqe_inline_size);

	if (side == RPCRDMA_WQE_INLINE_CLIENT)
		return READ_ONCE(rpcrdma_wqe_inline_client) ? size : 0;
	if (!READ_ONCE(rpcrdma_wqe_inline_server))
		return 0;
	return min(size, RPCRDMA_WQE_INLINE_SERVER_MAX);
}

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
 * steps down after each refusal, restoring all of @attr before
 * every attempt (rdma_create_qp() may change it even when it fails).
 * With nothing to ask for (inline_size=0, the side switched off, or the
 * driver off), it is exactly one rdma_create_qp() call with @attr as
 * given. On success @attr holds what the device wrote
 * back, as after rdma_create_qp(), and @wi is listed in debugfs.
 *
 * Return: 0, or the error of the last attempt, which asked for no
 * inline data (logged, rate-limited, when sizes were negotiated).
 */
int rpcrdma_wqe_inline_create_qp(struct rpcrdma_wqe_inline *wi,
				 struct rdma_cm_id *id, struct ib_pd *pd,
				 struct ib_qp_init_attr *attr,
				 enum rpcrdma_wqe_inline_side side)
{
	u32 want = rpcrdma_wqe_inline_want(side);
	struct rpcrdma_wqe_inline_verdict verdict;
	struct rpcrdma_wqe_inline_memo memo;
	struct ib_qp_init_attr orig;
	u32 first, size;
	int ret;

	wi->side = side;
	wi->attempts = 0;
	rpcrdma_wqe_inline_decide_dev(id->device, &verdict);
	if (!want || !verdict.on) {
		size = attr->cap.max_inline_data;
		ret = rpcrdma_wqe_inline_try(wi, id, pd, attr, size);
		if (ret)
			return ret;
		wi->asked = size;
		wi->reported = attr->cap.max_inline_data;
		wi->max = 0;
		goto out;
	}

	rpcrdma_wqe_inline_memo_get(id->device, &memo);
	first = rpcrdma_wqe_inline_first_size(verdict.driver, want, &memo);
	size = first;
	orig = *attr;
	for (;;) {
		*attr = orig;
		attr->cap.max_inline_data = size;
		ret = rpcrdma_wqe_inline_try(wi, id, pd, attr, size);
		if (!ret || !size)
			break;
		size = rpcrdma_wqe_inline_next_size(verdict.driver, size);
	}
	if (ret) {
		/* Refused even without inline data: the connection fails */
		pr_warn_ratelimited("%s: %s QP creation failed at every inline data size from %u bytes down to 0 (%u attempts): error %d\n",
				    dev_name(&id->device->dev),
				    rpcrdma_wqe_inline_side_name(side),
				    first, wi->attempts, ret);
		return ret;
	}
	/* Refused at every size above 0: by reference, as the stock module */
	if (!size && wi->attempts > 1)
		pr_info_ratelimited("%s: %s QP created without inline data: the device refused every size from %u bytes down (%u attempts)\n",
				    dev_name(&id->device->dev),
				    rpcrdma_wqe_inline_side_name(side),
				    first, wi->attempts);
	wi->asked = size;
	wi->reported = attr->cap.max_inline_data;
	wi->max = rpcrdma_wqe_inline_usable(verdict.driver, size, wi->reported);
	wi->no_inv = verdict.driver && verdict.driver->no_inv;
	wi->behind_reg = verdict.behind_reg;
	rpcrdma_wqe_inline_memo_set(id->device, want, size, wi->reported);

out:
	memcpy(&wi->peer, &id->route.addr.dst_addr, sizeof(wi->peer));
	strscpy(wi->device, dev_name(&id->device->dev), sizeof(wi->device));
	memset(wi->sends, 0, sizeof(wi->sends));
	trace_rpcrdma_wqe_inline_granted(wi);

	spin_lock(&rpcrdma_wqe_inline_conns_lock);
	hlist_add_head(&wi->node, &rpcrdma_wqe_inline_conns);
	spin_unlock(&rpcrdma_wqe_inline_conns_lock);
	return 0;
}

/* The Sends of @wi: by how (inline, or why by reference) in @how, and by
 * size class in @size
 */
static void
rpcrdma_wqe_inline_sum(const struct rpcrdma_wqe_inline *wi,
		       long how[RPCRDMA_WQE_INLINE_HOW_NR],
		       long size[RPCRDMA_WQE_INLINE_SIZES])
{
	unsigned int h, c;
	long n;

	memset(how, 0, sizeof(long) * RPCRDMA_WQE_INLINE_HOW_NR);
	memset(size, 0, sizeof(long) * RPCRDMA_WQE_INLINE_SIZES);
	for (h = 0; h < RPCRDMA_WQE_INLINE_HOW_NR; h++)
		for (c = 0; c < RPCRDMA_WQE_INLINE_SIZES; c++) {
			n = atomic_long_read(&wi->sends[h][c]);
			how[h] += n;
			size[c] += n;
		}
}

/* Of @how's counts, the Sends posted by reference */
static long rpcrdma_wqe_inline_byref(const long how[RPCRDMA_WQE_INLINE_HOW_NR])
{
	long n = 0;
	unsigned int h;

	for (h = 0; h < RPCRDMA_WQE_INLINE_HOW_NR; h++)
		if (h != RPCRDMA_WQE_INLINE_HOW_INLINE)
			n += how[h];
	return n;
}

/**
 * rpcrdma_wqe_inline_release - take a connection off the debugfs list
 * @wi: the connection's inline state
 *
 * Call before freeing the structure that embeds @wi. Does nothing if
 * rpcrdma_wqe_inline_create_qp() did not succeed on it.
 */
void rpcrdma_wqe_inline_release(struct rpcrdma_wqe_inline *wi)
{
	long how[RPCRDMA_WQE_INLINE_HOW_NR], size[RPCRDMA_WQE_INLINE_SIZES];

	if (hlist_unhashed(&wi->node))
		return;
	if (trace_rpcrdma_wqe_inline_release_enabled()) {
		rpcrdma_wqe_inline_sum(wi, how, size);
		trace_rpcrdma_wqe_inline_release(wi,
						 how[RPCRDMA_WQE_INLINE_HOW_INLINE],
						 rpcrdma_wqe_inline_byref(how));
	}
	spin_lock(&rpcrdma_wqe_inline_conns_lock);
	hlist_del_init(&wi->node);
	spin_unlock(&rpcrdma_wqe_inline_conns_lock);
}

/**
 * rpcrdma_wqe_inline_posting - count a Send WR that is about to be posted
 * @wi: the connection's inline state
 * @send_wr: the Send WR, with its sg_list and send_flags final
 * @how: inline, or why by reference
 * @behind: other work goes ahead of it: the REG_MR WRs of a client Call
 *	    chained in front of it, or a server Reply's chunk data
 *
 * Called immediately before ib_post_send(): the WR is not read after
 * it is posted. One counter update per Send: by @how and size class.
 */
void rpcrdma_wqe_inline_posting(struct rpcrdma_wqe_inline *wi,
				const struct ib_send_wr *send_wr,
				enum rpcrdma_wqe_inline_how how, bool behind)
{
	u32 len = rpcrdma_wqe_inline_msg_len(send_wr->sg_list,
					     send_wr->num_sge);

	atomic_long_inc(&wi->sends[how][rpcrdma_wqe_inline_size_class(len)]);
	trace_rpcrdma_wqe_inline_post(wi, send_wr, how, len, behind);
}

static struct dentry *rpcrdma_wqe_inline_debugfs;

/* "server peer=... device=rxe0", the start of @wi's lines */
static void rpcrdma_wqe_inline_show_conn(struct seq_file *m,
					 const struct rpcrdma_wqe_inline *wi)
{
	seq_printf(m, "%s peer=%pISpc device=%s",
		   rpcrdma_wqe_inline_side_name(wi->side), &wi->peer,
		   wi->device);
}

/* One line per connection: what it was granted, its Sends inline and by
 * reference, why by reference, and their sizes
 */
static int connections_show(struct seq_file *m, void *v)
{
	long how[RPCRDMA_WQE_INLINE_HOW_NR], size[RPCRDMA_WQE_INLINE_SIZES];
	struct rpcrdma_wqe_inline *wi;
	unsigned int i;

	spin_lock(&rpcrdma_wqe_inline_conns_lock);
	hlist_for_each_entry(wi, &rpcrdma_wqe_inline_conns, node) {
		rpcrdma_wqe_inline_sum(wi, how, size);
		rpcrdma_wqe_inline_show_conn(m, wi);
		seq_printf(m, " asked=%u granted=%u max=%u attempts=%u inline=%ld byref=%ld",
			   wi->asked, wi->reported, wi->max, wi->attempts,
			   how[RPCRDMA_WQE_INLINE_HOW_INLINE],
			   rpcrdma_wqe_inline_byref(how));
		for (i = RPCRDMA_WQE_INLINE_HOW_INLINE + 1;
		     i < RPCRDMA_WQE_INLINE_HOW_NR; i++)
			seq_printf(m, " %s=%ld", rpcrdma_wqe_inline_how_name(i),
				   how[i]);
		for (i = 0; i < RPCRDMA_WQE_INLINE_SIZES; i++)
			seq_printf(m, " %s=%ld", rpcrdma_wqe_inline_size_name(i),
				   size[i]);
		seq_putc(m, '\n');
	}
	spin_unlock(&rpcrdma_wqe_inline_conns_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(connections);

/* Per connection, one line per how (inline, or why by reference) with
 * its Sends by size class: which inline size would catch what
 */
static int sends_show(struct seq_file *m, void *v)
{
	struct rpcrdma_wqe_inline *wi;
	unsigned int h, c;

	spin_lock(&rpcrdma_wqe_inline_conns_lock);
	hlist_for_each_entry(wi, &rpcrdma_wqe_inline_conns, node)
		for (h = 0; h < RPCRDMA_WQE_INLINE_HOW_NR; h++) {
			rpcrdma_wqe_inline_show_conn(m, wi);
			seq_printf(m, " how=%s", rpcrdma_wqe_inline_how_name(h));
			for (c = 0; c < RPCRDMA_WQE_INLINE_SIZES; c++)
				seq_printf(m, " %s=%ld",
					   rpcrdma_wqe_inline_size_name(c),
					   atomic_long_read(&wi->sends[h][c]));
			seq_putc(m, '\n');
		}
	spin_unlock(&rpcrdma_wqe_inline_conns_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sends);

static int devices_show(struct seq_file *m, void *v)
{
	struct rpcrdma_wqe_inline_verdict verdict;
	struct rpcrdma_wqe_inline_dev *dev;
	char num[12];

	mutex_lock(&rpcrdma_wqe_inline_devs_lock);
	list_for_each_entry(dev, &rpcrdma_wqe_inline_devs, list) {
		u32 driver_id = dev->device->ops.driver_id;

		rpcrdma_wqe_inline_decide_dev(dev->device, &verdict);
		seq_printf(m, "%s driver=%s policy=%s", dev_name(&dev->device->dev),
			   rpcrdma_wqe_inline_driver_name(driver_id, num,
							  sizeof(num)),
			   verdict.on ? "on" : "off");
		if (dev->memo.valid)
			seq_printf(m, " want=%u accepted=%u granted=%u",
				   dev->memo.want, dev->memo.accepted,
				   dev->reported);
		else
			seq_puts(m, " want=- accepted=- granted=-");
		seq_printf(m, " why=%s\n", verdict.why);
	}
	mutex_unlock(&rpcrdma_wqe_inline_devs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(devices);

/**
 * rpcrdma_wqe_inline_init - set up rpcrdma-inline when rpcrdma loads
 *
 * Return: 0 or a negative errno; rpcrdma does not load on failure.
 */
int rpcrdma_wqe_inline_init(void)
{
	struct dentry *dir;
	int ret;

	ret = ib_register_client(&rpcrdma_wqe_inline_ib_client);
	if (ret)
		return ret;

	/* debugfs is for people: rpcrdma works without it */
	dir = debugfs_create_dir("rpcrdma_inline", NULL);
	debugfs_create_file("connections", 0400, dir, NULL, &connections_fops);
	debugfs_create_file("devices", 0400, dir, NULL, &devices_fops);
	debugfs_create_file("sends", 0400, dir, NULL, &sends_fops);
	rpcrdma_wqe_inline_debugfs = dir;

	pr_info("rpcrdma-inline %s: inline_size=%u server_inline=%d client_inline=%d\n",
		RPCRDMA_INLINE_VERSION, READ_ONCE(rpcrdma_wqe_inline_size),
		READ_ONCE(rpcrdma_wqe_inline_server),
		READ_ONCE(rpcrdma_wqe_inline_client));
	return 0;
}

/**
 * rpcrdma_wqe_inline_exit - tear down rpcrdma-inline when rpcrdma unloads
 */
void rpcrdma_wqe_inline_exit(void)
{
	struct rpcrdma_wqe_inline_dev *dev, *next;

	debugfs_remove_recursive(rpcrdma_wqe_inline_debugfs);
	ib_unregister_client(&rpcrdma_wqe_inline_ib_client);

	mutex_lock(&rpcrdma_wqe_inline_devs_lock);
	list_for_each_entry_safe(dev, next, &rpcrdma_wqe_inline_devs, list) {
		list_del(&dev->list);
		kfree(dev);
	}
	mutex_unlock(&rpcrdma_wqe_inline_devs_lock);
}
