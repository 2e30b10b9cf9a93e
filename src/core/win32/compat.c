/*
 * The POSIX calls core/win32/posix.h gives the Windows build, on the
 * Windows API (docs/architecture.md, "Platforms").
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sys/utsname.h>
/* windows.h declares the Windows sockets gethostname itself */
#undef gethostname
#include <windows.h>

/*
 * Files and the standard streams carry bytes, never text (CRLF, ^Z); a
 * console shows the UTF-8 perfdiff writes and obeys the colours' escape
 * sequences, as a terminal does.
 */
static UINT console_cp;

static void restore_console(void)
{
	SetConsoleOutputCP(console_cp);
}

__attribute__((constructor)) static void binary_files(void)
{
	DWORD mode;
	int i;

	_fmode = _O_BINARY;
	for (i = 0; i < 3; i++)
		_setmode(i, _O_BINARY);
	console_cp = GetConsoleOutputCP();
	if (console_cp && console_cp != CP_UTF8 && SetConsoleOutputCP(CP_UTF8))
		atexit(restore_console);
	for (i = 0; i < 2; i++) {
		HANDLE h =
		    GetStdHandle(i ? STD_ERROR_HANDLE : STD_OUTPUT_HANDLE);

		/* 4: ENABLE_VIRTUAL_TERMINAL_PROCESSING, Windows 10 on */
		if (GetConsoleMode(h, &mode))
			SetConsoleMode(h, mode | 4);
	}
}

static int errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		return EACCES;
	case ERROR_DISK_FULL:
		return ENOSPC;
	default:
		return EIO;
	}
}

char *pd_win_realpath(const char *path, char *r)
{
	struct stat st;

	if (stat(path, &st))
		return NULL;
	if (!_fullpath(r, path, PATH_MAX)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return r;
}

ssize_t pd_win_pread(int fd, void *buf, size_t n, int64_t off)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED ov;
	DWORD got = 0;

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	memset(&ov, 0, sizeof(ov));
	ov.Offset = (DWORD)((uint64_t)off & 0xffffffffu);
	ov.OffsetHigh = (DWORD)((uint64_t)off >> 32);
	if (n > 0x40000000u)
		n = 0x40000000u;
	if (!ReadFile(h, buf, (DWORD)n, &got, &ov)) {
		DWORD e = GetLastError();

		if (e == ERROR_HANDLE_EOF)
			return 0;
		errno = errno_of(e);
		return -1;
	}
	return (ssize_t)got;
}

int pd_win_rename(const char *from, const char *to)
{
	if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING))
		return 0;
	errno = errno_of(GetLastError());
	return -1;
}

int pd_win_symlink(const char *target, const char *link)
{
	/* what perfdiff links is read through the link: a copy does too */
	if (CreateHardLinkA(link, target, NULL) ||
	    CopyFileA(target, link, TRUE))
		return 0;
	errno = errno_of(GetLastError());
	return -1;
}

char *pd_win_mkdtemp(char *templ)
{
	size_t n = strlen(templ);
	char *save;
	int i;

	if (n < 6 || strcmp(templ + n - 6, "XXXXXX")) {
		errno = EINVAL;
		return NULL;
	}
	save = templ + n - 6;
	for (i = 0; i < 100; i++) {
		unsigned v = (unsigned)GetTickCount() ^
			     ((unsigned)GetCurrentProcessId() << 8) ^
			     ((unsigned)i * 2654435761u);
		int k;

		for (k = 0; k < 6; k++, v /= 36)
			save[k] =
			    "abcdefghijklmnopqrstuvwxyz0123456789"[v % 36];
		if (_mkdir(templ) == 0)
			return templ;
		if (errno != EEXIST)
			return NULL;
	}
	return NULL;
}

long pd_win_sysconf(int name)
{
	SYSTEM_INFO si;

	if (name != _SC_NPROCESSORS_ONLN) {
		errno = EINVAL;
		return -1;
	}
	GetSystemInfo(&si);
	return (long)si.dwNumberOfProcessors;
}

int pd_win_gethostname(char *buf, int n)
{
	DWORD len = n > 0 ? (DWORD)n : 0;

	if (GetComputerNameA(buf, &len))
		return 0;
	errno = ENAMETOOLONG;
	return -1;
}

int uname(struct utsname *u)
{
	SYSTEM_INFO si;
	DWORD v = GetVersion();

	memset(u, 0, sizeof(*u));
	strcpy(u->sysname, "Windows");
	if (pd_win_gethostname(u->nodename, sizeof(u->nodename)))
		strcpy(u->nodename, "unknown");
	snprintf(u->release, sizeof(u->release), "%u.%u", (unsigned)(v & 0xff),
		 (unsigned)((v >> 8) & 0xff));
	GetNativeSystemInfo(&si);
	strcpy(u->machine,
	       si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64
		   ? "x86_64"
	       : si.wProcessorArchitecture == 12 /* ARM64 */ ? "aarch64"
							     : "unknown");
	return 0;
}

int pd_win_poll(struct pollfd *p, unsigned long n, int ms)
{
	HANDLE h = (HANDLE)_get_osfhandle(p->fd);
	ULONGLONG end = GetTickCount64() + (ULONGLONG)(ms < 0 ? 0 : ms);

	(void)n;
	for (;;) {
		DWORD avail = 0;

		/* bytes waiting, or the writer gone: readable either way */
		if (!PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL) || avail) {
			p->revents = POLLIN;
			return 1;
		}
		if (ms >= 0 && GetTickCount64() >= end)
			return 0;
		Sleep(5);
	}
}

FILE *pd_win_tmpfile(void)
{
	char dir[MAX_PATH + 1], path[MAX_PATH + 1];
	int fd;

	if (!GetTempPathA(sizeof(dir), dir) ||
	    !GetTempFileNameA(dir, "pd", 0, path))
		return NULL;
	fd = _open(path,
		   _O_RDWR | _O_BINARY | _O_TRUNC | _O_TEMPORARY | _O_NOINHERIT,
		   _S_IREAD | _S_IWRITE);
	if (fd < 0) {
		DeleteFileA(path);
		return NULL;
	}
	return _fdopen(fd, "w+b");
}

/* The open memory streams: few, and made and closed by one thread. */
static struct {
	FILE *f;
	char **p;
	size_t *n;
} streams[8];

FILE *pd_win_open_memstream(char **p, size_t *n)
{
	size_t i;

	for (i = 0; i < sizeof(streams) / sizeof(*streams); i++)
		if (!streams[i].f) {
			streams[i].f = pd_win_tmpfile();
			streams[i].p = p;
			streams[i].n = n;
			return streams[i].f;
		}
	errno = EMFILE;
	return NULL;
}

#undef fclose
int pd_win_fclose(FILE *f)
{
	size_t i, got;
	long len;
	char *b;

	for (i = 0; i < sizeof(streams) / sizeof(*streams); i++)
		if (f && streams[i].f == f)
			break;
	if (i == sizeof(streams) / sizeof(*streams))
		return fclose(f);
	streams[i].f = NULL;
	if (fflush(f) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(b = malloc((size_t)len + 1))) {
		fclose(f);
		return EOF;
	}
	got = fread(b, 1, (size_t)len, f);
	b[got] = '\0';
	*streams[i].p = b;
	*streams[i].n = got;
	return fclose(f) || got != (size_t)len ? EOF : 0;
}

#undef getenv
char *pd_win_getenv(const char *name)
{
	char *v = getenv(name);

	if (v && *v)
		return v;
	if (!strcmp(name, "TMPDIR")) {
		v = getenv("TEMP");
		return v && *v ? v : getenv("TMP");
	}
	if (!strcmp(name, "HOME"))
		return getenv("USERPROFILE");
	return v;
}
