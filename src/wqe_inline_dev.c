// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: the RDMA devices, and what each accepted.
 *
 * No verbs attribute reports how much inline data a device accepts per
 * Send WR: only a QP creation tells. What one accepted is kept per side
 * and QP shape (struct rpcrdma_wqe_inline_memo_key), so that later
 * connections of that side and shape create their QP at the first
 * attempt, and one side or shape never lowers another's; every
 * RPCRDMA_WQE_INLINE_REPROBE-th connection started from a memo below
 * inline_size probes from inline_size again. Memos last until the device
 * goes away (our ib_client's remove).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "rpcrdma_wqe_inline_core.h"
#include "rpcrdma_wqe_inline_trace.h"

/**
 * struct rpcrdma_wqe_inline_dev - an RDMA device, and what it accepted
 * @list: entry in rpcrdma_wqe_inline_devs
 * @device: the device; valid while listed (until our ib_client's remove)
 * @last: the memo written last, for 'devices'
 * @memos: what it accepted, per side and QP shape, oldest first
 */
struct rpcrdma_wqe_inline_dev {
	struct list_head		list;
	const struct ib_device		*device;
	struct rpcrdma_wqe_inline_memo	last;
	struct rpcrdma_wqe_inline_memo	memos[RPCRDMA_WQE_INLINE_MEMOS];
};

static LIST_HEAD(rpcrdma_wqe_inline_devs);
/* A spinlock: taken on the client's connect path (which may run for swap
 * over NFS), it is never held across an allocation or a sleep
 */
static DEFINE_SPINLOCK(rpcrdma_wqe_inline_devs_lock);
static unsigned int rpcrdma_wqe_inline_ndevs;

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

/**
 * rpcrdma_wqe_inline_memo_get - what a device accepted for a side and shape
 * @device: the RDMA device
 * @key: the side and shape of the QP about to be created
 * @memo: filled with the memo (valid false when there is none); the
 *	  stored memo counts this use
 */
void rpcrdma_wqe_inline_memo_get(const struct ib_device *device,
				 const struct rpcrdma_wqe_inline_memo_key *key,
				 struct rpcrdma_wqe_inline_memo *memo)
{
	struct rpcrdma_wqe_inline_memo *found = NULL;
	struct rpcrdma_wqe_inline_dev *dev;

	spin_lock(&rpcrdma_wqe_inline_devs_lock);
	dev = rpcrdma_wqe_inline_dev_find(device);
	if (dev)
		found = rpcrdma_wqe_inline_memo_find(dev->memos,
						     ARRAY_SIZE(dev->memos), key);
	if (found) {
		*memo = *found;
		found->uses++;
	} else {
		memset(memo, 0, sizeof(*memo));
	}
	spin_unlock(&rpcrdma_wqe_inline_devs_lock);
}

/**
 * rpcrdma_wqe_inline_memo_set - remember what a device accepted
 * @device: the RDMA device
 * @key: the side and shape of the QP created
 * @want: the inline_size asked for
 * @accepted: the size whose creation succeeded
 * @reported: the max_inline_data the device wrote back
 * @zero: what the device writes back for @key with no inline data
 * @extra_wr: send WRs asked beyond @key's with inline data
 *
 * Only after a negotiation whose failures were all refusals, and only
 * while the device is listed: an entry made for a device already
 * removed would outlive it. Without one the next connection probes.
 */
void rpcrdma_wqe_inline_memo_set(const struct ib_device *device,
				 const struct rpcrdma_wqe_inline_memo_key *key,
				 u32 want, u32 accepted, u32 reported,
				 const struct rpcrdma_wqe_inline_caps *zero,
				 u32 extra_wr)
{
	struct rpcrdma_wqe_inline_memo *memo;
	struct rpcrdma_wqe_inline_dev *dev;

	spin_lock(&rpcrdma_wqe_inline_devs_lock);
	dev = rpcrdma_wqe_inline_dev_find(device);
	if (dev) {
		memo = rpcrdma_wqe_inline_memo_slot(dev->memos,
						    ARRAY_SIZE(dev->memos), key);
		rpcrdma_wqe_inline_memo_write(memo, key, want, accepted,
					      reported, zero, extra_wr);
		dev->last = *memo;
	}
	spin_unlock(&rpcrdma_wqe_inline_devs_lock);
}

/**
 * rpcrdma_wqe_inline_devs_snapshot - copy every listed device's entry
 *
 * Context: process (allocates with GFP_KERNEL), for debugfs, which
 * formats the copy without the lock.
 *
 * Return: the copy, to be freed with kvfree(), or NULL when it could not
 * be allocated.
 */
struct rpcrdma_wqe_inline_devs_snap *rpcrdma_wqe_inline_devs_snapshot(void)
{
	struct rpcrdma_wqe_inline_devs_snap *snap;
	struct rpcrdma_wqe_inline_dev_snap *s;
	struct rpcrdma_wqe_inline_dev *dev;
	unsigned int room;

	for (;;) {
		room = READ_ONCE(rpcrdma_wqe_inline_ndevs) + 2;
		snap = kvzalloc(struct_size(snap, dev, room), GFP_KERNEL);
		if (!snap)
			return NULL;
		spin_lock(&rpcrdma_wqe_inline_devs_lock);
		if (rpcrdma_wqe_inline_ndevs <= room)
			break;
		spin_unlock(&rpcrdma_wqe_inline_devs_lock);
		kvfree(snap);
	}
	list_for_each_entry(dev, &rpcrdma_wqe_inline_devs, list) {
		s = &snap->dev[snap->n++];
		strscpy(s->name, dev_name(&dev->device->dev), sizeof(s->name));
		s->driver_id = dev->device->ops.driver_id;
		s->last = dev->last;
		memcpy(s->memos, dev->memos, sizeof(s->memos));
	}
	spin_unlock(&rpcrdma_wqe_inline_devs_lock);
	return snap;
}

/* Says in the kernel log when a driver the table allows gets no inline
 * Sends on this kernel, and why: at load for the devices present, later
 * for each device that comes
 */
static void rpcrdma_wqe_inline_log_verdict(const struct ib_device *device)
{
	const struct rpcrdma_wqe_inline_kernel *k = rpcrdma_wqe_inline_this_kernel();
	struct rpcrdma_wqe_inline_verdict v;
	char series[32];

	rpcrdma_wqe_inline_decide_id(device->ops.driver_id, &v);
	if (!v.kernel_off)
		return;
	rpcrdma_wqe_inline_series_print(v.driver->series, series,
					sizeof(series));
	pr_info("%s: %s: no inline Sends on Linux %u.%u.%u%s%s: %s (audited: %s)\n",
		dev_name(&device->dev), v.driver->name, k->version >> 16,
		(k->version >> 8) & 0xff, k->version & 0xff,
		k->vendor ? " " : "", k->vendor ?: "", v.why, series);
}

/* Lists every device, so that 'devices' shows each one's verdict. Never
 * fails: ib_core calls no remove for a device whose add failed, and a
 * device that is not listed only loses the memory of its negotiation.
 */
static int rpcrdma_wqe_inline_add_one(struct ib_device *device)
{
	struct rpcrdma_wqe_inline_dev *dev;

	rpcrdma_wqe_inline_log_verdict(device);

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return 0;
	dev->device = device;
	spin_lock(&rpcrdma_wqe_inline_devs_lock);
	list_add_tail(&dev->list, &rpcrdma_wqe_inline_devs);
	rpcrdma_wqe_inline_ndevs++;
	spin_unlock(&rpcrdma_wqe_inline_devs_lock);
	return 0;
}

static void rpcrdma_wqe_inline_remove_one(struct ib_device *device,
					  void *client_data)
{
	struct rpcrdma_wqe_inline_dev *dev;

	spin_lock(&rpcrdma_wqe_inline_devs_lock);
	dev = rpcrdma_wqe_inline_dev_find(device);
	if (dev) {
		trace_rpcrdma_wqe_inline_forget(device);
		list_del(&dev->list);
		rpcrdma_wqe_inline_ndevs--;
		kfree(dev);
	}
	spin_unlock(&rpcrdma_wqe_inline_devs_lock);
}

/* Tells when a device comes and goes, so that it is listed, and its
 * memos forgotten
 */
static struct ib_client rpcrdma_wqe_inline_ib_client = {
	.name	= "rpcrdma_inline",
	.add	= rpcrdma_wqe_inline_add_one,
	.remove	= rpcrdma_wqe_inline_remove_one,
};

/**
 * rpcrdma_wqe_inline_devs_init - start listing RDMA devices
 *
 * Return: 0 or the error of ib_register_client().
 */
int rpcrdma_wqe_inline_devs_init(void)
{
	return ib_register_client(&rpcrdma_wqe_inline_ib_client);
}

/**
 * rpcrdma_wqe_inline_devs_exit - stop listing RDMA devices, forget them
 */
void rpcrdma_wqe_inline_devs_exit(void)
{
	struct rpcrdma_wqe_inline_dev *dev, *next;

	ib_unregister_client(&rpcrdma_wqe_inline_ib_client);

	spin_lock(&rpcrdma_wqe_inline_devs_lock);
	list_for_each_entry_safe(dev, next, &rpcrdma_wqe_inline_devs, list) {
		list_del(&dev->list);
		kfree(dev);
	}
	rpcrdma_wqe_inline_ndevs = 0;
	spin_unlock(&rpcrdma_wqe_inline_devs_lock);
}
