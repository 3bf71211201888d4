/*
 * nodelay.so: TCP_NODELAY on every TCP socket a program connects, set
 * before its connect(2). A test preloads it into ssh (LD_PRELOAD) to turn
 * Nagle's algorithm off on the client's end from the first packet, which
 * OpenSSH itself does only once a session opens; nothing else changes.
 * Built by the test that uses it: cc -shared -fPIC -o nodelay.so nodelay.c -ldl
 */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <dlfcn.h>
#include <stddef.h>

int
connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);
	int type = 0, one = 1;
	socklen_t tl = sizeof(type);

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "connect");
	if (sa != NULL && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6) &&
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 &&
	    type == SOCK_STREAM)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return real(fd, sa, len);
}
