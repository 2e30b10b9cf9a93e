/* Named by files that include it; the Windows build waits in proc.c. */
#ifndef PD_WIN32_WAIT_H
#define PD_WIN32_WAIT_H
#endif
