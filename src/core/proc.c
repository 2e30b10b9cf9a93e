/* Helper programs through fork and exec (core/proc.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/file.h"
#include "core/proc.h"

static void child(char *const argv[], const char *cwd, const char *in_path,
		  int out)
{
	int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
	int null = open("/dev/null", O_WRONLY);

	if (in < 0 || null < 0 || (cwd && chdir(cwd)) || dup2(in, 0) < 0 ||
	    dup2(out, 1) < 0 || dup2(null, 2) < 0)
		_exit(127);
	execvp(argv[0], argv);
	_exit(127);
}

static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int pd_proc_run_fd(char *const argv[], const char *cwd, const char *in_path,
		   int out_fd)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		child(argv, cwd, in_path, out_fd);
	return pid < 0 ? -1 : reap(pid);
}

int pd_proc_run(char *const argv[], const char *cwd, const char *in_path,
		struct pd_buf *out, size_t max)
{
	int fd[2];
	char buf[65536];
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		child(argv, cwd, in_path, fd[1]);
	}
	close(fd[1]);
	if (pid < 0) {
		close(fd[0]);
		return -1;
	}
	while ((n = read(fd[0], buf, sizeof(buf))) != 0) {
		size_t keep;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		keep = out->len < max ? max - out->len : 0;
		pd_buf_add(out, buf, (size_t)n < keep ? (size_t)n : keep);
	}
	close(fd[0]);
	return reap(pid);
}

int pd_proc_is_program(const char *path)
{
	return pd_is_file(path) && !access(path, X_OK);
}

int pd_proc_has_dir(const char *name)
{
	return strchr(name, '/') != NULL;
}

char *pd_proc_find(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		struct pd_buf b = PD_BUF_INIT;

		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		if (e == p)
			continue;
		pd_buf_add(&b, p, (size_t)(e - p));
		pd_buf_addf(&b, "/%s", name);
		if (pd_proc_is_program(b.buf))
			return pd_buf_detach(&b);
		pd_buf_release(&b);
	}
	return NULL;
}
