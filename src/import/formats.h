/*
 * Each format's entry points, as the format table (import.c) lists them:
 * whether a decoded head looks like the format, and its reader. A new
 * format adds its pair here, its row to the table, and its files (a
 * folder of its own when it takes more than one: docs/architecture.md).
 */
#ifndef PD_IMPORT_FORMATS_H
#define PD_IMPORT_FORMATS_H

#include <stddef.h>

#include "core/compat.h"
#include "core/err.h"
#include "core/input.h"
#include "import/reader.h"
#include "model/profile.h"

int pd_perf_sniff(const char *head, size_t len);
PD_NODISCARD int pd_perf_import(struct pd_input *in, struct pd_profile *p,
				const struct pd_import_opts *o,
				struct pd_err *err);
int pd_folded_sniff(const char *head, size_t len);
PD_NODISCARD int pd_folded_import(struct pd_input *in, struct pd_profile *p,
				  const struct pd_import_opts *o,
				  struct pd_err *err);
int pd_firefox_sniff(const char *head, size_t len);
PD_NODISCARD int pd_firefox_import(struct pd_input *in, struct pd_profile *p,
				   const struct pd_import_opts *o,
				   struct pd_err *err);
int pd_wpa_sniff(const char *head, size_t len);
PD_NODISCARD int pd_wpa_import(struct pd_input *in, struct pd_profile *p,
			       const struct pd_import_opts *o,
			       struct pd_err *err);
int pd_cpuprofile_sniff(const char *head, size_t len);
PD_NODISCARD int pd_cpuprofile_import(struct pd_input *in, struct pd_profile *p,
				      const struct pd_import_opts *o,
				      struct pd_err *err);
int pd_xctrace_sniff(const char *head, size_t len);
PD_NODISCARD int pd_xctrace_import(struct pd_input *in, struct pd_profile *p,
				   const struct pd_import_opts *o,
				   struct pd_err *err);
int pd_instruments_sniff(const char *head, size_t len);
PD_NODISCARD int pd_instruments_import(struct pd_input *in,
				       struct pd_profile *p,
				       const struct pd_import_opts *o,
				       struct pd_err *err);
int pd_dhat_sniff(const char *head, size_t len);
PD_NODISCARD int pd_dhat_import(struct pd_input *in, struct pd_profile *p,
				const struct pd_import_opts *o,
				struct pd_err *err);
/* DHAT: whether name is a measure; the names, for messages. */
int pd_dhat_metric_ok(const char *name);
const char *pd_dhat_metric_names(void);
extern const char pd_dhat_alloc_default[];
int pd_callgrind_sniff(const char *head, size_t len);
PD_NODISCARD int pd_callgrind_import(struct pd_input *in, struct pd_profile *p,
				     const struct pd_import_opts *o,
				     struct pd_err *err);
int pd_cachegrind_sniff(const char *head, size_t len);
PD_NODISCARD int pd_cachegrind_import(struct pd_input *in, struct pd_profile *p,
				      const struct pd_import_opts *o,
				      struct pd_err *err);
int pd_perfstat_sniff(const char *head, size_t len);
PD_NODISCARD int pd_perfstat_import(struct pd_input *in, struct pd_profile *p,
				    const struct pd_import_opts *o,
				    struct pd_err *err);
int pd_pprof_sniff(const char *head, size_t len);
PD_NODISCARD int pd_pprof_import(struct pd_input *in, struct pd_profile *p,
				 const struct pd_import_opts *o,
				 struct pd_err *err);
int pd_speedscope_sniff(const char *head, size_t len);
PD_NODISCARD int pd_speedscope_import(struct pd_input *in, struct pd_profile *p,
				      const struct pd_import_opts *o,
				      struct pd_err *err);

#endif
