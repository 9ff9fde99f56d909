// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: the memo table, what a device granted to a QP shape,
 * kept for the next connection of that shape.
 *
 * Nothing here touches a device or a connection, so the same file is
 * built into rpcrdma.ko and into the userspace unit tests (tests/unit).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "rpcrdma_wqe_inline_policy.h"

static bool rpcrdma_wqe_inline_key_eq(const struct rpcrdma_wqe_inline_memo_key *a,
				      const struct rpcrdma_wqe_inline_memo_key *b)
{
	return a->side == b->side && a->max_send_wr == b->max_send_wr &&
	       a->max_send_sge == b->max_send_sge &&
	       a->max_rdma_ctxs == b->max_rdma_ctxs;
}

/**
 * rpcrdma_wqe_inline_memo_find - a device's memo for one side and shape
 * @memos: the device's memos
 * @n: how many there are
 * @key: the side and shape of the QP about to be created
 *
 * Return: the valid memo written for @key, or NULL: a memo of another
 * side or shape never applies.
 */
struct rpcrdma_wqe_inline_memo *
rpcrdma_wqe_inline_memo_find(struct rpcrdma_wqe_inline_memo *memos,
			     unsigned int n,
			     const struct rpcrdma_wqe_inline_memo_key *key)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (memos[i].valid && rpcrdma_wqe_inline_key_eq(&memos[i].key, key))
			return &memos[i];
	return NULL;
}

/**
 * rpcrdma_wqe_inline_memo_slot - where to write a memo for @key
 * @memos: the device's memos, oldest first
 * @n: how many there are, at least one
 * @key: the side and shape of the QP just created
 *
 * The memo of @key itself if there is one, else an unused one, else the
 * oldest: the others move down one, and the last is freed for @key.
 * The caller fills it, @key included.
 *
 * Return: the memo to write.
 */
struct rpcrdma_wqe_inline_memo *
rpcrdma_wqe_inline_memo_slot(struct rpcrdma_wqe_inline_memo *memos,
			     unsigned int n,
			     const struct rpcrdma_wqe_inline_memo_key *key)
{
	struct rpcrdma_wqe_inline_memo *memo;
	unsigned int i;

	memo = rpcrdma_wqe_inline_memo_find(memos, n, key);
	if (memo)
		return memo;
	for (i = 0; i < n; i++)
		if (!memos[i].valid)
			return &memos[i];
	for (i = 0; i + 1 < n; i++)
		memos[i] = memos[i + 1];
	memset(&memos[i], 0, sizeof(memos[i]));
	return &memos[i];
}

/**
 * rpcrdma_wqe_inline_memo_write - remember what a QP creation accepted
 * @memo: the memo of @key (from rpcrdma_wqe_inline_memo_slot())
 * @key: the side and shape of the QP created
 * @want: the inline_size asked for
 * @accepted: the size whose creation succeeded
 * @reported: the max_inline_data the device wrote back
 * @zero: what the device wrote back for @key with no inline data
 * @extra_wr: send WRs asked beyond @key's with inline data
 *
 * Call only after a negotiation whose failures were all refusals
 * (rpcrdma_wqe_inline_retry()). A result equal to the memo's keeps its
 * count of uses, so that every RPCRDMA_WQE_INLINE_REPROBE-th connection
 * still probes; a new one counts from 1.
 */
void rpcrdma_wqe_inline_memo_write(struct rpcrdma_wqe_inline_memo *memo,
				   const struct rpcrdma_wqe_inline_memo_key *key,
				   u32 want, u32 accepted, u32 reported,
				   const struct rpcrdma_wqe_inline_caps *zero,
				   u32 extra_wr)
{
	if (!memo->valid || !rpcrdma_wqe_inline_key_eq(&memo->key, key) ||
	    memo->want != want || memo->accepted != accepted)
		memo->uses = 1;
	memo->key = *key;
	memo->want = want;
	memo->accepted = accepted;
	memo->reported = reported;
	memo->zero = *zero;
	memo->extra_wr = extra_wr;
	memo->valid = true;
}
