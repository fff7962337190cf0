// SPDX-License-Identifier: MIT
/*
 * libember's ember back end (em_backend.h): /dev/ember, each call one
 * ioctl of include/uapi/ember.h; ember.ko counts every statistic. Also
 * the real system calls every back end makes (em_sys_default).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "em_backend.h"

/* ---- the system calls ---- */

static int sys_open(const char *path, int flags)
{
	int fd = open(path, flags);

	return fd < 0 ? -errno : fd;
}

static int sys_close(int fd)
{
	return close(fd) ? -errno : 0;
}

static int sys_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static long sys_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

static const struct em_sys em_sys_real = {
	.open = sys_open,
	.close = sys_close,
	.ioctl = sys_ioctl,
	.read_text = sys_read_text,
};

const struct em_sys *em_sys_default(void)
{
	return &em_sys_real;
}

/* ---- /dev/ember ---- */

static int ember_open(struct em_context *c)
{
	int fd = c->sys->open("/dev/ember", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return fd;
	c->map_fd = fd;
	return 0;
}

static void ember_close(struct em_context *c)
{
	if (c->map_fd >= 0)
		c->sys->close(c->map_fd);
	c->map_fd = -1;
}

static int ember_ioctl(struct em_context *c, unsigned long cmd, void *arg)
{
	return c->sys->ioctl(c->map_fd, cmd, arg);
}

static int ember_advise(struct em_context *c, uint64_t addr, uint64_t len,
			uint32_t advice, uint32_t processor)
{
	struct ember_advise a = {
		.addr = addr, .length = len, .advice = advice, .processor = processor,
	};

	return ember_ioctl(c, EMBER_IOCTL_ADVISE, &a);
}

static int ember_prefetch(struct em_context *c, uint64_t addr, uint64_t len,
			  uint32_t processor)
{
	struct ember_prefetch p = { .addr = addr, .length = len, .processor = processor };

	return ember_ioctl(c, EMBER_IOCTL_PREFETCH, &p);
}

static int ember_launch(struct em_context *c, struct ember_launch *l)
{
	return ember_ioctl(c, EMBER_IOCTL_LAUNCH, l);
}

static int ember_synchronize(struct em_context *c, struct ember_synchronize *s)
{
	return ember_ioctl(c, EMBER_IOCTL_SYNCHRONIZE, s);
}

static int ember_mem_info(struct em_context *c, struct ember_mem_info *m)
{
	return ember_ioctl(c, EMBER_IOCTL_MEM_GET_INFO, m);
}

static int ember_stats(struct em_context *c, struct ember_stats *s,
		       struct ember_stats_counters *valid)
{
	int ret = ember_ioctl(c, EMBER_IOCTL_GET_STATS, s);

	/* ember.ko counts every one (reserved[] is zero by the ABI) */
	if (!ret && valid) {
		__u64 *v = (__u64 *)valid;	/* every member is a __u64 */
		size_t i;

		for (i = 0; i < sizeof(*valid) / sizeof(*v); i++)
			v[i] = 1;
		memset(valid->reserved, 0, sizeof(valid->reserved));
	}
	return ret;
}

static int ember_set_policy(struct em_context *c, const char *name)
{
	struct ember_set_policy p = { { 0 } };

	strcpy(p.name, name);	/* libember.c checked its length */
	return ember_ioctl(c, EMBER_IOCTL_SET_POLICY, &p);
}

static int ember_device_info(struct em_context *c, struct ember_device_info *info)
{
	return ember_ioctl(c, EMBER_IOCTL_GET_DEVICE_INFO, info);
}

const struct em_backend_ops em_ember_ops = {
	.name = "ember",
	.open = ember_open,
	.close = ember_close,
	.advise = ember_advise,
	.prefetch = ember_prefetch,
	.launch = ember_launch,
	.synchronize = ember_synchronize,
	.mem_info = ember_mem_info,
	.stats = ember_stats,
	.set_policy = ember_set_policy,
	.device_info = ember_device_info,
};
