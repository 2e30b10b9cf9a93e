/* A device number's halves for the Windows build (core/win32/posix.h). */
#ifndef PD_WIN32_SYSMACROS_H
#define PD_WIN32_SYSMACROS_H

#define major(dev) ((unsigned)(dev) >> 8)
#define minor(dev) ((unsigned)(dev)&0xffu)

#endif
