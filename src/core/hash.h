/* SHA-256 (nettle) for content hashes; the state is the caller's. */
#ifndef PD_HASH_H
#define PD_HASH_H

#include <stddef.h>
#include <nettle/sha2.h>

#include "core/err.h"

struct pd_sha256 {
	struct sha256_ctx ctx;
};

void pd_sha256_init(struct pd_sha256 *h);
void pd_sha256_add(struct pd_sha256 *h, const void *data, size_t n);
/* Writes 64 lowercase hex digits and a NUL into hex. */
void pd_sha256_hex(struct pd_sha256 *h, char hex[65]);
/* Hashes a file's bytes (as stored, not decompressed). */
PD_NODISCARD int pd_sha256_file(struct pd_sha256 *h, const char *path,
				struct pd_err *err);

#endif
