/*
 * The fields of one line of a CSV table, cut in place one at a time: the reference tables of probes
 * (probes.c) and of validation cases (validate_case.c). One at a time, so that a table of any width is
 * read: arrays of a fixed count of fields cut wider tables short (columns past it read as missing, and
 * rows that differed in width past it were taken). No quoting: the tables hold numbers and plain names.
 */
#ifndef EDDY_HOST_CSV_FIELDS_H
#define EDDY_HOST_CSV_FIELDS_H

#include <stddef.h>

/* The next field of the line at *cursor, cut at a comma and trimmed of blanks (spaces, tabs, a
 * carriage return); *cursor moves past it, to NULL after the last field. NULL once *cursor is NULL. The
 * line is changed in place (each field ends in a NUL). */
char *eddy_csv_next_field(char **cursor);

/* The count of fields eddy_csv_next_field will cut from line (its commas plus one), without changing it. */
size_t eddy_csv_field_count(const char *line);

#endif
