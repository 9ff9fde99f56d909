/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Userspace stand-in for <linux/kernel.h>: what the policy code uses. */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H

#include <assert.h>
#include <linux/types.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define U32_MAX ((u32)~0U)

static inline u32 shim_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

#define min(a, b) shim_min_u32(a, b)

#endif
