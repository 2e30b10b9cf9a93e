/* Files embedded at build time (sql/, reports/); the data is static. */
#ifndef PD_BLOB_H
#define PD_BLOB_H

#include <stddef.h>

struct pd_blob {
	const char *name; /* path relative to the source root */
	const char *data; /* NUL-terminated */
	size_t len;
};

/* Returns the blob named e.g. "reports/legend.md", or NULL. */
const struct pd_blob *pd_blob_get(const char *name);
/* All blobs, ending with an entry whose name is NULL. */
const struct pd_blob *pd_blob_all(void);

#endif
