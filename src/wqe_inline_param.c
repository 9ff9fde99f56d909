// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rpcrdma-inline: the module parameters (inline_size, inline_drivers,
 * server_inline, client_inline), and what they make of a connection.
 *
 * A bad value is refused with -EINVAL when written at run time, and the
 * old value stays. A bad value given at load (modprobe arguments,
 * /etc/modprobe.d) is logged and the default kept: refusing it there
 * would make load_module() fail, and rpcrdma, with NFS over RDMA, would
 * not load for a typo.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/version.h>

#include "rpcrdma_wqe_inline_core.h"

static unsigned int rpcrdma_wqe_inline_size = RPCRDMA_WQE_INLINE_DEFAULT;
static bool rpcrdma_wqe_inline_server = true;
static bool rpcrdma_wqe_inline_client = true;

/* Parameters given at load are parsed before the module's init runs:
 * by load_module() for a module, by parse_args() at boot when built in.
 * Writes through sysfs come after init (but for one made while rpcrdma's
 * init runs, taken for one at load).
 */
static bool rpcrdma_wqe_inline_loaded;

static bool rpcrdma_wqe_inline_loading(void)
{
	return !READ_ONCE(rpcrdma_wqe_inline_loaded);
}

/* The value as it may be printed: up to its newline; "" for a parameter
 * given without "=" (KERNEL_PARAM_OPS_FL_NOARG: @val is NULL then)
 */
static int rpcrdma_wqe_inline_val_len(const char *val)
{
	return val ? (int)strcspn(val, "\n") : 0;
}

static int rpcrdma_wqe_inline_size_set(const char *val,
				       const struct kernel_param *kp)
{
	unsigned int size;
	bool loading;

	if (val && !kstrtouint(val, 0, &size) &&
	    rpcrdma_wqe_inline_size_valid(size)) {
		WRITE_ONCE(*(unsigned int *)kp->arg, size);
		return 0;
	}
	loading = rpcrdma_wqe_inline_loading();
	pr_warn("inline_size%s%.*s refused: give a number of bytes from 0 to %u; %s %u\n",
		val ? "=" : "", rpcrdma_wqe_inline_val_len(val), val ?: "",
		RPCRDMA_WQE_INLINE_MAX,
		loading ? "rpcrdma loads and the default is kept: inline_size" :
		"inline_size stays",
		READ_ONCE(*(unsigned int *)kp->arg));
	return rpcrdma_wqe_inline_param_refused(-EINVAL, loading);
}

/* NOARG: "inline_size" with no value reaches .set (as NULL) to be
 * refused like any bad value, instead of failing rpcrdma's load
 */
static const struct kernel_param_ops rpcrdma_wqe_inline_size_ops = {
	.flags	= KERNEL_PARAM_OPS_FL_NOARG,
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
	const char *bad = val ?: "";
	int bad_len = 0;
	bool loading;
	char old[128];
	int ret;

	ret = val ? rpcrdma_wqe_inline_overrides_parse(val, &ov, &bad, &bad_len) :
		    -EINVAL;
	if (!ret) {
		spin_lock(&rpcrdma_wqe_inline_overrides_lock);
		rpcrdma_wqe_inline_overrides = ov;
		spin_unlock(&rpcrdma_wqe_inline_overrides_lock);
		return 0;
	}
	loading = rpcrdma_wqe_inline_loading();
	spin_lock(&rpcrdma_wqe_inline_overrides_lock);
	rpcrdma_wqe_inline_overrides_print(&rpcrdma_wqe_inline_overrides,
					   old, sizeof(old));
	spin_unlock(&rpcrdma_wqe_inline_overrides_lock);
	pr_warn("inline_drivers%s%.*s refused: %s '%.*s'; give DRIVER:on, DRIVER:alone or DRIVER:off, comma-separated, at most %u, DRIVER a name from 'devices' in debugfs or a driver_id number; %s '%s'\n",
		val ? "=" : "", rpcrdma_wqe_inline_val_len(val), val ?: "",
		!val ? "no value given" : ret == -E2BIG ? "too many drivers at" :
		"malformed or unknown driver in", bad_len, bad,
		RPCRDMA_WQE_INLINE_OVERRIDES,
		loading ? "rpcrdma loads and the default is kept: inline_drivers" :
		"inline_drivers stays", old);
	return rpcrdma_wqe_inline_param_refused(ret, loading);
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
	.flags	= KERNEL_PARAM_OPS_FL_NOARG,
	.set	= rpcrdma_wqe_inline_drivers_set,
	.get	= rpcrdma_wqe_inline_drivers_get,
};

module_param_cb(inline_drivers, &rpcrdma_wqe_inline_drivers_ops, NULL, 0644);
__MODULE_PARM_TYPE(inline_drivers, "string");
MODULE_PARM_DESC(inline_drivers,
		 "Opt RDMA drivers in or out of inline Sends, overriding the built-in policy: DRIVER:on|alone|off[,...] (alone: only Sends alone in their post, not Calls behind their registrations), DRIVER a name (mlx5, bnxt_re, rxe, ...) or a driver_id number. New connections only.");

static int rpcrdma_wqe_inline_bool_set(const char *val,
				       const struct kernel_param *kp)
{
	bool loading;
	int ret;

	ret = param_set_bool(val, kp);
	if (!ret)
		return 0;
	loading = rpcrdma_wqe_inline_loading();
	pr_warn("%s=%.*s refused: give Y or N; %s %c\n", kp->name,
		rpcrdma_wqe_inline_val_len(val), val ?: "",
		loading ? "rpcrdma loads and the default is kept:" : "it stays",
		READ_ONCE(*(bool *)kp->arg) ? 'Y' : 'N');
	return rpcrdma_wqe_inline_param_refused(ret, loading);
}

static const struct kernel_param_ops rpcrdma_wqe_inline_bool_ops = {
	.flags	= KERNEL_PARAM_OPS_FL_NOARG,
	.set	= rpcrdma_wqe_inline_bool_set,
	.get	= param_get_bool,
};

module_param_cb(server_inline, &rpcrdma_wqe_inline_bool_ops,
		&rpcrdma_wqe_inline_server, 0644);
__MODULE_PARM_TYPE(server_inline, "bool");
MODULE_PARM_DESC(server_inline,
		 "Post small server Replies inline (default Y). New connections only.");
module_param_cb(client_inline, &rpcrdma_wqe_inline_bool_ops,
		&rpcrdma_wqe_inline_client, 0644);
__MODULE_PARM_TYPE(client_inline, "bool");
MODULE_PARM_DESC(client_inline,
		 "Post small client Calls inline (default Y). New connections only.");

/* The kernel this module is built for: the driver table holds only on
 * the series whose sources were read, and not where a vendor backports
 * its own driver changes (RHEL's headers define RHEL_RELEASE_CODE, SUSE's
 * config CONFIG_SUSE_KERNEL)
 */
#ifdef LINUX_VERSION_MAJOR
#define RPCRDMA_WQE_INLINE_THIS_KERNEL \
	KERNEL_VERSION(LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL, \
		       LINUX_VERSION_SUBLEVEL)
#else
/* <linux/version.h> has the parts from 5.13 on: older is outside anyway */
#define RPCRDMA_WQE_INLINE_THIS_KERNEL 0
#endif

static const struct rpcrdma_wqe_inline_kernel rpcrdma_wqe_inline_kernel = {
	.version	= RPCRDMA_WQE_INLINE_THIS_KERNEL,
#if defined(RHEL_RELEASE_CODE)
	.vendor		= "RHEL",
#elif defined(CONFIG_SUSE_KERNEL)
	.vendor		= "SUSE",
#endif
};

/**
 * rpcrdma_wqe_inline_decide_id - the verdict on a driver, on this kernel
 * @driver_id: the device's ib_device_ops::driver_id
 * @v: filled with the verdict, the admin's overrides applied
 */
void rpcrdma_wqe_inline_decide_id(u32 driver_id,
				  struct rpcrdma_wqe_inline_verdict *v)
{
	spin_lock(&rpcrdma_wqe_inline_overrides_lock);
	rpcrdma_wqe_inline_decide_for(driver_id, &rpcrdma_wqe_inline_overrides,
				      &rpcrdma_wqe_inline_kernel, v);
	spin_unlock(&rpcrdma_wqe_inline_overrides_lock);
}

/**
 * rpcrdma_wqe_inline_this_kernel - the kernel this module is built for
 *
 * Return: its version and vendor, as the driver table is checked against.
 */
const struct rpcrdma_wqe_inline_kernel *rpcrdma_wqe_inline_this_kernel(void)
{
	return &rpcrdma_wqe_inline_kernel;
}

/**
 * rpcrdma_wqe_inline_want - the inline data size to ask for on one side
 * @side: server or client
 *
 * A server asks for no more than a Reply can use: svcrdma pulls a Reply
 * into one SGE only below 512 bytes, and on mlx5 every byte asked grows
 * every send WQE.
 *
 * Return: inline_size (on the server at most
 * %RPCRDMA_WQE_INLINE_SERVER_MAX), or 0 when @side is switched off.
 */
u32 rpcrdma_wqe_inline_want(enum rpcrdma_wqe_inline_side side)
{
	u32 size = READ_ONCE(rpcrdma_wqe_inline_size);

	if (side == RPCRDMA_WQE_INLINE_CLIENT)
		return READ_ONCE(rpcrdma_wqe_inline_client) ? size : 0;
	if (!READ_ONCE(rpcrdma_wqe_inline_server))
		return 0;
	return min(size, RPCRDMA_WQE_INLINE_SERVER_MAX);
}

/**
 * rpcrdma_wqe_inline_params_loaded - end the load's parameters, log them
 *
 * Called from rpcrdma's init: from here on a bad value is refused
 * rather than logged and replaced by the default.
 */
void rpcrdma_wqe_inline_params_loaded(void)
{
	WRITE_ONCE(rpcrdma_wqe_inline_loaded, true);
	pr_info("rpcrdma-inline %s: inline_size=%u server_inline=%d client_inline=%d\n",
		RPCRDMA_INLINE_VERSION, READ_ONCE(rpcrdma_wqe_inline_size),
		READ_ONCE(rpcrdma_wqe_inline_server),
		READ_ONCE(rpcrdma_wqe_inline_client));
	/* The series and variants, as on a line of src/hooks/TESTED */
	pr_info("rpcrdma-inline %s: built with hooks %s: %s\n",
		RPCRDMA_INLINE_VERSION, RPCRDMA_INLINE_HOOKS, RPCRDMA_INLINE_TESTED);
}
