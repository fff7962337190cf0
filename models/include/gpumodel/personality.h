/* SPDX-License-Identifier: MIT */
/*
 * Hardware personality: which register set and in-memory formats the
 * device presents. EMGPU is emgpu_hw.h's, driven by ember.ko; GA10X adds
 * the block of ga10x/regs.h with NVIDIA's GPFIFO channels, MMU VER2 and
 * fault/access-counter formats, driven by NVIDIA's nvidia-uvm through the
 * resource-manager stand-in. GH100 is GA10X's block with Hopper's
 * in-memory formats (MMU VER3, 57-bit VAs, its engine ids; gh100/regs.h).
 * All share the timing, counters, trace hash and fault injection of the
 * model (gpumodel.h).
 *
 * The list: X(ID, name) gives GM_PERSONALITY_<ID>, its name, and the
 * model's ops table <name>_personality (models/src/personality.h); a new
 * personality is a line here and its own folder under models/src/. Its own
 * header, so that a profile (profile.h) can name the personality of its
 * card and a program that builds only the profiles (the host agent,
 * scripts/profiles-doc.c) can name it too.
 */
#ifndef GPUMODEL_PERSONALITY_H
#define GPUMODEL_PERSONALITY_H

#include <string.h>

#define GM_PERSONALITIES(X) \
	X(EMGPU, emgpu) \
	X(GA10X, ga10x) \
	X(GH100, gh100)

enum gm_personality {
#define GM_PERSONALITY_ENUM(id, name) GM_PERSONALITY_##id,
	GM_PERSONALITIES(GM_PERSONALITY_ENUM)
#undef GM_PERSONALITY_ENUM
	GM_PERSONALITY_COUNT
};

/* "emgpu", "ga10x", ...; NULL for an unknown value. */
static inline const char *gm_personality_name(enum gm_personality p)
{
	static const char *const names[] = {
#define GM_PERSONALITY_NAME(id, name) [GM_PERSONALITY_##id] = #name,
		GM_PERSONALITIES(GM_PERSONALITY_NAME)
#undef GM_PERSONALITY_NAME
	};

	return (unsigned int)p < GM_PERSONALITY_COUNT ? names[p] : NULL;
}

/* 0 and *out set, or -1 for an unknown name. */
static inline int gm_personality_lookup(const char *name, enum gm_personality *out)
{
	unsigned int i;

	for (i = 0; i < GM_PERSONALITY_COUNT; i++)
		if (!strcmp(name, gm_personality_name((enum gm_personality)i))) {
			*out = (enum gm_personality)i;
			return 0;
		}
	return -1;
}

#endif /* GPUMODEL_PERSONALITY_H */
