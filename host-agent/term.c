// SPDX-License-Identifier: MIT
#include "term.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * The length of the valid UTF-8 sequence at s (2 to 4) with its code
 * point in *cp, or 0: overlong forms, surrogates and code points past
 * U+10FFFF are not valid.
 */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	*cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min[n] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/* Code points a terminal acts on or that reorder or break the line. */
static bool unsafe_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||		/* C1 controls */
	       cp == 0x2028 || cp == 0x2029 ||		/* line, paragraph separator */
	       (cp >= 0x202a && cp <= 0x202e) ||	/* bidi embeddings, overrides */
	       (cp >= 0x2066 && cp <= 0x2069) ||	/* bidi isolates */
	       cp == 0x200e || cp == 0x200f;		/* bidi marks */
}

/* The visible form of the character at p, into piece; its bytes in *n. */
static size_t piece_at(const unsigned char *p, char piece[16], size_t *n)
{
	uint32_t cp = 0;

	*n = *p >= 0x80 ? utf8_seq(p, &cp) : 1;
	if (*p >= 0x20 && *p < 0x7f) {
		piece[0] = (char)*p;
		piece[1] = '\0';
	} else if (*p < 0x80 || !*n) {
		*n = 1;
		snprintf(piece, 16, "\\x%02X", *p);
	} else if (unsafe_cp(cp)) {
		snprintf(piece, 16, "\\u{%04X}", (unsigned int)cp);
	} else {
		memcpy(piece, p, *n);
		piece[*n] = '\0';
	}
	return strlen(piece);
}

const char *em_term_safe(const char *s, char *buf, size_t len)
{
	const unsigned char *p;
	size_t o = 0, total = 0, n, plen, room;
	char piece[16];

	if (!len)
		return buf;
	for (p = (const unsigned char *)s; *p; p += n)
		total += piece_at(p, piece, &n);
	/* cut short: whole pieces, then "..." */
	room = total < len ? len - 1 : len >= 4 ? len - 4 : 0;
	for (p = (const unsigned char *)s; *p; p += n) {
		plen = piece_at(p, piece, &n);
		if (o + plen > room)
			break;
		memcpy(buf + o, piece, plen);
		o += plen;
	}
	if (total >= len && len >= 4) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}
