/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Userspace: the libc headers' own <linux/errno.h> has the E* values. */
#include_next <linux/errno.h>
