// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: the connections whose QP exists, and their Send
 * counters.
 *
 * Every Send of both sides is counted, even at inline_size=0, so the
 * counters are per CPU (as svcrdma's own statistics are percpu_counters):
 * a shared atomic would bounce one cache line between every nfsd thread
 * of a connection. They are summed only when read (debugfs, the release
 * tracepoint). If they cannot be allocated, the connection is made all
 * the same, as without this module, and its Sends go uncounted
 * ('counted=0' in 'connections').
 *
 * Per-CPU memory is taken for every possible CPU, which a large server
 * has hundreds of, so a connection counts only how its Sends went (64
 * bytes a CPU); their size classes, which tell what a larger inline size
 * would catch, are counted once per side for all connections.
 */

#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "rpcrdma_wqe_inline_core.h"
#include "rpcrdma_wqe_inline_trace.h"

/**
 * struct rpcrdma_wqe_inline_sends - a connection's Send counters, owned
 *	by the connection and by the debugfs readers summing them
 * @ref: the connection's reference, and one per reader summing
 * @pcpu: the counters, per CPU
 */
struct rpcrdma_wqe_inline_sends {
	refcount_t					ref;
	struct rpcrdma_wqe_inline_counts __percpu	*pcpu;
};

/* Connections whose QP exists, for debugfs, and how many */
static HLIST_HEAD(rpcrdma_wqe_inline_conns);
static DEFINE_SPINLOCK(rpcrdma_wqe_inline_conns_lock);
static unsigned int rpcrdma_wqe_inline_nconns;

/* One CPU's counts of each side's Sends by how and size class */
struct rpcrdma_wqe_inline_sides {
	struct rpcrdma_wqe_inline_sizes	side[RPCRDMA_WQE_INLINE_SIDES];
};

/* Since rpcrdma loaded; NULL when they could not be allocated */
static struct rpcrdma_wqe_inline_sides __percpu *rpcrdma_wqe_inline_sizes;

/**
 * rpcrdma_wqe_inline_counters_init - allocate the sides' size counters
 *
 * Without them rpcrdma works all the same, and 'sends' says so.
 */
void rpcrdma_wqe_inline_counters_init(void)
{
	rpcrdma_wqe_inline_sizes = alloc_percpu(struct rpcrdma_wqe_inline_sides);
}

/**
 * rpcrdma_wqe_inline_counters_exit - free the sides' size counters
 */
void rpcrdma_wqe_inline_counters_exit(void)
{
	free_percpu(rpcrdma_wqe_inline_sizes);
}

/**
 * rpcrdma_wqe_inline_sizes_sum - one side's Sends by how and size class
 * @sum: filled in, summed over the CPUs
 * @side: server or client
 *
 * Return: true, or false when they are not counted (@sum is zeroed).
 */
bool rpcrdma_wqe_inline_sizes_sum(struct rpcrdma_wqe_inline_sizes *sum,
				  enum rpcrdma_wqe_inline_side side)
{
	const struct rpcrdma_wqe_inline_sizes *c;
	unsigned int h, s;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	if (!rpcrdma_wqe_inline_sizes)
		return false;
	for_each_possible_cpu(cpu) {
		c = &per_cpu_ptr(rpcrdma_wqe_inline_sizes, cpu)->side[side];
		for (h = 0; h < RPCRDMA_WQE_INLINE_HOW_NR; h++)
			for (s = 0; s < RPCRDMA_WQE_INLINE_SIZES; s++)
				sum->n[h][s] += READ_ONCE(c->n[h][s]);
		for (s = 0; s < RPCRDMA_WQE_INLINE_SIZES; s++)
			sum->failed[s] += READ_ONCE(c->failed[s]);
	}
	return true;
}

/**
 * rpcrdma_wqe_inline_counters_alloc - give a connection its Send counters
 * @wi: the connection's inline state, before its QP is created
 * @gfp: allocation flags: GFP_KERNEL, or on the client's connect path
 *	 %RPCRDMA_WQE_INLINE_CONNECT_GFP, which takes no lock (percpu's
 *	 atomic pool)
 *
 * On failure @wi->sends stays NULL and the Sends are not counted.
 */
void rpcrdma_wqe_inline_counters_alloc(struct rpcrdma_wqe_inline *wi,
				       gfp_t gfp)
{
	struct rpcrdma_wqe_inline_sends *s;

	wi->sends = NULL;
	wi->sends_ref = NULL;
	s = kmalloc(sizeof(*s), gfp);
	if (!s)
		return;
	s->pcpu = alloc_percpu_gfp(struct rpcrdma_wqe_inline_counts, gfp);
	if (!s->pcpu) {
		kfree(s);
		return;
	}
	refcount_set(&s->ref, 1);
	wi->sends = s->pcpu;
	wi->sends_ref = s;
}

/* Drop a reference to a connection's counters; the last frees them */
static void rpcrdma_wqe_inline_sends_put(struct rpcrdma_wqe_inline_sends *s)
{
	if (s && refcount_dec_and_test(&s->ref)) {
		free_percpu(s->pcpu);
		kfree(s);
	}
}

/**
 * rpcrdma_wqe_inline_counters_free - drop a connection's Send counters
 * @wi: the connection's inline state, not listed
 *
 * They are freed now, or by the last debugfs reader summing them.
 */
void rpcrdma_wqe_inline_counters_free(struct rpcrdma_wqe_inline *wi)
{
	rpcrdma_wqe_inline_sends_put(wi->sends_ref);
	wi->sends = NULL;
	wi->sends_ref = NULL;
}

/**
 * rpcrdma_wqe_inline_conn_add - list a connection whose QP now exists
 * @wi: the connection's inline state, filled in
 */
void rpcrdma_wqe_inline_conn_add(struct rpcrdma_wqe_inline *wi)
{
	spin_lock(&rpcrdma_wqe_inline_conns_lock);
	hlist_add_head(&wi->node, &rpcrdma_wqe_inline_conns);
	rpcrdma_wqe_inline_nconns++;
	spin_unlock(&rpcrdma_wqe_inline_conns_lock);
}

/* Sends summed over the CPUs from @pcpu (NULL: not counted), by how */
static void rpcrdma_wqe_inline_sum(const struct rpcrdma_wqe_inline_counts __percpu *pcpu,
				   long sends[RPCRDMA_WQE_INLINE_HOW_NR])
{
	const struct rpcrdma_wqe_inline_counts *c;
	unsigned int h;
	int cpu;

	memset(sends, 0, sizeof(long) * RPCRDMA_WQE_INLINE_HOW_NR);
	if (!pcpu)
		return;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(pcpu, cpu);
		for (h = 0; h < RPCRDMA_WQE_INLINE_HOW_NR; h++)
			sends[h] += READ_ONCE(c->n[h]);
	}
}

/**
 * rpcrdma_wqe_inline_conns_snapshot - copy every listed connection's numbers
 *
 * Context: process (allocates with GFP_KERNEL). The connections lock is
 * held only for a walk of the list that copies each connection's fields
 * and takes a reference to its counters; they are summed over the CPUs
 * after it is dropped, so that a reader holds up connection setup and
 * teardown for no longer than that walk. A connection released
 * meanwhile leaves its counters to the last reference.
 *
 * Return: the copy, to be freed with kvfree(), or NULL when it could not
 * be allocated.
 */
struct rpcrdma_wqe_inline_conns_snap *rpcrdma_wqe_inline_conns_snapshot(void)
{
	struct rpcrdma_wqe_inline_conns_snap *snap;
	struct rpcrdma_wqe_inline_conn_snap *s;
	struct rpcrdma_wqe_inline *wi;
	unsigned int room, i;

	for (;;) {
		room = READ_ONCE(rpcrdma_wqe_inline_nconns) + 8;
		snap = kvzalloc(struct_size(snap, conn, room), GFP_KERNEL);
		if (!snap)
			return NULL;
		spin_lock(&rpcrdma_wqe_inline_conns_lock);
		if (rpcrdma_wqe_inline_nconns <= room)
			break;
		spin_unlock(&rpcrdma_wqe_inline_conns_lock);
		kvfree(snap);
	}
	hlist_for_each_entry(wi, &rpcrdma_wqe_inline_conns, node) {
		s = &snap->conn[snap->n++];
		memcpy(&s->peer, &wi->peer, sizeof(s->peer));
		memcpy(s->device, wi->device, sizeof(s->device));
		s->side = wi->side;
		s->asked = wi->asked;
		s->reported = wi->reported;
		s->max = wi->max;
		s->attempts = wi->attempts;
		s->counted = wi->sends_ref;
		s->ref = wi->sends_ref;
		if (s->ref)
			refcount_inc(&s->ref->ref);
	}
	spin_unlock(&rpcrdma_wqe_inline_conns_lock);

	for (i = 0; i < snap->n; i++) {
		s = &snap->conn[i];
		rpcrdma_wqe_inline_sum(s->ref ? s->ref->pcpu : NULL, s->sends);
		rpcrdma_wqe_inline_sends_put(s->ref);
		s->ref = NULL;
	}
	return snap;
}

/**
 * rpcrdma_wqe_inline_release - take a connection off the debugfs list
 * @wi: the connection's inline state
 *
 * Call before freeing the structure that embeds @wi, once nothing posts
 * on its QP any more; frees its counters. Does nothing if
 * rpcrdma_wqe_inline_create_qp() did not succeed on it.
 */
void rpcrdma_wqe_inline_release(struct rpcrdma_wqe_inline *wi)
{
	long sends[RPCRDMA_WQE_INLINE_HOW_NR];
	long n_byref = 0;
	unsigned int h;

	if (hlist_unhashed(&wi->node))
		return;
	spin_lock(&rpcrdma_wqe_inline_conns_lock);
	hlist_del_init(&wi->node);
	rpcrdma_wqe_inline_nconns--;
	spin_unlock(&rpcrdma_wqe_inline_conns_lock);
	if (trace_rpcrdma_wqe_inline_release_enabled()) {
		rpcrdma_wqe_inline_sum(wi->sends, sends);
		for (h = RPCRDMA_WQE_INLINE_HOW_INLINE + 1;
		     h < RPCRDMA_WQE_INLINE_HOW_NR; h++)
			n_byref += sends[h];
		trace_rpcrdma_wqe_inline_release(wi,
						 sends[RPCRDMA_WQE_INLINE_HOW_INLINE],
						 n_byref);
	}
	rpcrdma_wqe_inline_counters_free(wi);
}

/**
 * rpcrdma_wqe_inline_posting - trace a Send WR that is about to be posted
 * @wi: the connection's inline state
 * @send_wr: the Send WR, with its sg_list and send_flags final
 * @how: inline, or why by reference
 * @behind: other work goes ahead of it: the REG_MR WRs of a client Call
 *	    chained in front of it, or a server Reply's chunk data
 * @post: filled in, for rpcrdma_wqe_inline_posted()
 *
 * Called immediately before ib_post_send(): the WR is not read after
 * it is posted, so what its count needs is taken now.
 */
void rpcrdma_wqe_inline_posting(struct rpcrdma_wqe_inline *wi,
				const struct ib_send_wr *send_wr,
				enum rpcrdma_wqe_inline_how how, bool behind,
				struct rpcrdma_wqe_inline_post *post)
{
	u32 len = rpcrdma_wqe_inline_msg_len(send_wr->sg_list,
					     send_wr->num_sge);

	post->how = how;
	post->class = rpcrdma_wqe_inline_size_class(len);
	trace_rpcrdma_wqe_inline_post(wi, send_wr, how, len, behind);
}

/**
 * rpcrdma_wqe_inline_posted - count a Send WR once its post returned
 * @wi: the connection's inline state
 * @post: what rpcrdma_wqe_inline_posting() took from the WR
 * @ret: what ib_post_send() returned
 *
 * A Send the driver took: two per-CPU increments, the connection's by
 * how, and its side's by how and size class. A failed post took no
 * Send (the Send WR is the last of its chain, and the driver takes none
 * from the one that failed on): its side's failed count, by size class,
 * and a tracepoint. The connection's counts leave it out; xprtrdma and
 * svcrdma close a connection whose post failed.
 */
void rpcrdma_wqe_inline_posted(struct rpcrdma_wqe_inline *wi,
			       const struct rpcrdma_wqe_inline_post *post,
			       int ret)
{
	if (unlikely(ret)) {
		if (likely(rpcrdma_wqe_inline_sizes))
			this_cpu_inc(rpcrdma_wqe_inline_sizes->side[wi->side].failed[post->class]);
		trace_rpcrdma_wqe_inline_post_err(wi, post->how, ret);
		return;
	}
	if (likely(wi->sends))
		this_cpu_inc(wi->sends->n[post->how]);
	if (likely(rpcrdma_wqe_inline_sizes))
		this_cpu_inc(rpcrdma_wqe_inline_sizes->side[wi->side].n[post->how][post->class]);
}
