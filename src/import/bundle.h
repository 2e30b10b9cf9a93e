/*
 * Bundles: one folder per profiled run (docs/history.md). Reading one finds its
 * key (git sha, scenario, cache state), its metadata and its profiles. The
 * struct owns every string; pd_bundle_release() frees them.
 */
#ifndef PD_BUNDLE_H
#define PD_BUNDLE_H

#include "core/err.h"
#include "core/file.h" /* pd_is_dir, for the callers that tell bundles */
#include "core/vec.h"

struct pd_bundle_key {
	const char *sha, *scenario, *cache; /* NULL: unknown */
	const char *repo; /* git repository to resolve commits in, or NULL */
};

struct pd_bundle_file {
	char *path; /* full path */
	char *rel;  /* path relative to the bundle */
	/* the run's cache state: "warm", "cold" or "unspecified" */
	const char *cache;
	/* Why this file is not a profile (a note, an argument list), or NULL.
	 */
	const char *skip;
	char hash[65]; /* SHA-256 of the file's bytes, as stored */
};

struct pd_bundle {
	char *dir;
	/*
	 * SHA-256 over each file of profiles/: its path and its bytes'
	 * hash; build_meta.json is not in it.
	 */
	char *hash;
	/*
	 * cache: the bundle's cache state when build_meta.json, the folder
	 * name or the caller says, else NULL; each file has its own.
	 */
	char *sha, *scenario, *cache;
	const char *sha_from, *scenario_from, *cache_from; /* where found */
	char *commit_date, *run_date, *host;
	char *build_meta;		     /* the JSON text, or NULL */
	PD_VEC(struct pd_bundle_file) files; /* under profiles/, sorted */
	PD_VEC(char *) outside; /* links leading out of the bundle: not read */
};

/*
 * What build_meta.json says, each field under any of the names the
 * runbooks write (docs/history.md, "Bundles": The key): the key of the run, and
 * what should match between two sides of a comparison.
 */
struct pd_meta {
	char *sha, *scenario, *cache, *commit_date, *run_date;
	char *compiler, *flags, *target, *dataset, *host;
};

/*
 * Reads the fields from build_meta.json text (any may stay NULL; all of
 * them when the text is no JSON object).
 */
void pd_meta_from_json(struct pd_meta *m, const char *json);
void pd_meta_release(struct pd_meta *m);

/*
 * The cache state of a run that nothing names: build_meta.json has no
 * cache field, no name has a warm or cold token and no --cache was given.
 * Stored and shown as it is, a key like the other two.
 */
#define PD_CACHE_UNSPECIFIED "unspecified"

/*
 * "warm", "cold" or "unspecified" for the ways the runbook writes them
 * (warm, cold, warmcache, coldstart, ... in any case), else NULL.
 */
const char *pd_cache_state(const char *s, size_t n);

/*
 * Reads the bundle at dir. Fields missing from build_meta.json, the folder
 * name and the runbook's file names are taken from fallback; a sha or
 * scenario still missing is an error naming the field, and so is a cache
 * state other than warm, cold or unspecified. A run whose cache state
 * nothing gives is "unspecified" (PD_CACHE_UNSPECIFIED), not an error.
 * Symbolic links are followed only inside
 * the bundle; anything but regular files and folders is an error. b is
 * released with pd_bundle_release whether the read succeeded or not.
 */
PD_NODISCARD int pd_bundle_read(struct pd_bundle *b, const char *dir,
				const struct pd_bundle_key *fallback,
				struct pd_err *err);
void pd_bundle_release(struct pd_bundle *b);

/*
 * Each file's hash (its bytes read once) and the bundle's, over every
 * file's path and hash in order: what pd_bundle_read does last, for a
 * bundle made by hand. 0, or the error code of a file that cannot be read.
 */
PD_NODISCARD int pd_bundle_hash(struct pd_bundle *b, struct pd_err *err);

/*
 * The hash a history before schema 5 stored the bundle under: SHA-256
 * over build_meta.json and every file's path and bytes (the files read
 * again). 0, or the error code of a file that cannot be read.
 */
PD_NODISCARD int pd_bundle_hash_v1(const struct pd_bundle *b, char hex[65],
				   struct pd_err *err);

#endif
