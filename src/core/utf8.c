/* UTF-8 validation (RFC 3629: no overlongs, no surrogates, <= U+10FFFF). */
#include <string.h>

#include <cJSON.h>

#include "core/utf8.h"
#include "core/xalloc.h"

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

const char *pd_utf8_valid(const char *s, struct pd_buf *tmp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p && *p < 0x80)
		p++;
	n = strlen((const char *)p);
	while (n) {
		int ok;
		size_t k = pd_utf8_seq(p, n, &ok);

		if (!ok) {
			pd_buf_reset(tmp);
			pd_utf8_sanitize(s, strlen(s), tmp);
			return tmp->buf;
		}
		p += k;
		n -= k;
	}
	return s;
}

unsigned pd_utf8_cp(const unsigned char *s, size_t len)
{
	static const unsigned char lead[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned cp = s[0] & lead[len];
	size_t i;

	for (i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

int pd_utf8_invisible(unsigned cp)
{
	return (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2064) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

static void term(struct pd_buf *b, const char *s, size_t n, int lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		int ok;
		size_t k = pd_utf8_seq(p + i, n - i, &ok);
		unsigned cp = ok ? pd_utf8_cp(p + i, k) : 0;

		if (!ok)
			pd_buf_addf(b, "\\x%02x", p[i]);
		else if ((cp < 0x20 &&
			  !(lines && (cp == '\n' || cp == '\t'))) ||
			 cp == 0x7f)
			pd_buf_addf(b, "\\x%02x", cp);
		else if ((cp >= 0x80 && cp <= 0x9f) || pd_utf8_invisible(cp))
			pd_buf_addf(b, "\\u%04x", cp);
		else
			pd_buf_add(b, p + i, k);
		i += k;
	}
}

void pd_buf_add_term(struct pd_buf *b, const char *s, size_t n)
{
	term(b, s, n, 1);
}

void pd_buf_add_term_line(struct pd_buf *b, const char *s)
{
	term(b, s, strlen(s), 0);
}

cJSON *pd_json_text(const char *s)
{
	struct pd_buf b = PD_BUF_INIT;
	cJSON *j;

	if (!s)
		return cJSON_CreateNull();
	j = cJSON_CreateString(pd_utf8_valid(s, &b));
	pd_buf_release(&b);
	if (!j)
		pd_die_oom(0);
	return j;
}
