/*
 * Helper programs for the Windows build (core/proc.h): CreateProcess with
 * the command line quoted as CommandLineToArgvW splits it, so that no
 * argument is parsed as anything but itself.
 */
#include <windows.h>

#include "core/file.h"
#include "core/proc.h"

/* One argument, quoted when it must be: backslashes before a quote doubled. */
static void quote(struct pd_buf *b, const char *a)
{
	size_t slashes = 0;

	if (*a && !strpbrk(a, " \t\n\v\"")) {
		pd_buf_adds(b, a);
		return;
	}
	pd_buf_addch(b, '"');
	for (; *a; a++) {
		if (*a == '\\') {
			slashes++;
		} else {
			if (*a == '"')
				slashes = slashes * 2 + 1;
			for (; slashes; slashes--)
				pd_buf_addch(b, '\\');
		}
		if (*a != '\\')
			pd_buf_addch(b, *a);
	}
	for (slashes *= 2; slashes; slashes--)
		pd_buf_addch(b, '\\');
	pd_buf_addch(b, '"');
}

static HANDLE inheritable(HANDLE h)
{
	HANDLE dup = INVALID_HANDLE_VALUE;

	if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup,
			     0, TRUE, DUPLICATE_SAME_ACCESS))
		return INVALID_HANDLE_VALUE;
	return dup;
}

static HANDLE open_inherited(const char *path, int write)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };

	return CreateFileA(path, write ? GENERIC_WRITE : GENERIC_READ,
			   FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
			   OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
}

/* Starts argv with stdout on out (inheritable); its process, or NULL. */
static HANDLE start(char *const argv[], const char *cwd, const char *in_path,
		    HANDLE out)
{
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;
	struct pd_buf cmd;
	HANDLE in, err;
	BOOL ok;
	int i;

	pd_buf_init(&cmd);
	for (i = 0; argv[i]; i++) {
		if (i)
			pd_buf_addch(&cmd, ' ');
		quote(&cmd, argv[i]);
	}
	in = open_inherited(in_path ? in_path : "NUL", 0);
	err = open_inherited("NUL", 1);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = in;
	si.hStdOutput = out;
	si.hStdError = err;
	ok = in != INVALID_HANDLE_VALUE && err != INVALID_HANDLE_VALUE &&
	     CreateProcessA(NULL, cmd.buf, NULL, NULL, TRUE, CREATE_NO_WINDOW,
			    NULL, cwd, &si, &pi);
	if (in != INVALID_HANDLE_VALUE)
		CloseHandle(in);
	if (err != INVALID_HANDLE_VALUE)
		CloseHandle(err);
	pd_buf_release(&cmd);
	if (!ok)
		return NULL;
	CloseHandle(pi.hThread);
	return pi.hProcess;
}

static int reap(HANDLE p)
{
	DWORD code = 0;

	WaitForSingleObject(p, INFINITE);
	if (!GetExitCodeProcess(p, &code))
		code = (DWORD)-1;
	CloseHandle(p);
	return code > 255 ? -1 : (int)code;
}

int pd_proc_run_fd(char *const argv[], const char *cwd, const char *in_path,
		   int out_fd)
{
	HANDLE out = inheritable((HANDLE)_get_osfhandle(out_fd)), p;

	if (out == INVALID_HANDLE_VALUE)
		return -1;
	fflush(NULL);
	p = start(argv, cwd, in_path, out);
	CloseHandle(out);
	return p ? reap(p) : -1;
}

int pd_proc_run(char *const argv[], const char *cwd, const char *in_path,
		struct pd_buf *out, size_t max)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	HANDLE rd, wr, p;
	char buf[65536];
	DWORD n;

	if (!CreatePipe(&rd, &wr, &sa, 0))
		return -1;
	SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
	fflush(NULL);
	p = start(argv, cwd, in_path, wr);
	CloseHandle(wr);
	if (!p) {
		CloseHandle(rd);
		return -1;
	}
	while (ReadFile(rd, buf, sizeof(buf), &n, NULL) && n > 0) {
		size_t keep = out->len < max ? max - out->len : 0;

		pd_buf_add(out, buf, (size_t)n < keep ? (size_t)n : keep);
	}
	CloseHandle(rd);
	return reap(p);
}

int pd_proc_is_program(const char *path)
{
	/* no execute bit: a file is a program when it can be run by name */
	return pd_is_file(path);
}

int pd_proc_has_dir(const char *name)
{
	return strpbrk(name, "/\\:") != NULL;
}

/* dir\name, then dir\name.exe when name has no extension of its own. */
static char *in_dir(const char *dir, size_t n, const char *name)
{
	static const char *const ext[] = { "", ".exe" };
	const char *dot = strrchr(name, '.');
	size_t i;

	for (i = 0; i < 2; i++) {
		struct pd_buf b = PD_BUF_INIT;

		if (i && dot && !strpbrk(dot, "/\\"))
			break;
		pd_buf_add(&b, dir, n);
		pd_buf_addf(&b, "\\%s%s", name, ext[i]);
		if (pd_proc_is_program(b.buf))
			return pd_buf_detach(&b);
		pd_buf_release(&b);
	}
	return NULL;
}

char *pd_proc_find(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;

	for (p = path ? path : ""; *p; p = *e ? e + 1 : e) {
		char *r;

		e = strchr(p, ';');
		if (!e)
			e = p + strlen(p);
		if (e != p && (r = in_dir(p, (size_t)(e - p), name)))
			return r;
	}
	return NULL;
}
