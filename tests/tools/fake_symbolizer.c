/*
 * A stand-in for llvm-symbolizer, built for Windows by the Windows build's
 * test (t0830): it reads one address a line from stdin and answers as
 * llvm-symbolizer --functions=linkage --inlines does, each address named
 * fake_ADDR, so that perfdiff.exe's way of running a symbolizer (found on
 * PATH as NAME.exe, CreateProcess, stdin from a file, stdout down a pipe,
 * the working folder of the links it made) is checked without LLVM for
 * Windows. Its arguments go to stderr's first line.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char line[256];
	int i;

	for (i = 1; i < argc; i++)
		fprintf(stderr, "%s%s", i > 1 ? " " : "", argv[i]);
	fprintf(stderr, "\n");
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		printf("fake_%s\n??:0:0\n\n", line);
	}
	return 0;
}
