/* UTF-8 validation (RFC 3629: no overlongs, no surrogates, <= U+10FFFF). */
#include "core/utf8.h"

size_t pd_utf8_seq(const unsigned char *s, size_t n, int *valid)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned cp;

	*valid = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		*valid = 0;
		return 1;
	}
	if (n < len) {
		*valid = 0;
		return 1;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*valid = 0;
			return 1;
		}
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		*valid = 0;
		return 1;
	}
	return len;
}

void pd_utf8_sanitize(const char *s, size_t n, struct pd_buf *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		int ok;
		size_t k = pd_utf8_seq(p + i, n - i, &ok);

		if (ok)
			pd_buf_add(out, p + i, k);
		else
			pd_buf_add(out, "\xef\xbf\xbd", 3);
		i += k;
	}
}
