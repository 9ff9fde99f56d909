/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Userspace stand-in for <linux/types.h>: what the policy code uses. */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef __u32 u32;
typedef __u64 u64;

#endif
