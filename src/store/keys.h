/*
 * The keys a history holds (scenario, cache state, tool), to check what a
 * command was given against them and say what exists instead.
 */
#ifndef PD_STORE_KEYS_H
#define PD_STORE_KEYS_H

#include "core/err.h"
#include "store/db.h"
#include "store/key.h"

/*
 * Checks the scenario, cache state and tool of k a command was given
 * (each NULL when not given) against the keys of the history, then of
 * commit k->sha (a stored full id) when not NULL: 0 when they exist together;
 * else PD_EINVAL with one line naming the first that does not, what
 * exists in its place and, for a near miss, the name that was probably
 * meant ("no scenario 'mft_smal' (did you mean 'mft_small'?); the
 * history has mft_large, mft_small"). The history's error on a failed
 * read.
 */
PD_NODISCARD int pd_store_check_key(struct pd_db *db, const struct pd_hkey *k,
				    struct pd_err *err);

#endif
