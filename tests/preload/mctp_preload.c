/* LD_PRELOAD library: gives a program AF_MCTP sockets served by `offload mctpd`, so programs
 * written for the Linux kernel's MCTP stack (nvme-cli, libnvme-mi) run unmodified on the
 * library's user-space stack. The daemon's control socket is $OFFLOAD_MCTPD_CONTROL.
 *
 * socket(AF_MCTP) opens two connections to the daemon (see src/cli/mctp_socket_service.rs):
 * the descriptor returned is the data connection, on which received messages arrive (so
 * poll/select work unchanged); bind, sendto/sendmsg and the SIOCMCTPALLOCTAG/SIOCMCTPDROPTAG
 * ioctls go over the second, ops connection and wait for their result.
 *
 * Build: cc -shared -fPIC -o liboffload-mctp-preload.so mctp_preload.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/mctp.h>

#ifndef AF_MCTP
#define AF_MCTP 45
#endif

enum { OP_BIND = 1, OP_SENDTO = 2, OP_ALLOCTAG = 3, OP_DROPTAG = 4 };
#define MAX_FD 4096

/* ops connection + 1 for each AF_MCTP data descriptor; 0 for any other descriptor. */
static int ops_of[MAX_FD];

#define REAL(name, ret, ...)                                                       \
	static ret (*real_##name)(__VA_ARGS__);                                     \
	if (!real_##name)                                                           \
		real_##name = (ret (*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static int ours(int fd)
{
	return fd >= 0 && fd < MAX_FD && ops_of[fd];
}

static int write_all(int fd, const void *b, size_t n)
{
	const char *p = b;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

static int read_all(int fd, void *b, size_t n)
{
	char *p = b;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ECONNRESET;
			return -1;
		}
		p += r;
		n -= r;
	}
	return 0;
}

static int read_line(int fd, char *buf, size_t n)
{
	size_t i = 0;
	while (i + 1 < n) {
		if (read_all(fd, buf + i, 1))
			return -1;
		if (buf[i] == '\n')
			break;
		i++;
	}
	buf[i] = 0;
	return 0;
}

static int dial(const char *line, char *reply, size_t rlen)
{
	REAL(socket, int, int, int, int);
	const char *path = getenv("OFFLOAD_MCTPD_CONTROL");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (!path || strlen(path) >= sizeof(sa.sun_path)) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = real_socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || write_all(fd, line, strlen(line)) ||
	    read_line(fd, reply, rlen)) {
		close(fd);
		errno = EAFNOSUPPORT;
		return -1;
	}
	return fd;
}

int socket(int domain, int type, int protocol)
{
	REAL(socket, int, int, int, int);
	char reply[64], line[64];
	unsigned id;
	int data, ops;

	if (domain != AF_MCTP)
		return real_socket(domain, type, protocol);
	data = dial("socket\n", reply, sizeof(reply));
	if (data < 0)
		return -1;
	if (sscanf(reply, "socket %u", &id) != 1 || data >= MAX_FD) {
		close(data);
		errno = EAFNOSUPPORT;
		return -1;
	}
	snprintf(line, sizeof(line), "socket-ops %u\n", id);
	ops = dial(line, reply, sizeof(reply));
	if (ops < 0 || strcmp(reply, "ok")) {
		if (ops >= 0)
			close(ops);
		close(data);
		errno = EAFNOSUPPORT;
		return -1;
	}
	ops_of[data] = ops + 1;
	return data;
}

/* One request on the ops connection: header, the iovecs, then the answer. */
static int op(int fd, uint8_t code, const struct sockaddr_mctp *a, uint8_t eid, uint8_t tag,
	      const struct iovec *iov, int iovcnt, uint8_t *tag_out)
{
	int ops = ops_of[fd] - 1;
	uint8_t h[12], r[12];
	uint32_t len = 8, net = a ? a->smctp_network : 0;
	int32_t rc;
	int i;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	memcpy(h, &len, 4);
	h[4] = code;
	h[5] = a ? a->smctp_addr.s_addr : eid;
	h[6] = a ? a->smctp_type : 0;
	h[7] = a ? a->smctp_tag : tag;
	memcpy(h + 8, &net, 4);
	if (write_all(ops, h, sizeof(h)))
		return -1;
	for (i = 0; i < iovcnt; i++)
		if (iov[i].iov_len && write_all(ops, iov[i].iov_base, iov[i].iov_len))
			return -1;
	if (read_all(ops, r, sizeof(r)))
		return -1;
	memcpy(&rc, r + 4, 4);
	if (tag_out)
		*tag_out = r[8];
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	REAL(bind, int, int, const struct sockaddr *, socklen_t);
	if (!ours(fd))
		return real_bind(fd, addr, len);
	if (len < sizeof(struct sockaddr_mctp) || addr->sa_family != AF_MCTP) {
		errno = EINVAL;
		return -1;
	}
	return op(fd, OP_BIND, (const struct sockaddr_mctp *)addr, 0, 0, NULL, 0, NULL);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	REAL(sendmsg, ssize_t, int, const struct msghdr *, int);
	ssize_t total = 0;
	size_t i;

	if (!ours(fd))
		return real_sendmsg(fd, m, flags);
	if (!m->msg_name || m->msg_namelen < sizeof(struct sockaddr_mctp)) {
		errno = EDESTADDRREQ;
		return -1;
	}
	for (i = 0; i < m->msg_iovlen; i++)
		total += m->msg_iov[i].iov_len;
	if (op(fd, OP_SENDTO, m->msg_name, 0, 0, m->msg_iov, m->msg_iovlen, NULL))
		return -1;
	return total;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
	       socklen_t tolen)
{
	REAL(sendto, ssize_t, int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	struct iovec iov = { (void *)buf, len };
	struct msghdr m = { .msg_name = (void *)to, .msg_namelen = tolen, .msg_iov = &iov,
			    .msg_iovlen = 1 };

	if (!ours(fd))
		return real_sendto(fd, buf, len, flags, to, tolen);
	return sendmsg(fd, &m, flags);
}

ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	REAL(recvmsg, ssize_t, int, struct msghdr *, int);
	uint8_t h[12];
	uint32_t len, net;
	size_t left, i, copied = 0;
	char sink[256];

	if (!ours(fd))
		return real_recvmsg(fd, m, flags);
	if (flags & MSG_DONTWAIT) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 0) == 0) {
			errno = EAGAIN;
			return -1;
		}
	}
	if (read_all(fd, h, sizeof(h)))
		return -1;
	memcpy(&len, h, 4);
	memcpy(&net, h + 4, 4);
	left = len - 8;
	m->msg_flags = 0;
	for (i = 0; i < m->msg_iovlen && left; i++) {
		size_t n = m->msg_iov[i].iov_len < left ? m->msg_iov[i].iov_len : left;
		if (n && read_all(fd, m->msg_iov[i].iov_base, n))
			return -1;
		left -= n;
		copied += n;
	}
	if (left)
		m->msg_flags |= MSG_TRUNC;
	while (left) { /* the rest of a message too long for the buffers */
		size_t n = left < sizeof(sink) ? left : sizeof(sink);
		if (read_all(fd, sink, n))
			return -1;
		left -= n;
	}
	if (m->msg_name && m->msg_namelen >= sizeof(struct sockaddr_mctp)) {
		struct sockaddr_mctp *a = m->msg_name;
		memset(a, 0, sizeof(*a));
		a->smctp_family = AF_MCTP;
		a->smctp_network = net;
		a->smctp_addr.s_addr = h[8];
		a->smctp_type = h[9];
		a->smctp_tag = h[10];
		m->msg_namelen = sizeof(*a);
	}
	return (flags & MSG_TRUNC) ? (ssize_t)(len - 8) : (ssize_t)copied;
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)
{
	REAL(recvfrom, ssize_t, int, void *, size_t, int, struct sockaddr *, socklen_t *);
	struct iovec iov = { buf, len };
	struct msghdr m = { .msg_name = from, .msg_namelen = fromlen ? *fromlen : 0,
			    .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (!ours(fd))
		return real_recvfrom(fd, buf, len, flags, from, fromlen);
	r = recvmsg(fd, &m, flags);
	if (r >= 0 && fromlen)
		*fromlen = m.msg_namelen;
	return r;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

int ioctl(int fd, unsigned long req, ...)
{
	REAL(ioctl, int, int, unsigned long, void *);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!ours(fd))
		return real_ioctl(fd, req, arg);
	if (req == SIOCMCTPALLOCTAG || req == SIOCMCTPDROPTAG) {
		struct mctp_ioc_tag_ctl *c = arg;
		uint8_t tag = 0;
		if (op(fd, req == SIOCMCTPALLOCTAG ? OP_ALLOCTAG : OP_DROPTAG, NULL, c->peer_addr,
		       c->tag, NULL, 0, &tag))
			return -1;
		if (req == SIOCMCTPALLOCTAG)
			c->tag = tag;
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

int close(int fd)
{
	REAL(close, int, int);
	if (ours(fd)) {
		real_close(ops_of[fd] - 1);
		ops_of[fd] = 0;
	}
	return real_close(fd);
}
