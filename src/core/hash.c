/* Content hashes with nettle's SHA-256. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/hash.h"

void pd_sha256_init(struct pd_sha256 *h)
{
	sha256_init(&h->ctx);
}

void pd_sha256_add(struct pd_sha256 *h, const void *data, size_t n)
{
	sha256_update(&h->ctx, n, data);
}

void pd_sha256_hex(struct pd_sha256 *h, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];
	int i;

	sha256_digest(&h->ctx, sizeof(d), d);
	for (i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
}

int pd_sha256_file(struct pd_sha256 *h, const char *path, struct pd_err *err)
{
	unsigned char buf[65536];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return pd_err_set(err, PD_EIO, "%s: cannot open: %s", path,
				  strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		pd_sha256_add(h, buf, n);
	if (ferror(f)) {
		fclose(f);
		return pd_err_set(err, PD_EIO, "%s: read error", path);
	}
	fclose(f);
	return 0;
}
