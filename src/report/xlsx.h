/* Helpers shared by the XLSX writers (diff and trend reports). */
#ifndef PD_REPORT_XLSX_H
#define PD_REPORT_XLSX_H

#include <xlsxwriter.h>

#include "core/err.h"

/*
 * A string cell: valid UTF-8, cut at a character to the 32767 UTF-16 units
 * an Excel cell holds.
 */
void pd_xlsx_str(lxw_worksheet *ws, int r, int c, const char *s, lxw_format *f);
/* Writes and frees the workbook; 0, or PD_EIO with libxlsxwriter's reason. */
PD_NODISCARD int pd_xlsx_close(lxw_workbook *wb, const char *path,
			       struct pd_err *err);

#endif
