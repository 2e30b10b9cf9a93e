/*
 * poll() for the Windows build (core/win32/posix.h): one descriptor, a
 * pipe's read end, waited for with a timeout -- what store/db.c's
 * watchdog asks of it.
 */
#ifndef PD_WIN32_POLL_H
#define PD_WIN32_POLL_H

#define POLLIN 1

struct pollfd {
	int fd;
	short events, revents;
};

/* 1 when the first descriptor has bytes to read, 0 after ms, -1. */
int pd_win_poll(struct pollfd *p, unsigned long n, int ms);
#define poll(p, n, ms) pd_win_poll(p, n, ms)

#endif
