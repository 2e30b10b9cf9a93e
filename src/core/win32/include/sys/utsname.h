/* uname() for the Windows build (core/win32/posix.h). */
#ifndef PD_WIN32_UTSNAME_H
#define PD_WIN32_UTSNAME_H

struct utsname {
	char sysname[65], nodename[65], release[65], version[65], machine[65];
};

/* "Windows", the computer's name, the version's numbers, the machine. */
int uname(struct utsname *u);

#endif
