// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test only: make the server find a client's Reply chunk too small, so
 * that svcrdma answers the Call with an RDMA_ERROR (ERR_CHUNK) reply
 * from svc_rdma_send_error_msg() instead of the Reply.
 *
 *   insmod small_reply_chunk.ko shrink=1
 *
 * A kprobe on svc_rdma_sendto() (rpcrdma must be loaded first) cuts the
 * Reply chunk of the next @shrink Calls that carry one to a single
 * segment of 4 bytes. Building the Reply chunk's RDMA Writes then runs
 * out of segments (-E2BIG) before anything is posted, and the error
 * reply is posted instead, after the Call's Write chunk data if it had
 * any. @shrunk counts the Calls cut. @shrink may be written again at
 * run time. Unload it before rpcrdma.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_rdma.h>

static atomic_t shrink = ATOMIC_INIT(0);
module_param_named(shrink, shrink.counter, int, 0644);
MODULE_PARM_DESC(shrink, "Reply chunks still to cut to 4 bytes");

static atomic_t shrunk = ATOMIC_INIT(0);
module_param_named(shrunk, shrunk.counter, int, 0444);
MODULE_PARM_DESC(shrunk, "Reply chunks cut so far");

static int small_reply_chunk_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct svc_rqst *rqstp = (struct svc_rqst *)regs_get_kernel_argument(regs, 0);
	struct svc_rdma_recv_ctxt *rctxt = rqstp->rq_xprt_ctxt;
	struct svc_rdma_chunk *chunk;

	if (!rctxt || pcl_is_empty(&rctxt->rc_reply_pcl))
		return 0;
	if (atomic_dec_if_positive(&shrink) < 0)
		return 0;
	chunk = pcl_first_chunk(&rctxt->rc_reply_pcl);
	chunk->ch_segcount = 1;
	chunk->ch_length = 4;
	chunk->ch_segments[0].rs_length = 4;
	atomic_inc(&shrunk);
	return 0;
}

static struct kprobe small_reply_chunk_kp = {
	.symbol_name	= "svc_rdma_sendto",
	.pre_handler	= small_reply_chunk_pre,
};

static int __init small_reply_chunk_init(void)
{
	int ret;

	ret = register_kprobe(&small_reply_chunk_kp);
	if (ret)
		pr_err("no kprobe on svc_rdma_sendto (is rpcrdma loaded?): %d\n", ret);
	return ret;
}

static void __exit small_reply_chunk_exit(void)
{
	unregister_kprobe(&small_reply_chunk_kp);
	pr_info("%d Reply chunks cut\n", atomic_read(&shrunk));
}

module_init(small_reply_chunk_init);
module_exit(small_reply_chunk_exit);
MODULE_DESCRIPTION("Test only: cut the next Reply chunks to 4 bytes, for svcrdma's error reply");
MODULE_LICENSE("Dual BSD/GPL");
