// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: debugfs, in /sys/kernel/debug/rpcrdma_inline/.
 *
 *   connections  one line per connection: what it was granted, its Sends
 *                inline and by reference, why by reference
 *   sends        per side, one line per how: the Sends of all connections
 *                since rpcrdma loaded, by size class
 *   devices      one line per RDMA device: its verdict, the memo written
 *                last, the kernel series its driver's source was read
 *                for, and why
 *   memos        one line per device, side and QP shape remembered, with
 *                what the shape gets with no inline data (stock's QP)
 *
 * Each file is read from a copy taken when it is opened (the locks are
 * held only to copy: wqe_inline_counters.c, wqe_inline_dev.c), one record
 * per seq_file iteration, so a reader holds up no connection setup.
 */

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>

#include "rpcrdma_wqe_inline_core.h"

static struct dentry *rpcrdma_wqe_inline_debugfs;

/* seq_file iteration over a copy: m->private is the copy, *pos the
 * record's index
 */
static void *rpcrdma_wqe_inline_conns_start(struct seq_file *m, loff_t *pos)
{
	struct rpcrdma_wqe_inline_conns_snap *snap = m->private;

	return *pos < snap->n ? &snap->conn[*pos] : NULL;
}

static void *rpcrdma_wqe_inline_conns_next(struct seq_file *m, void *v,
					   loff_t *pos)
{
	++*pos;
	return rpcrdma_wqe_inline_conns_start(m, pos);
}

static void rpcrdma_wqe_inline_stop(struct seq_file *m, void *v)
{
}

/* "server peer=... device=rxe0", the start of a connection's lines */
static void rpcrdma_wqe_inline_show_conn(struct seq_file *m,
					 const struct rpcrdma_wqe_inline_conn_snap *c)
{
	seq_printf(m, "%s peer=%pISpc device=%s",
		   rpcrdma_wqe_inline_side_name(c->side), &c->peer, c->device);
}

/* One line per connection: what it was granted, its Sends inline and by
 * reference, and why by reference
 */
static int rpcrdma_wqe_inline_connections_show(struct seq_file *m, void *v)
{
	const struct rpcrdma_wqe_inline_conn_snap *c = v;
	long byref = 0;
	unsigned int h;

	for (h = RPCRDMA_WQE_INLINE_HOW_INLINE + 1; h < RPCRDMA_WQE_INLINE_HOW_NR; h++)
		byref += c->sends[h];
	rpcrdma_wqe_inline_show_conn(m, c);
	seq_printf(m, " asked=%u granted=%u max=%u attempts=%u inline=%ld byref=%ld",
		   c->asked, c->reported, c->max, c->attempts,
		   c->sends[RPCRDMA_WQE_INLINE_HOW_INLINE], byref);
	for (h = RPCRDMA_WQE_INLINE_HOW_INLINE + 1; h < RPCRDMA_WQE_INLINE_HOW_NR; h++)
		seq_printf(m, " %s=%ld", rpcrdma_wqe_inline_how_name(h), c->sends[h]);
	seq_printf(m, " counted=%d\n", c->counted);
	return 0;
}

/* "server how=inline le64=0 ... counted=1": one line of 'sends' */
static void rpcrdma_wqe_inline_sends_line(struct seq_file *m, unsigned int side,
					  const char *how, const long *n,
					  bool counted)
{
	unsigned int s;

	seq_printf(m, "%s how=%s", rpcrdma_wqe_inline_side_name(side), how);
	for (s = 0; s < RPCRDMA_WQE_INLINE_SIZES; s++)
		seq_printf(m, " %s=%ld", rpcrdma_wqe_inline_size_name(s), n[s]);
	seq_printf(m, " counted=%d\n", counted);
}

/* Per side, one line per how (inline, or why by reference) with the
 * Sends of all its connections since rpcrdma loaded, by size class:
 * which inline size would catch what; then how=failed, the Sends whose
 * post failed (counted under no other how)
 */
static int rpcrdma_wqe_inline_sends_show(struct seq_file *m, void *v)
{
	struct rpcrdma_wqe_inline_sizes sum;
	unsigned int side, h;
	bool counted;

	for (side = 0; side < RPCRDMA_WQE_INLINE_SIDES; side++) {
		counted = rpcrdma_wqe_inline_sizes_sum(&sum, side);
		for (h = 0; h < RPCRDMA_WQE_INLINE_HOW_NR; h++)
			rpcrdma_wqe_inline_sends_line(m, side,
						      rpcrdma_wqe_inline_how_name(h),
						      sum.n[h], counted);
		rpcrdma_wqe_inline_sends_line(m, side, "failed", sum.failed,
					      counted);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rpcrdma_wqe_inline_sends);

static const struct seq_operations rpcrdma_wqe_inline_connections_sops = {
	.start	= rpcrdma_wqe_inline_conns_start,
	.next	= rpcrdma_wqe_inline_conns_next,
	.stop	= rpcrdma_wqe_inline_stop,
	.show	= rpcrdma_wqe_inline_connections_show,
};

static void *rpcrdma_wqe_inline_devs_start(struct seq_file *m, loff_t *pos)
{
	struct rpcrdma_wqe_inline_devs_snap *snap = m->private;

	return *pos < snap->n ? &snap->dev[*pos] : NULL;
}

static void *rpcrdma_wqe_inline_devs_next(struct seq_file *m, void *v,
					  loff_t *pos)
{
	++*pos;
	return rpcrdma_wqe_inline_devs_start(m, pos);
}

static int rpcrdma_wqe_inline_devices_show(struct seq_file *m, void *v)
{
	const struct rpcrdma_wqe_inline_dev_snap *d = v;
	struct rpcrdma_wqe_inline_verdict verdict;
	char num[12], series[32];

	rpcrdma_wqe_inline_decide_id(d->driver_id, &verdict);
	seq_printf(m, "%s driver=%s policy=%s behind_reg=%s", d->name,
		   rpcrdma_wqe_inline_driver_name(d->driver_id, num, sizeof(num)),
		   verdict.on ? "on" : "off", verdict.behind_reg ? "on" : "off");
	if (d->last.valid)
		seq_printf(m, " want=%u accepted=%u granted=%u", d->last.want,
			   d->last.accepted, d->last.reported);
	else
		seq_puts(m, " want=- accepted=- granted=-");
	rpcrdma_wqe_inline_series_print(verdict.driver ?
					verdict.driver->series : 0,
					series, sizeof(series));
	seq_printf(m, " audited=%s why=%s\n", series, verdict.why);
	return 0;
}

/* One line per device, side and QP shape remembered */
static int rpcrdma_wqe_inline_memos_show(struct seq_file *m, void *v)
{
	const struct rpcrdma_wqe_inline_dev_snap *d = v;
	const struct rpcrdma_wqe_inline_memo *memo;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(d->memos); i++) {
		memo = &d->memos[i];
		if (!memo->valid)
			continue;
		seq_printf(m, "%s side=%s max_send_wr=%u max_send_sge=%u max_rdma_ctxs=%u want=%u accepted=%u granted=%u uses=%u",
			   d->name, rpcrdma_wqe_inline_side_name(memo->key.side),
			   memo->key.max_send_wr, memo->key.max_send_sge,
			   memo->key.max_rdma_ctxs,
			   memo->want, memo->accepted, memo->reported,
			   memo->uses);
		/* What the shape gets with no inline data: the stock QP */
		seq_printf(m, " stock_send_wr=%u stock_send_sge=%u stock_write_sge=%u stock_read_sge=%u stock_inline=%u extra_wr=%u\n",
			   memo->zero.max_send_wr, memo->zero.max_send_sge,
			   memo->zero.max_write_sge, memo->zero.max_read_sge,
			   memo->zero.max_inline_data, memo->extra_wr);
	}
	return 0;
}

static const struct seq_operations rpcrdma_wqe_inline_devices_sops = {
	.start	= rpcrdma_wqe_inline_devs_start,
	.next	= rpcrdma_wqe_inline_devs_next,
	.stop	= rpcrdma_wqe_inline_stop,
	.show	= rpcrdma_wqe_inline_devices_show,
};

static const struct seq_operations rpcrdma_wqe_inline_memos_sops = {
	.start	= rpcrdma_wqe_inline_devs_start,
	.next	= rpcrdma_wqe_inline_devs_next,
	.stop	= rpcrdma_wqe_inline_stop,
	.show	= rpcrdma_wqe_inline_memos_show,
};

/* Open: take the copy the file is read from */
static int rpcrdma_wqe_inline_open(struct inode *inode, struct file *file)
{
	const struct seq_operations *sops = inode->i_private;
	struct seq_file *m;
	void *snap;
	int ret;

	if (sops == &rpcrdma_wqe_inline_connections_sops)
		snap = rpcrdma_wqe_inline_conns_snapshot();
	else
		snap = rpcrdma_wqe_inline_devs_snapshot();
	if (!snap)
		return -ENOMEM;
	ret = seq_open(file, sops);
	if (ret) {
		kvfree(snap);
		return ret;
	}
	m = file->private_data;
	m->private = snap;
	return 0;
}

static int rpcrdma_wqe_inline_release_file(struct inode *inode,
					   struct file *file)
{
	struct seq_file *m = file->private_data;

	kvfree(m->private);
	return seq_release(inode, file);
}

static const struct file_operations rpcrdma_wqe_inline_fops = {
	.owner		= THIS_MODULE,
	.open		= rpcrdma_wqe_inline_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= rpcrdma_wqe_inline_release_file,
};

/**
 * rpcrdma_wqe_inline_debugfs_init - create /sys/kernel/debug/rpcrdma_inline
 *
 * debugfs is for people: rpcrdma works without it, so nothing fails.
 */
void rpcrdma_wqe_inline_debugfs_init(void)
{
	struct dentry *dir;

	dir = debugfs_create_dir("rpcrdma_inline", NULL);
	debugfs_create_file("connections", 0400, dir,
			    (void *)&rpcrdma_wqe_inline_connections_sops,
			    &rpcrdma_wqe_inline_fops);
	debugfs_create_file("devices", 0400, dir,
			    (void *)&rpcrdma_wqe_inline_devices_sops,
			    &rpcrdma_wqe_inline_fops);
	debugfs_create_file("memos", 0400, dir,
			    (void *)&rpcrdma_wqe_inline_memos_sops,
			    &rpcrdma_wqe_inline_fops);
	debugfs_create_file("sends", 0400, dir, NULL,
			    &rpcrdma_wqe_inline_sends_fops);
	rpcrdma_wqe_inline_debugfs = dir;
}

/**
 * rpcrdma_wqe_inline_debugfs_exit - remove /sys/kernel/debug/rpcrdma_inline
 */
void rpcrdma_wqe_inline_debugfs_exit(void)
{
	debugfs_remove_recursive(rpcrdma_wqe_inline_debugfs);
}
