/*
 * The yardstick of the text importers (docs/performance.md, "perf script
 * text"): a file read with read() in 1 MiB blocks and its lines found
 * with memchr, nothing else. Prints the number of lines.
 *
 * usage: bench_readloop FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	size_t lines = 0, carry = 0;
	ssize_t r;
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0) {
		fprintf(stderr, "usage: bench_readloop FILE\n");
		return 2;
	}
	while ((r = read(fd, buf + carry, sizeof(buf) - carry)) > 0) {
		char *s = buf, *e = buf + carry + (size_t)r, *nl;

		while ((nl = memchr(s, '\n', (size_t)(e - s)))) {
			lines++;
			s = nl + 1;
		}
		carry = (size_t)(e - s);
		if (carry == sizeof(buf))
			carry = 0; /* a line longer than the buffer */
		memmove(buf, s, carry);
	}
	close(fd);
	printf("%zu\n", lines);
	return r < 0;
}
